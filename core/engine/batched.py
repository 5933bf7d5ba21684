"""Avatars of a table too large for memory, one batch at a time (SPEC section 10).

The rows are dealt to batches (:mod:`core.engine.batches`). What the fit in memory decides on the table is
decided once on the whole table, from facts of each batch merged in batch order, and sent to every batch
(:class:`WholeTable`), in the order of the fit in memory:

1. typing, column by column (:mod:`core.engine.table_typing`);
2. the codec (every batch's modalities, the dates' resolution, the numbers' decimals) and the indicators
   (incomplete variables, spikes) of each batch, then the candidate spikes' counts;
3. each batch encoded with them and imputed within the batch, kept in the batch's :class:`BatchCache` for the
   next steps;
4. when the categorical reduction is on: its context projection (statistics, then the gram matrix) and the
   modalities' context sums;
5. the projection: the statistics, then the gram matrix summed, one eigendecomposition
   (:func:`decide` runs steps 2 to 6);
6. AvatarFastDP: one noisy model for every batch (its bounds on the latent coordinates, its statistics summed,
   the noise added once);
7. each batch avatarized (:func:`avatarize_batch`): Avatar with neighbours within the batch, AvatarFastDP
   sampled from the one model.

Each step composes the functions of :mod:`core.engine.stages`, as the fit in memory does, with the whole table's
decisions given.

Batch ``b`` draws from the seed's stream ``b`` (batch 0 from the seed itself): with one batch, every step is the
fit in memory's, on the same rows, with the same draws, so the avatars are the same, byte for byte.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial, reduce
from pathlib import Path
from typing import Protocol, Self, TypeVar

import numpy as np
import pandas as pd

from core.engine.batches import read_batch
from core.engine.encoding import EncodedTable, TableCodec
from core.engine.fast_dp import FastDPSynthesizer
from core.engine.imputation import IndicatorFacts, Indicators, add_indicators, summed_counts
from core.engine.methods import AvatarFastDP, method_of
from core.engine.parameters import Parameters
from core.engine.pipeline import Avatarizer
from core.engine.projection import CodingStatistics, Projection
from core.engine.reduction import CategoricalReduction, ModalitySums
from core.engine.sources import TypedColumns
from core.engine.stages import (
    Encoded,
    SplitTable,
    TypedTable,
    encode,
    model_weights,
    project,
    reduction_plan,
    resolve_ncp,
    seed_generator,
    split_table,
)
from core.engine.table_typing import TableTyping

LATENT_SAMPLE_ROWS = 1_000_000
_SAMPLE_STREAM = 0x5A3B1E  # the latent sample's own stream of the seed


@dataclass
class WholeTable:
    """The decisions on the whole table, filled step by step (see the module docstring)."""

    typing: TableTyping
    codec: TableCodec | None = None
    layout: Indicators | None = None
    reduction_plan: CategoricalReduction | None = None  # unfitted: which variables to embed
    context_projection: Projection | None = None
    reduction: CategoricalReduction | None = None
    projection: Projection | None = None
    ncp: int = 0
    rows: int = 0  # the rows avatarized, every batch's
    synthesizer: FastDPSynthesizer | None = None  # AvatarFastDP: the one noisy model
    latent_sample_rows: int = 0  # the rows its bounds (and a gmm) were fitted on

    def template(self) -> EncodedTable:
        """The complete table's layout (its variables and modalities), without rows."""
        assert self.codec is not None and self.layout is not None  # decided (step 2)
        empty = pd.DataFrame({name: pd.Series(dtype=object) for name in self.codec.columns_})
        return add_indicators(self.codec.encode(empty), self.layout)[0]

    def model_table(self, complete: EncodedTable) -> EncodedTable:
        """What the projection sees: ``complete`` after the reduction, when on."""
        return self.reduction.transform(complete) if self.reduction else complete


