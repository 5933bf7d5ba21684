"""A relation that must hold between columns (issue 30): what each kind answers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from core.i18n import _, percent


@dataclass(frozen=True)
class Relation(ABC):
    """A rule found exact on the originals (or declared): the avatars keep it by computing ``derived`` from the
    other ``columns`` after the synthesis (an order, which derives nothing, synthesizes a difference instead).
    ``broken``: the share of the originals' rows that break it, 0 but for a declared one the data show only
    approximately (within :data:`~core.dataset.relations.declared.DECLARED_TOLERANCE`)."""

    kind: ClassVar[str]
    broken: float = field(default=0.0, kw_only=True)

    @property
    @abstractmethod
    def columns(self) -> tuple[str, ...]:
        """Every column the relation reads or writes."""

    @property
    def derived(self) -> str | None:
        """The column computed from the others, which takes no part in the synthesis."""
        return None

    @property
    def computed(self) -> str | None:
        """The column rebuilt after the synthesis: the derived one (an order's later column, from its difference)."""
        return self.derived

    @abstractmethod
    def breaking(self, frame: pd.DataFrame) -> np.ndarray:
        """The rows of ``frame`` that break the relation (a missing value where its source has one breaks it)."""

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with ``derived`` computed from its sources."""
        return frame

    @abstractmethod
    def sentence(self) -> str:
        """The relation in words, for the Data page, the command line and the report."""

    def how_kept(self) -> str:
        """How the avatars keep it, in words."""
        sources = ", ".join(f"'{column}'" for column in self.columns if column != self.derived)
        return _("'{derived}' computed from {sources} in every avatar").format(derived=self.derived, sources=sources)

    def claim(self) -> str:
        """The relation in words as the originals show it: its sentence, and the share of their rows that break it
        if any (a declared relation's)."""
        if not self.broken:
            return self.sentence()
        return _("{relation}, except on {share} of the original rows").format(
            relation=self.sentence(), share=percent(100 * self.broken, ".1f" if self.broken >= 0.001 else ".2g"))

    def line(self) -> str:
        """The relation and how the avatars keep it, in one line (the command line's)."""
        return _("{relation}: kept, {how}.").format(relation=self.claim(), how=self.how_kept())

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The relation in the schema JSON and the metrics JSON (no value of a row in it but modalities and cuts)."""

    def breaking_share(self, frame: pd.DataFrame) -> float:
        """The share of rows of ``frame`` that break the relation (SPEC 12's metric of issue 30)."""
        return float(self.breaking(frame).mean()) if len(frame) else 0.0


class Derivation(Relation):
    """A relation that computes ``target`` from ``source`` (the dataclasses below give both fields)."""

    source: str
    target: str

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.source, self.target)

    @property
    def derived(self) -> str:
        return self.target


def unequal(computed: pd.Series, actual: pd.Series) -> np.ndarray:
    """The rows where a computed value differs from the one given (both missing is equal)."""
    equal = (computed == actual) | (computed.isna() & actual.isna())
    return ~equal.to_numpy(dtype=bool)
