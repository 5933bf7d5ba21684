"""Replicated uniques, ``repU`` (identity disclosure; Raab, Nowok and Dibben, *Practical privacy metrics for
synthetic data*, 2024; the R package synthpop 1.9's ``disclosure()``, issue 50): with the known variables as keys,
the share of originals whose key combination is unique among the originals and unique among the avatars too.

Beside it, as synthpop prints them: ``UiO`` (originals unique in the originals), ``UiS`` (avatars unique in the
avatars), ``UiOiS`` (originals unique in the originals whose key combination is among the avatars), and the same
``repU`` with the real holdout in place of the avatars: what a sample of other real people repeats by chance. Keys
compared as synthpop does by default: exact values, a missing value its own level, no grouping of numbers. Every
share is of the originals (of the avatars for ``UiS``), in %. Shown, never in the verdict (no target is published).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.i18n import N_
from core.metrics.context import comparable
from core.metrics.definition import SINGLING_OUT, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import PrivacyContext

DEFINITION = MetricDefinition(
    name="replicated_uniques", label=N_("Replicated uniques (repU)"), unit="%", goal="minimize",
    bounds=(0.0, 100.0), criterion=SINGLING_OUT,
    interpretation=N_("Share of real people unique on the known variables among the originals whose combination "
                      "is also unique among the avatars (synthpop's repU): an attacker who finds that one avatar may "
                      "take it for them. Beside it, the same with real people never used: what chance repeats."),
    computation=N_("With the known variables as keys, exact values, a missing value its own level: the originals "
                   "whose key combination no other original holds and exactly one avatar holds, over all originals."),
)


def key_codes(frames: Sequence[pd.DataFrame], keys: Sequence[str]) -> list[np.ndarray]:
    """Each row's key combination as one code shared by ``frames`` (comparable rows: missing its own level)."""
    joined = pd.concat([frame[list(keys)] for frame in frames], ignore_index=True)
    codes = joined.groupby(list(keys), sort=False, dropna=False).ngroup().to_numpy()
    return np.split(codes, np.cumsum([len(frame) for frame in frames])[:-1])


def identity_measures(originals: np.ndarray, synthetic: np.ndarray) -> dict[str, float]:
    """``UiO``, ``UiS``, ``UiOiS`` and ``repU`` (%) of the key codes of the originals and of the synthetic rows."""
    groups = int(max(originals.max(initial=-1), synthetic.max(initial=-1))) + 1
    in_originals = np.bincount(originals, minlength=groups)[originals]
    in_synthetic = np.bincount(synthetic, minlength=groups)
    unique = in_originals == 1
    return {"UiO": share(unique), "UiS": share(in_synthetic[synthetic] == 1),
            "UiOiS": share(unique & (in_synthetic[originals] > 0)),
            "repU": share(unique & (in_synthetic[originals] == 1))}


def share(flags: np.ndarray) -> float:
    """The share of true ``flags``, in % (0 of none)."""
    return float(100 * flags.mean()) if flags.size else 0.0


def compute(context: PrivacyContext) -> MetricResult:
    """``repU`` of the avatars, with ``UiO``, ``UiS``, ``UiOiS`` and the holdout's ``repU`` beside it."""
    if missing := context.knowledge.missing_choice(sensitive=False):
        return DEFINITION.result(None, not_applicable=missing, awaits_choice=True)
    keys = list(context.knowledge.known)
    sides, kinds = context.sides, context.reference.kinds
    holdout = None if sides is None or sides.approximate or not len(sides.controls) else comparable(
        sides.controls[keys], kinds)
    frames = [context.reference.rows, context.avatar_rows, *([holdout] if holdout is not None else [])]
    codes = key_codes(frames, keys)
    measures = identity_measures(codes[0], codes[1])
    if holdout is not None:
        measures["holdout_repU"] = identity_measures(codes[0], codes[2])["repU"]
    return DEFINITION.result(measures["repU"], breakdown={"keys": keys, **measures})
