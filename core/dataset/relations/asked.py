"""What a table's description asks of its relations (issue 30): those found kept or not, some ignored, others
declared; read by the engine's fit, written in a schema's table entry."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RelationsAsked:
    """Every relation found exact on the originals kept (``find``), but those computing an ``ignored`` column
    (the one a relation derives, or an order's later column), with the ``declared`` lines (see
    :func:`~core.dataset.relations.declared_relation`), which replace any found that touches the column they
    compute."""

    find: bool = True
    declared: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()

    def ignoring(self, column: str, ignored: bool = True) -> RelationsAsked:
        """The same, the relation computing ``column`` ignored (or kept again)."""
        others = tuple(name for name in self.ignored if name != column)
        return RelationsAsked(self.find, self.declared, (*others, column) if ignored else others)
