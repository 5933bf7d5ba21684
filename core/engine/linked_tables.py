"""The avatars of linked tables (SPEC 12, synthesis steps 1 to 5), top-down, link by link.

1. *Parents enriched*: for each child link, the parent's rows get the number of their children (0 included) and the
   mean of their children's first :data:`ENRICHMENT_AXES` latent coordinates (the child table projected in its own
   space, its missing values imputed by the median; 0, its centre, for a parent without children), numeric columns whose total weight is ``link_weight``.
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
are named with :data:`LINK_COLUMN` first and never reach the avatars.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from core.dataset import Dataset, Kind, Link, LinkMethod, Role, Table
from core.dataset.keys import key_values
from core.dataset.relations import Relation, RelationsAsked
from core.dataset.relations.sequence import FamilySequences
from core.engine.encoding import numeric_values
from core.engine.identifiers import IdentifierForm
from core.engine.linkage import children_per_parent, linked_parents
from core.engine.methods import method_of
from core.engine.parameters import Parameters
from core.engine.pipeline import Avatarizer, Progress
from core.engine.schema import apply_kinds, drop_columns
from core.engine.series_tables import SeriesTable, check_series_times, series_kinds
from core.engine.split import split_holdout
from core.engine.stages import drawn_seed, seed_generator
from core.engine.timing import timed
from core.errors import InputError
from core.i18n import N_, _
from core.validation import check_positive_number, check_seed

ENRICHMENT_AXES = 2  # a child table's first latent coordinates whose mean per parent enriches the parent
OWN_SPACE_IMPUTATION = "median"  # the child's own projection, a summary, needs no neighbours' imputation
LINK_COLUMN = "__link__ "  # the start of the names of the columns a link adds to a table's synthesis


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
    with clock("time series"):
        series = {link: _series_table(dataset, link, working, parent_rows[link], table_parameters[link.child])
                  for link in dataset.links if link.method is LinkMethod.TIME_SERIES}
    own_axes = {}
    for name in order:
        if dataset.parent_links(name) and not dataset.is_series(name):
            with _named(name), clock("enrichment"):
                own_axes[name] = _own_coordinates(dataset, name, working[name], table_parameters[name])
    avatarizers: dict[str, Avatarizer] = {}
    avatars: dict[str, pd.DataFrame] = {}
    for name in order:
        table = dataset.tables[name]
        if dataset.is_series(name):  # rebuilt from its persons' avatars (SPEC 13)
            link = dataset.parent_links(name)[0]
            with _named(name), clock("time series"):
                avatars[name] = _rebuilt_series(dataset, link, series[link], avatarizers[link.parent],
                                                avatars[link.parent], working[name])
            if table.relations.find:  # a patient's intervals as a series still follow one another
                with clock("family sequences"):
                    avatars[name] = _sequences_kept(dataset, name, working[name], avatars[name],
                                                    {**series[link].kinds, series[link].time: series[link].time_kind_},
                                                    ())
            continue
        with clock("enrichment"):
            added, weights = _enrichment(dataset, name, parent_rows, own_axes, len(working[name]),
                                         parameters.link_weight, series)
            for link in dataset.parent_links(name):
                context, context_weights = _context(link, parent_rows[link], avatarizers[link.parent])
                added |= context
                weights |= context_weights
        chosen, relations = _with_added(table_parameters[name], table, added, weights)
        frame = _own_columns(dataset, name, working[name])
        if progress is not None:
            progress(_("Avatarizing the table {table}").format(table=name), order.index(name) / len(order))
        with _named(name), clock(f"{name}: avatarization"):
            avatarizers[name] = Avatarizer(chosen).fit(_with_columns(frame, added), keys=table.keys, relations=relations,
                                                       latent_avatars=bool(dataset.child_links(name)))
        avatars[name] = _linked_avatars(dataset, name, working[name], avatarizers, avatars, parent_rows, seed, clock)
    return LinkedAvatars(avatarizers, avatars, working, holdout, seed, seconds)


def _linked_avatars(dataset: Dataset, name: str, working: pd.DataFrame, avatarizers: Mapping[str, Avatarizer],
                    avatars: Mapping[str, pd.DataFrame], parent_rows: Mapping[Link, np.ndarray], seed: int,
                    clock: Callable[[str], AbstractContextManager[None]]) -> pd.DataFrame:
    """Steps 3 to 5 for table ``name``, avatarized: each foreign key from the linkage, then its families' sequences
    kept (issue 45); its columns as the originals'."""
    made = avatarizers[name].avatars_
    with clock("linkage"):
        made = made.assign(**{link.foreign_key: _foreign_keys(
            dataset, link, made, avatarizers, avatars, parent_rows[link],
            np.random.default_rng([seed, len(dataset.tables) + dataset.links.index(link)]))
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
    check_positive_number("link_weight", parameters.link_weight, hint=_(
        "It is the weight of a parent's children in its projection (--link-weight; 1: one variable's)."))
    for name, table in dataset.tables.items():
        shared = [parameter for parameter in Parameters.names("run", "link") if parameter in table.parameters]
        if shared:
            raise InputError(_(
                "Table '{table}': \"{parameter}\" is one value for every linked table, not a table's: set it for the "
                "run (--{option}) and remove it from the table's entry."
            ).format(table=name, parameter=shared[0], option=shared[0].replace("_", "-")))
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
        with _named(name):
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


@contextmanager
def _named(name: str) -> Iterator[None]:
    """A refusal of the engine's for one table, named with the table."""
    try:
        yield
    except InputError as error:
        raise InputError(_("Table '{table}'").format(table=name) + f": {error}") from None


def _own_coordinates(dataset: Dataset, name: str, frame: pd.DataFrame, parameters: Parameters) -> np.ndarray:
    """The table's rows in its own projection (its columns only, no key, missing values imputed by
    :data:`OWN_SPACE_IMPUTATION`: a summary; the neighbours' imputation took 41 s of the flights' 49 s): what its
    parents' enrichment reads."""
    table = dataset.tables[name]
    return Avatarizer(replace(parameters, imputation=OWN_SPACE_IMPUTATION)).latent_coordinates(
        _own_columns(dataset, name, frame), keys=table.keys, relations=table.relations)


def _own_columns(dataset: Dataset, name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as its table's synthesis takes it: without its foreign keys (the linkage writes them) and the
    columns its description drops."""
    without_keys = frame.drop(columns=list(dict.fromkeys(link.foreign_key for link in dataset.parent_links(name))))
    return drop_columns(without_keys, dataset.tables[name].with_role(Role.DROPPED), _("Table '{table}'").format(table=name))


def _enrichment(dataset: Dataset, name: str, parent_rows: Mapping[Link, np.ndarray],
                own_axes: Mapping[str, np.ndarray], n_rows: int, link_weight: float,
                series: Mapping[Link, SeriesTable]) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """Step 1: per child link, each row's number of children and their mean first latent coordinates, with their
    weights (``link_weight`` in all per link); per time series link, each person's timing and scores (SPEC 13, see
    :class:`~core.engine.series_tables.SeriesTable`)."""
    added: dict[str, np.ndarray] = {}
    weights: dict[str, float] = {}
    for link in dataset.child_links(name):
        if link in series:
            columns, column_weights = series[link].person_columns(partial(_added, link))
            added |= columns
            weights |= column_weights
            continue
        rows = parent_rows[link]
        parented = rows >= 0
        counts = np.bincount(rows[parented], minlength=n_rows).astype(float)
        columns = {_added(link, "children"): counts}
        axes = own_axes[link.child][:, :ENRICHMENT_AXES]
        for axis in range(axes.shape[1]):
            sums = np.bincount(rows[parented], weights=axes[parented, axis], minlength=n_rows)
            columns[_added(link, f"children's mean axis {axis + 1}")] = np.divide(
                sums, counts, out=np.zeros(n_rows), where=counts > 0)
        added |= columns
        weights |= dict.fromkeys(columns, link_weight / len(columns))
    return added, weights


def _with_added(chosen: Parameters, table: Table, added: Mapping[str, np.ndarray], weights: Mapping[str, float]
                ) -> tuple[Parameters, RelationsAsked]:
    """A table's parameters and relations asked with the columns its links add: numeric, of their ``weights``,
    taking part in no relation."""
    chosen = replace(chosen, column_weights={**(chosen.column_weights or {}), **weights},
                     column_kinds={**(chosen.column_kinds or {}), **{column: Kind.NUMERIC.value for column in added}})
    relations = table.relations
    for column in added:
        relations = relations.ignoring(column)
    return chosen, relations


def _series_table(dataset: Dataset, link: Link, working: Mapping[str, pd.DataFrame], rows: np.ndarray,
                  parameters: Parameters) -> SeriesTable:
    """The time series table of ``link`` fitted on its working rows (typed as its description says), each row's
    person ``rows``; a measure without a time, or at a placeholder time, refused in one line."""
    where = _("Table '{table}'").format(table=link.child)
    table = dataset.tables[link.child]
    assert table.time is not None  # a time series names its time (checked with the dataset)
    frame = _own_columns(dataset, link.child, working[link.child])
    frame = frame.drop(columns=[column for column in (table.primary_key,) if column in frame])
    kinds = series_kinds(frame, table.time, table.column_kinds, where)
    typed = apply_kinds(frame, kinds)
    check_series_times(where, working[link.child][table.time], numeric_values(typed[table.time]))
    variables = {column: kind for column, kind in kinds.items() if column != table.time}
    with _named(link.child):
        return SeriesTable(table.time, variables, parameters, where).fit(
            typed, rows, len(working[link.parent]), _own_columns(dataset, link.parent, working[link.parent]).drop(
                columns=[key for key in [dataset.tables[link.parent].primary_key] if key]))


def _rebuilt_series(dataset: Dataset, link: Link, model: SeriesTable, parent: Avatarizer,
                    parent_avatars: pd.DataFrame, originals: pd.DataFrame) -> pd.DataFrame:
    """The measures of each person avatar, rebuilt from its timing and scores; the foreign key its person's new key,
    the primary key new."""
    frame, owner = model.rebuilt(parent.avatars_, lambda what: _added(link, what),
                                 np.random.default_rng(model.parameters.seed))  # within each avatar's own window
    keys = parent_avatars[dataset.tables[link.parent].primary_key]
    frame[link.foreign_key] = keys.iloc[owner].to_numpy()
    primary = dataset.tables[link.child].primary_key
    if primary:
        frame[primary] = IdentifierForm.of(originals[primary]).new_values(len(frame)).to_numpy()
    return frame[[column for column in originals.columns if column in frame]]


def family_codes(link: Link, frame: pd.DataFrame) -> np.ndarray:
    """Each row's family (the parent its foreign key names), numbered in order of appearance; -1 without one."""
    return pd.factorize(frame[link.foreign_key], use_na_sentinel=True)[0].astype(np.int64)


def family_sequences(dataset: Dataset, link: Link, frame: pd.DataFrame, kinds: Mapping[str, Kind],
                     derived: Sequence[str] = ()) -> FamilySequences:
    """The relations across the rows of each family of ``link``'s child (one family per parent), found on ``frame``
    (the originals; :mod:`core.dataset.relations.sequence`): what the avatars keep and the metrics score."""
    name = link.child
    own = _own_columns(dataset, name, frame)
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
    rebuilt = sequences.rebuilt(made[columns], family_codes(link, made))
    made = _with_columns(made, {column: rebuilt[column] for column in columns})
    for relation in relations:
        if relation.derived is not None and set(relation.columns) & set(columns):
            made = relation.apply(made)
    return made


def _context(link: Link, rows: np.ndarray, parent: Avatarizer) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """Step 2: each child row's parent latent coordinates (0 without a parent) and, when some have none, the
    indicator of having one; of one variable's total weight."""
    coordinates = parent.coordinates_
    parented = rows >= 0
    context = np.zeros((len(rows), coordinates.shape[1]))
    context[parented] = coordinates[rows[parented]]
    columns = {_added(link, f"parent axis {axis + 1}"): context[:, axis] for axis in range(context.shape[1])}
    if not parented.all():
        columns[_added(link, "has a parent")] = parented.astype(float)
    return columns, dict.fromkeys(columns, 1.0 / len(columns))


def _foreign_keys(dataset: Dataset, link: Link, made: pd.DataFrame, avatarizers: Mapping[str, Avatarizer],
                  avatars: Mapping[str, pd.DataFrame], rows: np.ndarray, rng: np.random.Generator) -> pd.Series:
    """Steps 3 to 5 for ``link``: the child avatars without a parent (those of least indicator, written with the
    indicator's decimals, so 0 or 1: ties drawn with ``rng``; as many as in the originals), the others linked to the parent avatars by the link's method, their foreign key the parent avatar's
    new primary key."""
    parent = avatarizers[link.parent]
    if link.method is LinkMethod.ORIGINAL_ORDER:
        linked = _original_order(link, avatarizers, rows)
    else:
        unparented = np.zeros(len(made), dtype=bool)
        if (rows < 0).any():
            indicator = made[_added(link, "has a parent")].to_numpy(dtype=float)
            unparented[np.lexsort((rng.random(len(indicator)), indicator))[:int((rows < 0).sum())]] = True
        estimated = parent.avatars_[_added(link, "children")].to_numpy(dtype=float)
        observed = np.bincount(rows[rows >= 0], minlength=len(parent.avatars_))
        slots = children_per_parent(estimated, observed, int((~unparented).sum()))
        ncp = parent.ncp_
        contexts = made[[_added(link, f"parent axis {axis + 1}") for axis in range(ncp)]].to_numpy(dtype=float)
        linked = np.full(len(made), -1, dtype=np.int64)
        assert parent.avatar_coordinates_ is not None  # a parent is fitted with latent_avatars
        linked[~unparented] = linked_parents(contexts[~unparented], parent.avatar_coordinates_[:, :ncp], slots,
                                             link.method)
    keys = avatars[link.parent][dataset.tables[link.parent].primary_key]
    values = keys.iloc[np.where(linked >= 0, linked, 0)].set_axis(made.index)
    if pd.api.types.is_integer_dtype(values):
        values = values.astype("Int64")
    return values.where(pd.Series(linked >= 0, index=made.index), pd.NA if values.dtype == "Int64" else None)


def _original_order(link: Link, avatarizers: Mapping[str, Avatarizer], rows: np.ndarray) -> np.ndarray:
    """``original_order``: each child avatar linked to the avatar of its own original's parent (the real family
    structure: sensitive); both tables' avatars must be paired with their originals (Avatar)."""
    child, parent = avatarizers[link.child], avatarizers[link.parent]
    assert child.paired_order_ is not None and parent.paired_order_ is not None  # Avatar in both (check_linked)
    parents = rows[np.argsort(child.paired_order_)]  # the parent of the original each child avatar is made from
    return np.where(parents >= 0, parent.paired_order_[np.maximum(parents, 0)], -1)


_ORIGINAL_ORDER_NEEDS_PAIRS = N_(
    "Link {link}: original_order links each child avatar to its own original's parent avatar, which needs avatars "
    "made from their originals (Avatar, k) in both tables; use linear_sum_assignment or minimum_distance with "
    "AvatarFastDP.")


def _added(link: Link, what: str) -> str:
    """The name of a column ``link`` adds to a table's synthesis."""
    return f"{LINK_COLUMN}{link.describe()}: {what}"


def _with_columns(frame: pd.DataFrame, columns: Mapping[str, Any]) -> pd.DataFrame:
    """``frame.assign(**columns)`` in one block: assigning hundreds of columns one at a time fragments the frame, and
    pandas said so in its own words on the command line (issue 47)."""
    if not columns:
        return frame
    added = pd.DataFrame(dict(columns), index=frame.index)
    order = [*frame.columns, *(name for name in columns if name not in frame.columns)]  # as assign places them
    return pd.concat([frame.drop(columns=[name for name in columns if name in frame.columns]), added], axis=1)[order]