class BatchCache:
    """One batch's encoded, imputed table and the generator's state after the imputation, kept between the steps
    in ``folder`` (NumPy arrays and JSON: no pickle; readable by the owner only)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def save(self, complete: EncodedTable, rng: np.random.Generator) -> None:
        self.folder.mkdir(exist_ok=True)  # not its parents: a task left over after the run stopped fails
        for name, values in (("numeric", complete.numeric), ("codes", complete.codes)):
            with _private(self.folder / f"{name}.npy") as stream:
                np.save(stream, values, allow_pickle=False)
        self.save_generator(rng)

    def save_generator(self, rng: np.random.Generator) -> None:
        with _private(self.folder / "generator.json") as stream:
            stream.write(json.dumps(rng.bit_generator.state).encode())

    def complete(self, whole: WholeTable) -> EncodedTable:
        template = whole.template()
        return template.with_arrays(*(np.load(self.folder / f"{name}.npy", allow_pickle=False)
                                      for name in ("numeric", "codes")))

    def generator(self) -> np.random.Generator:
        rng = np.random.default_rng()
        rng.bit_generator.state = json.loads((self.folder / "generator.json").read_text())
        return rng

    def clear(self) -> None:
        for path in self.folder.glob("*"):
            path.unlink()
        self.folder.rmdir()


@dataclass(frozen=True)
class Batches:
    """The batches' rows, staged under ``folder`` by :func:`~core.engine.batches.stage_group` from the typed
    ``columns``, and their caches."""

    columns: TypedColumns
    folder: Path
    count: int

    def rows(self, batch: int) -> pd.DataFrame:
        return read_batch(self.columns, self.folder, batch)

    def cache(self, batch: int) -> BatchCache:
        return BatchCache(self.folder / "cache" / f"batch-{batch:05d}")


Runner = Callable[[Callable[[int], object], list[int]], list]  # runs a step on every batch: results in batch order


def checked_seed(parameters: Parameters) -> int:
    """The parameters checked (``InputError`` naming the first wrong one) and the seed every batch draws from: the
    one given, else one drawn."""
    avatarizer = Avatarizer(parameters)
    avatarizer.checked_method()
    avatarizer.start()
    return avatarizer.seed_


def decide(parameters: Parameters, whole: WholeTable, batches: Batches, run: Runner) -> WholeTable:
    """Steps 2 to 6 on every batch (``run``), decided on the whole table; ``whole`` holds the typing (step 1)
    and is filled in. ``parameters`` hold the seed every batch draws from."""
    method, every = method_of(parameters), list(range(batches.count))
    parts = run(partial(_codec_and_facts, parameters, whole, batches), every)
    whole.codec, facts = merged([codec for codec, _ in parts]), merged([facts for _, facts in parts])
    whole.layout = facts.layout(reduce(summed_counts, run(partial(_spike_counts, parameters, whole, batches, facts),
                                                          every)))
    template = whole.template()
    whole.reduction_plan = reduction_plan(parameters, template.categories)
    context = None if whole.reduction_plan is None else whole.reduction_plan.context_table(template)
    if whole.reduction_plan is not None and context is None:
        # nothing to embed the reduced variables in: an empty reduction, as in memory
        whole.reduction, whole.reduction_plan = whole.reduction_plan.fit_sums(template, []), None
    statistics = merged(run(partial(_complete, parameters, whole, batches), every))
    if whole.reduction_plan is not None and context is not None:  # both or neither
        whole.context_projection = Projection().fit_coding(context, statistics)
        whole.context_projection.fit_axes(_summed(run(partial(_context_gram, whole, batches), every)),
                                          statistics.rows)
        sums = run(partial(_modality_sums, whole, batches), every)
        whole.reduction = whole.reduction_plan.fit_sums(template, [merged(list(parts)) for parts in zip(*sums, strict=True)])
        statistics = merged(run(partial(_model_statistics, whole, batches), every))
    whole.projection = Projection(model_weights(parameters, whole.reduction, whole.typing.relations)).fit_coding(
        whole.model_table(template), statistics)
    whole.projection.fit_axes(_summed(run(partial(_model_gram, whole, batches), every)), statistics.rows)
    whole.ncp, whole.rows = resolve_ncp(parameters, len(whole.projection.components_)), statistics.rows
    if isinstance(method, AvatarFastDP):  # not paired: one model for every batch
        assert parameters.seed is not None  # checked_seed's
        whole.synthesizer = _fit_synthesizer(method.synthesizer, parameters.seed, whole, batches, run)
    return whole


def avatarize_batch(parameters: Parameters, frame: pd.DataFrame, batch: int, whole: WholeTable, cache: BatchCache,
                    numbering: tuple[int, int]) -> Avatarizer:
    """Step 7: the avatars of the batch's rows ``frame``, its new identifiers numbered from ``numbering`` (the
    avatars of the batches before it, and of all). The fitted attributes are those of a fit on the batch, so every
    metric applies to it."""
    avatarizer = Avatarizer(parameters)
    method = avatarizer.checked_method()
    rng, steps = avatarizer.start(stream=batch)
    split = split_table(TypedTable(frame, whole.typing), parameters, rng)
    assert whole.codec is not None and whole.layout is not None  # decided (step 2)
    encoded = Encoded(whole.codec, whole.layout, cache.complete(whole)).reduced(whole.reduction)
    with steps.step("projection"):
        projected = project(encoded, parameters, whole.typing.relations, whole.projection)
    split.check_rows(method)
    return avatarizer.synthesize(method, (split, encoded, projected), cache.generator(), steps,
                                 model=whole.synthesizer, numbering=numbering)


def _fit_synthesizer(synthesizer: FastDPSynthesizer, seed: int, whole: WholeTable, batches: Batches, run: Runner
                     ) -> FastDPSynthesizer:
    """AvatarFastDP's one noisy model (SPEC section 10): the bounds (and a gmm) on the latent coordinates of
    every row, or of a random ``LATENT_SAMPLE_ROWS`` of them when there are more and several batches; a
    gaussian's or a histogram's statistics summed over every row; the noise added once, drawn as batch 0 draws
    it (one batch: as in memory)."""
    every = list(range(batches.count))
    share = 1.0 if batches.count == 1 else min(1.0, LATENT_SAMPLE_ROWS / whole.rows)
    sample = np.vstack(run(partial(_latent_sample, whole, batches, share, seed), every))
    synthesizer.fit_bounds(sample)
    statistics = merged(run(partial(_latent_statistics, whole, batches, synthesizer), every)) \
        if synthesizer.summable else None
    cache = batches.cache(0)
    rng = cache.generator()
    synthesizer.fit_model(rng, coordinates=sample, statistics=statistics)
    cache.save_generator(rng)
    whole.latent_sample_rows = len(sample)
    return synthesizer


def _split(parameters: Parameters, whole: WholeTable, batches: Batches, batch: int
           ) -> tuple[SplitTable, np.random.Generator]:
    """The batch's rows, their holdout half set aside, and the batch's generator after it."""
    assert parameters.seed is not None  # checked_seed's: every batch draws from it
    rng = seed_generator(parameters.seed, batch)
    return split_table(TypedTable(batches.rows(batch), whole.typing), parameters, rng), rng


def _codec_and_facts(parameters: Parameters, whole: WholeTable, batches: Batches, batch: int
                     ) -> tuple[TableCodec, IndicatorFacts]:
    """Step 2: the batch's own codec and indicator facts."""
    synthesised = _split(parameters, whole, batches, batch)[0].synthesised()
    codec = TableCodec(whole.typing.kinds).fit(synthesised)
    return codec, IndicatorFacts.of(codec.encode(synthesised))


