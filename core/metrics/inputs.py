"""The files an evaluation is given, checked against the originals: each typed as the originals' columns (or the
one line that says which file is wrong), and the categorical values the originals never have said and counted as
missing."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from core.dataset import Kind
from core.engine.schema import apply_kinds
from core.errors import InputError
from core.i18n import _


def typed_like(frame: pd.DataFrame, kinds: Mapping[str, Kind], where: str) -> pd.DataFrame:
    """``frame`` typed as ``kinds`` say, else the error that says which file: ``where``, a message with ``{error}``."""
    try:
        return apply_kinds(frame, kinds)
    except InputError as error:
        raise InputError(_(where).format(error=error)) from None


def unseen_modalities(originals: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind]) -> list[str]:
    """A sentence per categorical column whose avatars hold values the originals never have: the metrics count
    them as missing, which the user must know."""
    said = []
    for name, kind in kinds.items():
        if kind is not Kind.CATEGORICAL:
            continue
        known = set(originals[name].dropna().astype(str))
        unseen = avatars[name].dropna().astype(str)
        unseen = unseen[~unseen.isin(known)]
        if len(unseen):
            examples = ", ".join(repr(value) for value in unseen.unique()[:3])
            said.append(f"In the avatars, '{name}' has {len(unseen)} value{'s' if len(unseen) > 1 else ''} the "
                        f"originals never have ({examples}): the metrics and analyses count them as missing.")
    return said


def known_values_only(avatars: pd.DataFrame, originals: list[pd.DataFrame], kinds: Mapping[str, Kind]) -> pd.DataFrame:
    """``avatars`` with the categorical values no original has as missing, as the metrics count them (and as the
    warning of :func:`unseen_modalities` says): an avatar file's stray code does not turn a two-valued event into
    three."""
    masked = {}
    for name, kind in kinds.items():
        if kind is Kind.CATEGORICAL:
            known = {str(value) for frame in originals for value in pd.unique(frame[name].dropna().astype(object))}
            stray = [value for value in pd.unique(avatars[name].dropna().astype(object)) if str(value) not in known]
            if stray:
                masked[name] = avatars[name].where(~avatars[name].isin(stray))
    return avatars.assign(**masked) if masked else avatars
