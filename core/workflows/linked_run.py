"""Linked tables from avatarization to judgment (SPEC 12): the avatars of every table, their metrics and one
verdict covering each individual-level table with its descendants."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from core.dataset import Dataset
from core.engine.dataset_avatarizer import DatasetAvatarizer
from core.metrics.attack import Knowledge
from core.metrics.linked_evaluation import LinkedEvaluation, evaluate_linked
from core.workflows.verdict import NOT_READY, READY, Verdict, verdict_of


@dataclass(frozen=True)
class LinkedVerdict:
    """Per individual-level table, the verdict on its rows with everything about them (its descendants'
    aggregates; a table without children: its own rows); the links whose foreign keys do not all resolve. Ready
    when every person table is and every link holds. No fix is searched for linked tables yet."""

    persons: dict[str, Verdict]
    broken_links: list[str]

    @property
    def ready(self) -> bool:
        return not self.broken_links and all(verdict.ready for verdict in self.persons.values())

    @property
    def status(self) -> str:
        if self.broken_links or any(verdict.status == NOT_READY for verdict in self.persons.values()):
            return NOT_READY
        return READY if self.ready else next(verdict.status for verdict in self.persons.values() if not verdict.ready)


def scored(fitted: DatasetAvatarizer, knowledge: Knowledge = Knowledge()) -> LinkedEvaluation:
    """The metrics of a fitted linked run, its avatars paired with their originals where the method pairs them;
    the attacker's ``knowledge`` as :func:`~core.metrics.linked_evaluation.evaluate_linked` takes it."""
    return evaluate_linked(fitted.dataset_, fitted.working_data_, fitted.holdout_data_, fitted.avatars_,
                           paired_orders={name: avatarizer.paired_order_
                                          for name, avatarizer in fitted.avatarizers_.items()},
                           seed=fitted.seed_, knowledge=knowledge)


def linked_verdict(dataset: Dataset, evaluation: LinkedEvaluation) -> LinkedVerdict:
    """The one verdict of linked tables (see :class:`LinkedVerdict`)."""
    persons = {name: verdict_of(evaluation.persons.get(name) or evaluation.tables[name])
               for name in dataset.tables if dataset.is_individual_level(name)
               and (name in evaluation.persons or name in evaluation.tables)}
    broken = [link for link, metrics in evaluation.links.items() if metrics["referential_integrity"].passed is False]
    return LinkedVerdict(persons, broken)


def evaluated_files(dataset: Dataset, originals: Mapping[str, pd.DataFrame], avatars: Mapping[str, pd.DataFrame],
                    seed: int = 0, knowledge: Knowledge = Knowledge()) -> LinkedEvaluation:
    """The metrics of linked avatars made by another tool (SDV's HMA...): not paired, scored against halves of the
    originals' families."""
    return evaluate_linked(dataset, originals, dict.fromkeys(dataset.tables), avatars,
                           paired_orders=dict.fromkeys(dataset.tables), seed=seed, knowledge=knowledge)