def _spike_counts(parameters: Parameters, whole: WholeTable, batches: Batches, facts: IndicatorFacts, batch: int
                  ) -> list[dict[float, int]]:
    """Step 2: how many of the batch's rows hold each candidate spike."""
    assert whole.codec is not None  # decided (step 2)
    return facts.counts(whole.codec.encode(_split(parameters, whole, batches, batch)[0].synthesised()))


def _complete(parameters: Parameters, whole: WholeTable, batches: Batches, batch: int) -> CodingStatistics:
    """Step 3: the batch encoded and imputed, kept in its cache; the statistics of what the next projection sees
    (the reduction's context, else the model table)."""
    split, rng = _split(parameters, whole, batches, batch)
    complete = encode(split, parameters, rng, codec=whole.codec, layout=whole.layout).complete
    assert complete is not None  # not released
    batches.cache(batch).save(complete, rng)
    if whole.reduction_plan is not None:
        return CodingStatistics.of(_context(whole.reduction_plan, complete))
    return CodingStatistics.of(complete)


def _context_gram(whole: WholeTable, batches: Batches, batch: int) -> np.ndarray:
    """The batch's part of the reduction's context gram matrix."""
    assert whole.context_projection is not None and whole.reduction_plan is not None  # decided (step 4)
    return whole.context_projection.gram(_context(whole.reduction_plan, batches.cache(batch).complete(whole)))


