"""Relations that must hold between a table's columns (issue 30): found exact on the originals, kept in the avatars
by computing each derived column from its sources, one module per kind."""

from core.dataset.relations.asked import RelationsAsked
from core.dataset.relations.declared import declared_relation
from core.dataset.relations.determined import Determined
from core.dataset.relations.find import find_relations
from core.dataset.relations.intervals import Intervals
from core.dataset.relations.monotone import Monotone
from core.dataset.relations.order import Order
from core.dataset.relations.relation import Relation
from core.dataset.relations.total import Total

__all__ = ["Determined", "Intervals", "Monotone", "Order", "Relation", "RelationsAsked", "Total", "declared_relation", "find_relations"]
