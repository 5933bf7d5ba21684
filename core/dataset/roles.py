"""What a column is (its kind) and what it does in the synthesis (its role): the vocabulary of a dataset's
description, below every other layer."""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    """How a column takes part in the projection (SPEC section 2 step 1)."""

    NUMERIC = "numeric"
    CATEGORICAL = "categorical"
    DATETIME = "datetime"


class Role(StrEnum):
    """What a column does in the synthesis, decided before its kind: a key is never averaged nor copied."""

    KEY = "key"  # a table's primary key: new values in the avatars (SPEC 12)
    FOREIGN_KEY = "foreign_key"  # a reference to a parent's key: written from the linkage (SPEC 12)
    TIME = "time"  # the time of a series' measures (SPEC 13)
    IDENTIFIER = "identifier"  # identifier-like: no part in the synthesis, new values of the same form
    SYNTHESIZED = "synthesized"  # projected and synthesized (the default)
    SET_APART = "set_apart"  # no part in the synthesis, re-attached afterwards (exclude)
    DROPPED = "dropped"  # left out of the avatars entirely


DECLARED_ROLES = (Role.SYNTHESIZED, Role.SET_APART, Role.DROPPED, Role.IDENTIFIER)  # what a column entry may say
