"""One base for a run of one table (:class:`~core.workflows.run.GenerationRun`) and a run of linked tables
(:class:`~core.workflows.linked_run.LinkedRun`), as SDV's single- and multi-table synthesizers share one, so that
each page, widget and command is written once: the tables it scored (each person table with everything about them,
each table alone), each person table's verdict, a fix applied, the attacks run again, the avatars of every row with
the same settings. A run is never changed once built: each of these gives another."""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from core.engine.parameters import Parameters
from core.engine.pipeline import Avatarizer
from core.i18n import ngettext, number
from core.metrics.attack import Knowledge
from core.metrics.evaluation import Evaluation
from core.workflows.latent import LatentView
from core.workflows.release import Release
from core.workflows.verdict import NOT_READY, Progress, Verdict


@dataclass(frozen=True)
class ScoredTable:
    """One evaluation of a run: a person table with everything about its people (``person``: their descendants'
    aggregates as columns), a table alone, or the one table of a single-table run; ``key`` tells it apart among the
    run's (empty for a single table's)."""

    table_name: str
    evaluation: Evaluation
    person: bool
    key: str
    individual: bool  # its rows are people: who is most exposed can be shown
    originals: pd.DataFrame | None  # the rows the avatars were made from, and the avatars, as the figures compare
    avatars: pd.DataFrame | None  # them (None: a table with no column scored)
    latent: LatentView | None = None  # one table's originals and avatars on the projection's first axes


class Run(ABC):
    """A scored and judged run: its input's ``fingerprint``, the ``parameters`` chosen, the attacker's ``knowledge``
    the attacks assumed, its whole time ``elapsed_s`` (the fix search included), the moment it was ``made_on``
    (what its report says, however often it is written), the ``release`` it is made for (its recipient sets the
    attacker: :meth:`~core.workflows.release.Release.attacker`)."""

    fingerprint: str
    parameters: Parameters
    knowledge: Knowledge
    elapsed_s: float
    made_on: dt.datetime
    release: Release

    @property
    @abstractmethod
    def person_verdicts(self) -> dict[str, Verdict]:
        """Each person table's verdict (one table: its own), with the fix checked for it."""

    @property
    @abstractmethod
    def held_out(self) -> bool:
        """Whether real people were kept apart as a holdout (the avatars then stand for half of them)."""

    @property
    @abstractmethod
    def avatarizers(self) -> dict[str, Avatarizer]:
        """Each table's fitted avatarizer (a time series has none: its measures are rebuilt from its persons')."""

    @property
    @abstractmethod
    def attacked_columns(self) -> list[str]:
        """The columns an attacker may know or want: one table's scored columns (its identifiers apart), or those
        of each person table with everything about its people."""

    @abstractmethod
    def attacker_for(self, knowledge: Knowledge) -> Knowledge:
        """What the attacks assume when the user chose ``knowledge``, as the run's recipient implies
        (:meth:`~core.workflows.release.Release.attacker`, decisions 6.7)."""

    @abstractmethod
    def scored_tables(self) -> list[ScoredTable]:
        """The run's evaluations, person tables first: what the Utility, Analysis and Privacy pages choose among."""

    @abstractmethod
    def people(self, scored: ScoredTable) -> pd.DataFrame | None:
        """Every original of ``scored`` the privacy metrics score, in their order (the rows of who is most exposed);
        None when its rows are not people."""

    @abstractmethod
    def exposure_latent(self, scored: ScoredTable) -> LatentView | None:
        """The people of ``scored`` and every avatar on the first axes of a projection fitted on them, for the map of
        who is most exposed, the levels of :func:`~core.workflows.exposure.exposure_levels` indexing the same people
        (None: its rows are not people)."""

    @abstractmethod
    def with_fix(self, table: str) -> Run:
        """The run the fix of ``table``'s verdict made when it was checked (one click applies it, nothing made
        again)."""

    @abstractmethod
    def rescored(self, knowledge: Knowledge, frames: Mapping[str, pd.DataFrame], progress: Progress | None = None,
                 search: bool = True) -> Run:
        """The run scored again for another attacker (the avatars do not change), judged, a fix checked on the
        originals ``frames`` when a target is missed (unless ``search`` is off: :meth:`with_fix_search` later), the
        analyses it held kept."""

    @abstractmethod
    def with_fix_search(self, frames: Mapping[str, pd.DataFrame], progress: Progress | None = None) -> Run:
        """The run (its avatars and figures unchanged) with a fix checked on the originals ``frames`` for each person
        table that misses a target: what the dashboard does once it has shown the avatars (issue 51)."""

    @abstractmethod
    def every_row(self, frames: Mapping[str, pd.DataFrame], progress: Progress | None = None) -> Run:
        """The avatars of every row made with the run's settings (no holdout): the ones to share, their privacy then
        measured on every person."""

    @abstractmethod
    def made_sentence(self) -> str:
        """One sentence saying how the avatars were made and measured (the fix search apart)."""

    @abstractmethod
    def short_summary(self) -> str:
        """What the sidebar says: the method (of each table), the seed."""

    @property
    def ready(self) -> bool:
        """Whether the run's avatars can be shared: every person table ready."""
        return all(verdict.ready for verdict in self.person_verdicts.values())

    @property
    def awaits_fix_search(self) -> bool:
        """Whether a person table misses a target and no fix was looked for yet (see :meth:`with_fix_search`)."""
        return any(verdict.status == NOT_READY and not verdict.searched for verdict in self.person_verdicts.values())

    @property
    def searched_s(self) -> float:
        """The seconds the fix searches took (0 when none ran)."""
        return sum(verdict.search_seconds for verdict in self.person_verdicts.values() if verdict.searched)

    @property
    def made_s(self) -> float:
        """The seconds the avatars and their metrics took, the fix searches apart."""
        return self.elapsed_s - self.searched_s

    def summary(self) -> str:
        """What was done: how the avatars were made and measured, then the seconds the fix searches took."""
        searched = [verdict for verdict in self.person_verdicts.values() if verdict.searched]
        if not searched:
            return self.made_sentence()
        tried = sum(len(verdict.tried) for verdict in searched)
        return " ".join([self.made_sentence(), ngettext(  # "Made in 24.1 s" was 0.6 s of avatars, 23.5 s of fixes
            "Then {seconds} s checking {count} other setting for a fix.",
            "Then {seconds} s checking {count} other settings for a fix.", tried).format(
            seconds=number(self.searched_s, ".1f"), count=number(tried))])

    def judged_tables(self) -> list[ScoredTable]:
        """The evaluations the verdict judges, what the Privacy page shows: each person table with everything about
        its people (one without children: its own rows); one table's own. A table alone beside its person view is
        not attacked, and a table of events is not people (a helper's pass: their views said "not assessed" for a
        choice made, and "real people" of stays)."""
        scored, judged = self.scored_tables(), self.person_verdicts
        persons = {table.table_name for table in scored if table.person}
        return [table for table in scored if table.table_name in judged
                and (table.person or table.table_name not in persons)]
