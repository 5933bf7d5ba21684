"""The parameters of a run, written once: their names, defaults, choices and the command line's words for them,
read by the engine, the command line (whose options are made from them), the schema of several tables, the pages
and the JSON. Plain Python, imported by the command line's parser before any numerical library: ``python -m core
--help`` and a mistyped option answer at once.

Adding a parameter is one field of :class:`Parameters`: the command line gets its option, a schema's tables (or
links) take it, the JSON lists it, and its ``scope`` says who reads it: a table's method (``method``: what the
Generate form and a fix set), AvatarFastDP's tuning (``fast_dp``), a table's preparation (``table``), the whole run
(``run``: one value for every linked table), a link between tables (``link``), a time series (``series``); a
table's ``columns`` say three (their kinds, weights and roles), never set as parameters.
:class:`~core.engine.pipeline.Avatarizer` reads :data:`TABLE_SCOPES`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from core.dataset.roles import Role
from core.errors import InputError
from core.i18n import _

if TYPE_CHECKING:
    from core.dataset.table import Table

MECHANISMS = ("gaussian", "gmm", "histogram")  # AvatarFastDP's models (SPEC 4)
REFERENCE_SPREAD, RESTORED_SPREAD = "local_mean", "restored"  # Avatar's numbers: the engine's weighted mean, or
SPREADS = (REFERENCE_SPREAD, RESTORED_SPREAD)  # with its spread put back (docs/decisions.md 3.1)
IMPUTATION_METHODS = ("fast_knn", "knn", "mode", "median", "mean")  # temporary filling of missing values (SPEC 2)
EXCLUSION_STRATEGIES = ("coordinate_similarity", "row_order")  # how set-aside columns come back (SPEC 2)
PART_FORMATS = ("parquet", "csv")  # a batch run's parts (SPEC 10)
HOLDOUT_MIN_ROWS = 500  # a real holdout half is set aside from this many rows (SPEC 5)
DEFAULT_NCP = 5  # latent dimensions, at most the scaled columns
# A time series (SPEC 13): how each person's measures are aligned, projected and put back on times.
DEFAULT_NB_POINTS, DEFAULT_NF, MAX_NB_POINTS = 10, 3, 200
PROJECTION_TYPES, ALIGNMENTS, UNALIGNMENTS = ("fpca", "flatten"), ("specified", "max", "min", "mean"), ("uniform", "skip")
SCOPES = ("method", "fast_dp", "table", "columns", "run", "link", "series")  # who reads a parameter (see above)
TABLE_SCOPES = ("method", "fast_dp", "table", "columns", "run")  # what one table's synthesis reads
ENTRY_SCOPES = ("method", "fast_dp", "table", "series")  # what a table's entry in a schema may set
SUGGESTED_K, SUGGESTED_EPSILON = 10, 1.0  # what the dashboard proposes for the method chosen (none is a default)


def suggested_k(n_avatarized: int) -> int:
    """The k proposed for a table of ``n_avatarized`` rows: :data:`SUGGESTED_K`, at most a tenth of the rows on a
    small table (each avatar then mixes a small share of it), at least 2."""
    return max(2, min(SUGGESTED_K, n_avatarized // 10))


def _parameter(default: Any, help: str | tuple[str, str] = "", *, options: Sequence[str] = (), value: str = "",
               choices: Sequence[str] = (), metavar: str | None = None, scope: str = "table",
               factory: Callable[[], object] | None = None) -> Any:
    """A field of :class:`Parameters`: its default, the command line's ``options`` (none: not an option), the type
    of its ``value`` there (``whole``, ``number``, ``text``, ``flag``: the options switch it from its default,
    ``switch``: the first option sets it true, the second false, each with its help), its ``choices``, and who reads it (``scope``)."""
    metadata = dict(help=help, options=tuple(options), value=value, choices=tuple(choices), metavar=metavar,
                    scope=scope)
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class Parameters:
    """Every parameter of one table's synthesis, and of its links to its children. Exactly one of ``k`` (Avatar)
    and ``fast_dp_epsilon`` (AvatarFastDP) is set for a run; see :class:`~core.engine.pipeline.Avatarizer` for
    what each does."""

    k: int | None = _parameter(None, "Avatar: number of neighbours combined (2 <= K < rows)", options=["--k"],
                               value="whole", scope="method")
    fast_dp_epsilon: float | None = _parameter(None, "AvatarFastDP: privacy budget (> 0)",
                                               options=["--fast-dp-epsilon"], value="number", metavar="EPS",
                                               scope="method")
    spread: str = _parameter(
        REFERENCE_SPREAD, "Avatar: a number's value, the neighbours' weighted mean as the reference engine makes it "
                      "(local_mean), or with their local spread put back (restored: nearer the originals' spread, "
                      "tails and correlations)", options=["--spread"], value="text", choices=SPREADS, scope="method")
    mechanism: str = _parameter("gaussian", "AvatarFastDP mechanism", options=["--mechanism"], value="text",
                                choices=MECHANISMS, scope="method")
    gmm_n_components: int = _parameter(5, "AvatarFastDP gmm: components", options=["--gmm-n-components"],
                                       value="whole", metavar="N", scope="fast_dp")
    histogram_n_bins: int = _parameter(10, "AvatarFastDP histogram: bins", options=["--histogram-n-bins"],
                                       value="whole", metavar="N", scope="fast_dp")
    bounds_percentile: float = _parameter(
        5.0, "AvatarFastDP: clip each latent dimension to percentiles P and 100 - P (0 < P < 50)",
        options=["--bounds-percentile"], value="number", metavar="P", scope="fast_dp")
    ncp: int | None = _parameter(None, f"latent dimensions used (default: min({DEFAULT_NCP}, scaled columns))",
                                 options=["--ncp"], value="whole")
    imputation: str = _parameter("fast_knn", "temporary imputation of missing values", options=["--imputation"],
                                 value="text", choices=IMPUTATION_METHODS)
    use_categorical_reduction: bool | None = _parameter(
        None, ("embed every categorical column with more than 4 modalities in a few numeric dimensions (by default: "
               "only those with more than 100)", "embed none, not even those with more than 100 modalities"),
        options=["--categorical-reduction", "--no-categorical-reduction"], value="switch")
    exclude_variable_names: tuple[str, ...] = _parameter((), factory=tuple, scope="columns")
    exclude_replacement_strategy: str = _parameter(
        "coordinate_similarity", "how excluded columns are re-attached; row_order copies each person's own value "
                                 "(sensitive)",
        options=["--exclude-replacement-strategy", "--exclude-strategy"], value="text", choices=EXCLUSION_STRATEGIES)
    column_kinds: Mapping[str, str] | None = _parameter(None, scope="columns")
    column_weights: Mapping[str, float] | None = _parameter(None, scope="columns")
    holdout: bool = _parameter(True, "avatarize every row instead of setting half aside", options=["--no-holdout"],
                               value="flag", scope="run")
    holdout_min_rows: int = _parameter(HOLDOUT_MIN_ROWS, scope="run")
    seed: int | None = _parameter(None, "seed of every random step (default: drawn, then printed)", options=["--seed"],
                                  value="whole", scope="run")
    link_weight: float = _parameter(
        1.0, "with --tables: the total weight, in a parent's projection, of its children's count and latent means "
             "(SPEC 12; 1: one variable's)", options=["--link-weight"], value="number", metavar="W", scope="link")
    # A time series table's (SPEC 13; the commercial engine's time_series_nf, _projection_type, _nb_points, _method
    # and unalignment): written in the series table's entry of a schema.
    nf: int = _parameter(DEFAULT_NF, scope="series")
    projection_type: str = _parameter("fpca", scope="series", choices=PROJECTION_TYPES)
    nb_points: int = _parameter(DEFAULT_NB_POINTS, scope="series")
    alignment: str = _parameter("specified", scope="series", choices=ALIGNMENTS)
    unalignment: str = _parameter("uniform", scope="series", choices=UNALIGNMENTS)

    @classmethod
    def names(cls, *scopes: str) -> list[str]:
        """The parameters' names, of ``scopes`` (:data:`SCOPES`; none: all), in their order."""
        return [item.name for item in fields(cls) if not scopes or item.metadata["scope"] in scopes]

    @classmethod
    def option_of(cls, name: str) -> str | None:
        """The command line's option that sets parameter ``name`` (None: none does)."""
        options = next(item.metadata["options"] for item in fields(cls) if item.name == name)
        return options[0] if options else None

    @classmethod
    def of(cls, values: Mapping[str, object], where: str = "") -> Parameters:
        """The parameters ``values`` sets, over the defaults (see :meth:`with_values`)."""
        return cls().with_values(values, where)

    def with_values(self, values: Mapping[str, object], where: str = "") -> Parameters:
        """These parameters with ``values`` changed; an unknown name refused in one line (``where`` says whose
        values they are: a table of a schema)."""
        unknown = [name for name in values if name not in self.names()]
        if unknown:
            raise InputError(_("{where}'{name}' is not a parameter; the parameters are {names}.").format(
                where=f"{where}: " if where else "", name=unknown[0], names=", ".join(self.names())))
        # values as given (a schema's JSON, the command line): each is checked where it is read (InputError)
        return replace(self, **values)  # type: ignore[arg-type]

    def for_table(self, table: Table) -> Parameters:
        """The parameters of ``table``'s synthesis (SPEC 12): its own values over these, the defaults of every table
        (a table that sets its method, ``k`` or ``fast_dp_epsilon``, replaces theirs; in AvatarFastDP, Avatar's
        ``spread`` too), with its columns' kinds and weights and the columns it sets apart."""
        own = table.parameters
        where = _("Table '{table}'").format(table=table.name)
        described = [name for name in own if name in self.names("columns")]
        if described:  # it would be replaced by the columns' description without a word
            raise InputError(_("{where}: \"{name}\" is said by the table's \"columns\" (each column's kind, weight "
                               "and role): describe the columns there and remove \"{name}\" from the table's "
                               "entry.").format(where=where, name=described[0]))
        unknown = [name for name in own if name not in self.names(*ENTRY_SCOPES, "run", "link")]
        if unknown:  # the run's and the links' are refused with their own reason (linked_tables.check_linked)
            raise InputError(_("{where}: '{name}' is not a parameter of a table; a table's are {names}.").format(
                where=where, name=unknown[0], names=", ".join(self.names(*ENTRY_SCOPES))))
        base = replace(self, k=None, fast_dp_epsilon=None) if {"k", "fast_dp_epsilon"} & set(own) else self
        if "fast_dp_epsilon" in own:  # Avatar's own setting does not follow a table into AvatarFastDP
            base = replace(base, spread=REFERENCE_SPREAD)
        chosen = base.with_values(own, where=where)
        return replace(chosen, exclude_variable_names=tuple(table.with_role(Role.SET_APART)),
                       column_kinds=table.column_kinds, column_weights=table.column_weights)

    @staticmethod
    def fast_dp_values(epsilon: float, mechanism: str) -> dict[str, object]:
        """The values that switch a run to AvatarFastDP at ``epsilon`` with ``mechanism``: Avatar's own (k, spread)
        back to their defaults."""
        return {"k": None, "spread": REFERENCE_SPREAD, "fast_dp_epsilon": epsilon, "mechanism": mechanism}

    def as_fast_dp(self, epsilon: float, mechanism: str) -> Parameters:
        """These parameters switched to AvatarFastDP (:meth:`fast_dp_values`)."""
        return replace(self, **self.fast_dp_values(epsilon, mechanism))  # type: ignore[arg-type]

    def table_values(self) -> dict[str, object]:
        """The parameters one table's synthesis reads (:data:`TABLE_SCOPES`), as
        :class:`~core.engine.pipeline.Avatarizer` takes them."""
        return {name: getattr(self, name) for name in self.names(*TABLE_SCOPES)}
