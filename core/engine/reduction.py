"""Categorical reduction: many-modality variables embedded in a few numeric dimensions (SPEC section 2).

A categorical variable with more than ``N_DIMENSIONS + 1`` modalities would bring
``M - 1`` units of inertia to the FAMD projection and dominate it. With reduction on,
each such variable is replaced by ``N_DIMENSIONS`` numeric columns:

1. the *context* of a row is its coordinates on the first ``CONTEXT_AXES`` axes of a
   projection of the variables that are not reduced;
2. the *profile* of a modality is the mean context of its rows, shrunk towards the
   centroid as ``sum / (count + SHRINKAGE)`` so that rare modalities stay near the middle;
3. the embedding is the first ``N_DIMENSIONS`` principal axes of the profiles,
   weighted by the modalities' counts (fewer when there are fewer modalities).

The embedded columns enter the projection as numeric columns, each weighted
``1 / N_DIMENSIONS`` so that the variable as a whole weighs like one numeric column.
Decoding gives each synthetic row the modality whose embedding is nearest. A missing value (code -1, in the
metrics' spaces, which are not imputed) takes no part in the profiles and sits at the centroid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from core.engine.encoding import EncodedTable, code_dtype
from core.engine.projection import Projection

N_DIMENSIONS = 3
CONTEXT_AXES = 10
SHRINKAGE = 5.0
EMBEDDED_SEPARATOR = " #"


@dataclass(frozen=True)
class _Embedding:
    name: str
    position: int
    vectors: np.ndarray  # (M, r)

    def column_names(self) -> list[str]:
        return [f"{self.name}{EMBEDDED_SEPARATOR}{d + 1}" for d in range(self.vectors.shape[1])]


class CategoricalReduction:
    """Fitted embedding of the many-modality categorical variables of one table: those with at least
    ``min_modalities`` modalities (by default every one with more than ``N_DIMENSIONS + 1``).

    Attributes
    ----------
    embeddings_ : one per reduced variable (its name, its modalities' vectors).
    column_weights_ : projection weights of the embedded columns.
    """

    def __init__(self, min_modalities: int = N_DIMENSIONS + 2):
        self.min_modalities = min_modalities

    def fit(self, table: EncodedTable) -> CategoricalReduction:
        context = self.context_table(table)
        projection = Projection().fit(context) if context is not None else None
        return self.fit_sums(table, self.modality_sums(table, projection))

    def reducible(self, table: EncodedTable) -> list[int]:
        """The positions of the variables to embed."""
        return [position for position, modalities in enumerate(table.categories) if len(modalities) >= self.min_modalities]

    def context_table(self, table: EncodedTable) -> EncodedTable | None:
        """The variables the context is projected from: the numeric ones and the categoricals kept (None when
        there is nothing to embed, or nothing to embed it in)."""
        reducible = self.reducible(table)
        kept = [position for position in range(len(table.categories)) if position not in reducible]
        if not reducible or not (table.numeric.shape[1] or kept):
            return None
        return EncodedTable(
            numeric=table.numeric,
            codes=table.codes[:, kept],
            numeric_names=table.numeric_names,
            categorical_names=tuple(table.categorical_names[p] for p in kept),
            categories=tuple(table.categories[p] for p in kept),
        )

    def modality_sums(self, table: EncodedTable, projection: Projection | None) -> list[ModalitySums]:
        """Per variable to embed, its modalities' counts and context sums on ``table`` (summable over the parts of
        a table, SPEC section 10); none without a context ``projection``."""
        if projection is None:
            return []
        context_table = self.context_table(table)
        assert context_table is not None  # the projection was fitted on this layout's context
        context = projection.transform(context_table, max(1, min(CONTEXT_AXES, projection.n_components_)))
        return [ModalitySums.of(table.codes[:, position], len(table.categories[position]), context)
                for position in self.reducible(table)]

    def fit_sums(self, table: EncodedTable, sums: list[ModalitySums]) -> CategoricalReduction:
        """The embeddings from the modalities' ``sums`` over the whole table (``table``, or a part of it, gives the
        variables' names and positions)."""
        self.embeddings_: list[_Embedding] = [
            _Embedding(table.categorical_names[position], position, part.embedding())
            for position, part in zip(self.reducible(table), sums, strict=True)
        ]
        self.column_weights_ = {
            column: 1.0 / embedding.vectors.shape[1]
            for embedding in self.embeddings_ for column in embedding.column_names()
        }
        self._reduced_positions = {embedding.position for embedding in self.embeddings_}
        return self

    def transform(self, table: EncodedTable) -> EncodedTable:
        """Replace each reduced variable by its embedded numeric columns (appended after the numeric ones)."""
        if not self.embeddings_:
            return table
        kept = [p for p in range(len(table.categories)) if p not in self._reduced_positions]
        embedded = [_with_centroid(embedding.vectors)[table.codes[:, embedding.position]]
                    for embedding in self.embeddings_]  # code -1 (missing): the centroid, the last row
        return EncodedTable(
            numeric=np.hstack([table.numeric, *embedded]),
            codes=table.codes[:, kept],
            numeric_names=table.numeric_names + tuple(c for e in self.embeddings_ for c in e.column_names()),
            categorical_names=tuple(table.categorical_names[p] for p in kept),
            categories=tuple(table.categories[p] for p in kept),
            )

    def inverse_transform(self, reduced: EncodedTable, original: EncodedTable) -> EncodedTable:
        """Decode embedded columns to the nearest modality; ``original`` gives the layout to restore."""
        if not self.embeddings_:
            return reduced
        n_numeric = len(original.numeric_names)
        codes = np.empty((reduced.n_rows, len(original.categories)), dtype=code_dtype(original.categories))
        kept = [p for p in range(len(original.categories)) if p not in self._reduced_positions]
        codes[:, kept] = reduced.codes
        start = n_numeric
        for embedding in self.embeddings_:
            width = embedding.vectors.shape[1]
            _, nearest = cKDTree(embedding.vectors).query(reduced.numeric[:, start: start + width], workers=-1)
            codes[:, embedding.position] = nearest
            start += width
        return original.with_arrays(reduced.numeric[:, :n_numeric], codes)


def _with_centroid(vectors: np.ndarray) -> np.ndarray:
    return np.vstack([vectors, np.zeros((1, vectors.shape[1]))])


@dataclass(frozen=True)
class ModalitySums:
    """One variable's modality counts and context sums (``counts`` (M,), ``sums`` (M, axes))."""

    counts: np.ndarray
    sums: np.ndarray

    @classmethod
    def of(cls, codes: np.ndarray, n_modalities: int, context: np.ndarray) -> ModalitySums:
        observed = codes >= 0
        if not observed.all():
            codes, context = codes[observed], context[observed]
        counts = np.bincount(codes, minlength=n_modalities).astype(float)
        sums = np.stack([np.bincount(codes, weights=context[:, a], minlength=n_modalities)
                         for a in range(context.shape[1])], 1)
        return cls(counts, sums)

    def merged(self, other: ModalitySums) -> ModalitySums:
        return ModalitySums(self.counts + other.counts, self.sums + other.sums)

    def embedding(self) -> np.ndarray:
        """The modalities' vectors: the first axes of their shrunk mean contexts (see the module docstring)."""
        profiles = self.sums / (self.counts + SHRINKAGE)[:, None]
        weights = self.counts / self.counts.sum()
        centred = profiles - weights @ profiles
        _, _, axes = np.linalg.svd(centred * np.sqrt(weights)[:, None], full_matrices=False)
        n_dimensions = min(N_DIMENSIONS, axes.shape[0])
        return centred @ axes[:n_dimensions].T