def _modality_sums(whole: WholeTable, batches: Batches, batch: int) -> list[ModalitySums]:
    """The batch's modality counts and context sums."""
    assert whole.reduction_plan is not None  # decided (step 4)
    return whole.reduction_plan.modality_sums(batches.cache(batch).complete(whole), whole.context_projection)


def _model_statistics(whole: WholeTable, batches: Batches, batch: int) -> CodingStatistics:
    """The statistics of the batch's model table (after a reduction)."""
    return CodingStatistics.of(whole.model_table(batches.cache(batch).complete(whole)))


def _model_gram(whole: WholeTable, batches: Batches, batch: int) -> np.ndarray:
    """The batch's part of the model table's gram matrix."""
    assert whole.projection is not None  # decided (step 5)
    return whole.projection.gram(whole.model_table(batches.cache(batch).complete(whole)))


def _latent_coordinates(whole: WholeTable, batches: Batches, batch: int) -> np.ndarray:
    assert whole.projection is not None  # decided (step 5)
    return whole.projection.transform(whole.model_table(batches.cache(batch).complete(whole)), whole.ncp)


def _latent_sample(whole: WholeTable, batches: Batches, share: float, seed: int, batch: int) -> np.ndarray:
    """The batch's latent coordinates, or a random ``share`` of them (in the batch's order), drawn apart from every
    other random step."""
    coordinates = _latent_coordinates(whole, batches, batch)
    if share >= 1.0:
        return coordinates
    rng = np.random.default_rng([seed, batch, _SAMPLE_STREAM])
    rows = np.sort(rng.choice(len(coordinates), size=round(share * len(coordinates)), replace=False))
    return coordinates[rows]


def _latent_statistics(whole: WholeTable, batches: Batches, synthesizer: FastDPSynthesizer, batch: int) -> object:
    """The batch's part of the noisy model's statistics (clipped to the bounds)."""
    return synthesizer.statistics(_latent_coordinates(whole, batches, batch))


def _summed(grams: list[np.ndarray]) -> np.ndarray:
    """Gram matrices added in batch order."""
    return reduce(np.add, grams)


def _context(plan: CategoricalReduction, complete: EncodedTable) -> EncodedTable:
    """The reduction's context of a batch's ``complete`` table: there is one (else no reduction is planned)."""
    context = plan.context_table(complete)
    assert context is not None  # as the template has (see decide): the same variables
    return context


class _Mergeable(Protocol):
    def merged(self, other: Self) -> Self: ...


MergeableT = TypeVar("MergeableT", bound=_Mergeable)


def merged(parts: list[MergeableT]) -> MergeableT:
    """Parts' facts merged in batch order (their ``merged`` method)."""
    return reduce(lambda first, second: first.merged(second), parts)


def _private(path: Path) -> io.BufferedWriter:
    """``path`` opened for writing, readable by its owner only."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb")
