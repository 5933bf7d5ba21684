"""A dataset: tables, their keys and the links between them, in SPEC 12's schema (JSON in and out).

A single table is a dataset of one table. :meth:`Dataset.check` applies the rules that need no data (the
commercial engine's): a link goes from a parent's primary key to a column of the child, no cycle, a child
references a given parent once, the tables without a parent are individual-level and there is at least one; the
rules on the data (keys unique, never missing, present) are :func:`core.dataset.keys.check_keys`'. Each refusal
is one line naming the table, the column and the rule.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from core.dataset.links import Link, LinkMethod
from core.dataset.relations import RelationsAsked
from core.dataset.roles import DECLARED_ROLES, Kind, Role
from core.dataset.table import Column, Table
from core.errors import InputError
from core.i18n import N_, _
from core.validation import check_weight

TABLE_ENTRIES = ("path", "primary_key", "time", "individual_level", "find_relations", "relations",
                 "ignored_relations", "columns")
# the rest: the table's parameters
LINK_ENTRIES = ("parent", "key", "child", "foreign_key", "method")
COLUMN_ENTRIES = ("role", "kind", "weight")


@dataclass(frozen=True)
class Dataset:
    """Tables by name (in the schema's order), the links between them, and the folder their paths are relative
    to."""

    tables: Mapping[str, Table]
    links: tuple[Link, ...] = ()
    folder: Path | None = field(default=None, compare=False)

    @classmethod
    def of_table(cls, table: Table, folder: Path | None = None) -> Dataset:
        """The dataset of one table."""
        return cls({table.name: table}, (), folder)

    # --- structure -------------------------------------------------------------------------------------------
    def parent_links(self, name: str) -> list[Link]:
        return [link for link in self.links if link.child == name]

    def child_links(self, name: str) -> list[Link]:
        return [link for link in self.links if link.parent == name]

    def with_table(self, table: Table) -> Dataset:
        """This dataset with ``table`` in place of the table of its name (a fix or a sweep's edit of one table)."""
        return replace(self, tables={**self.tables, table.name: table})

    def family(self, name: str) -> list[str]:
        """Table ``name`` and its descendants (each table reached through child links, once): what a person table's
        rows hold with everything about them."""
        members = [name]
        for member in members:
            members += [link.child for link in self.child_links(member) if link.child not in members]
        return members

    def is_series(self, name: str) -> bool:
        """Whether the table is a time series: measures linked to their person by ``time_series`` (SPEC 13),
        rebuilt from its person's avatar, with no parameters of a method of its own."""
        return any(link.method is LinkMethod.TIME_SERIES for link in self.parent_links(name))

    def is_individual_level(self, name: str) -> bool:
        """One row per person: as the user said, else true exactly for a table without a parent."""
        said = self.tables[name].individual_level
        return not self.parent_links(name) if said is None else said

    def roles(self, name: str) -> dict[str, Role]:
        """Every column the description gives a role, keys first: the primary key, the foreign keys, the time."""
        table = self.tables[name]
        roles = {table.primary_key: Role.KEY} if table.primary_key else {}
        roles |= {link.foreign_key: Role.FOREIGN_KEY for link in self.parent_links(name)
                  if link.foreign_key not in roles}
        if table.time:
            roles[table.time] = Role.TIME
        return roles | {column: entry.role for column, entry in table.columns.items() if column not in roles}

    def top_down(self) -> list[str]:
        """The tables, each after its parents (the order of synthesis); :meth:`check` first."""
        placed: list[str] = []
        while len(placed) < len(self.tables):
            placed += [name for name in self.tables if name not in placed
                       and all(link.parent in placed for link in self.parent_links(name))]
        return placed

    def path_of(self, name: str) -> Path | None:
        return self.tables[name].resolved_path(self.folder)

    # --- rules -----------------------------------------------------------------------------------------------
    def check(self) -> Dataset:
        """The rules that need no data (see the module); ``self`` when every one holds."""
        if not self.tables:
            raise InputError(_("The schema has no table: give at least one under \"tables\"."))
        for name, table in self.tables.items():
            if not name.strip() or name != Path(name).name or name in (".", ".."):
                raise InputError(_("Table '{table}': a table's name is also its avatars' file name, so it holds no "
                                   "folder separator; rename it.").format(table=name))
            _check_columns(name, table)
        for link in self.links:
            self._check_link(link)
        self._check_acyclic()
        roots = [name for name in self.tables if not self.parent_links(name)]
        for name in roots:
            if self.tables[name].individual_level is False:
                raise InputError(_(
                    "Table '{table}': it has no parent, so it must be individual-level (one row per person); "
                    "link it to a parent or set individual_level to true."
                ).format(table=name))
        return self

    def _check_link(self, link: Link) -> None:
        for end in (link.parent, link.child):
            if end not in self.tables:
                raise InputError(_("The link {link}: '{table}' is not a table of the schema ({tables}).").format(
                    link=link.describe(), table=end, tables=", ".join(self.tables)))
        parent, child = self.tables[link.parent], self.tables[link.child]
        if link.key != parent.primary_key:
            raise InputError(_(
                "Table '{table}', column '{column}': a link goes from the parent's primary key, and '{table}' has "
                "{key}; set its primary_key or link from it."
            ).format(table=link.parent, column=link.key,
                     key=f"'{parent.primary_key}'" if parent.primary_key else _("none")))
        if link.parent == link.child:
            raise InputError(_("Table '{table}', column '{column}': a table cannot be its own parent (no cycle).")
                             .format(table=link.child, column=link.foreign_key))
        twins = [other for other in self.links if other.parent == link.parent and other.child == link.child]
        if len(twins) > 1:
            raise InputError(_(
                "Table '{table}', column '{column}': '{table}' references '{parent}' twice ({columns}); a child "
                "references a given parent once."
            ).format(table=link.child, column=twins[1].foreign_key, parent=link.parent,
                     columns=", ".join(other.foreign_key for other in twins)))
        shared = [other for other in self.links if other.child == link.child and other.foreign_key == link.foreign_key]
        if len(shared) > 1:
            raise InputError(_(
                "Table '{table}', column '{column}': it is the foreign key of the links from {parents}; each link "
                "needs a column of its own (one column names one parent)."
            ).format(table=link.child, column=link.foreign_key,
                     parents=", ".join(f"'{other.parent}'" for other in shared)))
        if link.foreign_key == child.primary_key:
            raise InputError(_(
                "Table '{table}', column '{column}': it is both the table's primary key and its foreign key to "
                "'{parent}' (one row per parent row); a child's foreign key is a column of its own: join the two "
                "tables into one, or give '{table}' a primary key of its own."
            ).format(table=link.child, column=link.foreign_key, parent=link.parent))
        declared = child.columns.get(link.foreign_key)
        if declared is not None or link.foreign_key == child.time:
            raise InputError(_(
                "Table '{table}', column '{column}': it is the foreign key of the link from '{parent}', written from "
                "the linkage, so it takes no other role, kind or weight; remove it from the table's columns."
            ).format(table=link.child, column=link.foreign_key, parent=link.parent))
        if link.method is LinkMethod.TIME_SERIES and not child.time:
            raise InputError(_(
                "Table '{table}': the link from '{parent}' is a time series, which needs the table's time column; "
                "set \"time\"."
            ).format(table=link.child, parent=link.parent))

    def _check_acyclic(self) -> None:
        placed: set[str] = set()
        while len(placed) < len(self.tables):
            ready = {name for name in self.tables if name not in placed
                     and all(link.parent in placed for link in self.parent_links(name))}
            if not ready:
                waiting = [name for name in self.tables if name not in placed]
                link = next(link for link in self.links if link.child in waiting and link.parent in waiting)
                raise InputError(_(
                    "Table '{table}', column '{column}': the links make a cycle through {tables}; a dataset's links "
                    "go from parents to children without a cycle, and at least one table has no parent."
                ).format(table=link.child, column=link.foreign_key, tables=", ".join(waiting)))
            placed |= ready

    # --- JSON ------------------------------------------------------------------------------------------------
    @classmethod
    def read(cls, path: Path) -> Dataset:
        """The schema file at ``path`` (paths in it relative to its folder), checked."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8-sig"),  # a byte-order mark, as Notepad writes
                              object_pairs_hook=_unique_entries)
        except OSError as error:
            raise InputError(_("{path}: the schema could not be read ({reason}).").format(
                path=path, reason=error.strerror or error)) from None
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise InputError(_("{path}: the schema is not valid JSON ({reason}).").format(
                path=path, reason=str(error).splitlines()[0])) from None
        except RecursionError:  # issue 47: 200 000 nested lists were a traceback
            raise InputError(_("{path}: the schema is nested too deeply to be a schema (a table's entry is three "
                               "levels deep).").format(path=path)) from None
        return cls.from_dict(data, folder=Path(path).resolve().parent)

    @classmethod
    def from_dict(cls, data: Any, folder: Path | None = None) -> Dataset:
        """A dataset from SPEC 12's schema as a dict, checked (:meth:`check`)."""
        _check_entries(data, ("tables", "links"), _("The schema"))
        tables = data.get("tables")
        if not isinstance(tables, dict):
            raise InputError(_("The schema: \"tables\" must be an object of tables by name, got {value}.").format(
                value=_shown(tables)))
        links = data.get("links", [])
        if not isinstance(links, list):
            raise InputError(_("The schema: \"links\" must be a list of links, got {value}.").format(
                value=_shown(links)))
        return cls({str(name): _table(str(name), entry) for name, entry in tables.items()},
                   tuple(_link(position, entry) for position, entry in enumerate(links, 1)), folder).check()

    def to_dict(self) -> dict[str, Any]:
        """SPEC 12's schema: what :meth:`from_dict` reads back into an equal dataset."""
        tables = {name: _table_entry(table) for name, table in self.tables.items()}
        links = [{"parent": link.parent, "key": link.key, "child": link.child, "foreign_key": link.foreign_key,
                  **({} if link.method is LinkMethod.LINEAR_SUM_ASSIGNMENT else {"method": link.method.value})}
                 for link in self.links]
        return {"tables": tables, **({"links": links} if links else {})}

    def write(self, path: Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _unique_entries(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose every name is written once: a table or an entry written twice would keep its last
    value only, unsaid."""
    names = [name for name, _value in pairs]
    counts = Counter(names)  # issue 47: names.count per name took minutes on 200 000 columns
    twice = next((name for name in names if counts[name] > 1), None)
    if twice is not None:
        raise InputError(_("The schema names \"{name}\" twice in one object (a table or an entry): keep one.")
                         .format(name=twice))
    return dict(pairs)


def _table(name: str, entry: Any) -> Table:
    if any(unicodedata.category(character) in ("Cc", "Cf") for character in name):  # NUL, newline, bidi overrides
        raise InputError(_("The schema: the table name {name} holds a control or direction character, which no file "
                           "name or message shows as it is: rename the table.").format(name=ascii(name)))
    where = _("Table '{table}'").format(table=name)
    if not isinstance(entry, dict):
        raise InputError(_("{where}: expected an object (\"path\", \"primary_key\", ...), got {value}.").format(
            where=where, value=_shown(entry)))
    for key in ("path", "primary_key", "time"):
        if entry.get(key) is not None and not isinstance(entry[key], str):
            raise InputError(_("{where}: \"{key}\" must be a text, got {value}.").format(
                where=where, key=key, value=_shown(entry[key])))
    if entry.get("individual_level") is not None and not isinstance(entry["individual_level"], bool):
        raise InputError(_("{where}: \"individual_level\" must be true or false, got {value}.").format(
            where=where, value=_shown(entry["individual_level"])))
    if not isinstance(entry.get("find_relations", True), bool):
        raise InputError(_("{where}: \"find_relations\" must be true or false, got {value}.").format(
            where=where, value=_shown(entry["find_relations"])))
    declared, ignored = entry.get("relations", []), entry.get("ignored_relations", [])
    if not isinstance(declared, list) or not all(isinstance(line, str) for line in declared):
        raise InputError(_("{where}: \"relations\" must be a list of lines such as \"low = bwt < 2500\", got "
                           "{value}.").format(where=where, value=_shown(declared)))
    if not isinstance(ignored, list) or not all(isinstance(column, str) for column in ignored):
        raise InputError(_("{where}: \"ignored_relations\" must be a list of the columns whose relation found is "
                           "not kept, got {value}.").format(where=where, value=_shown(ignored)))
    columns = entry.get("columns", {})
    if not isinstance(columns, dict):
        raise InputError(_("{where}: \"columns\" must be an object of columns by name, got {value}.").format(
            where=where, value=_shown(columns)))
    return Table(name=name, path=entry.get("path"), primary_key=entry.get("primary_key"), time=entry.get("time"),
                 individual_level=entry.get("individual_level"), relations=RelationsAsked(
                     entry.get("find_relations", True), tuple(declared), tuple(ignored)), columns={str(column): _column(name, str(column), value) for column, value in columns.items()},
                 parameters={key: value for key, value in entry.items() if key not in TABLE_ENTRIES})


def _column(table: str, name: str, entry: Any) -> Column:
    where = _("Table '{table}', column '{column}'").format(table=table, column=name)
    _check_entries(entry, COLUMN_ENTRIES, where)
    role, kind, weight = entry.get("role", Role.SYNTHESIZED.value), entry.get("kind"), entry.get("weight")
    if role not in [declared.value for declared in DECLARED_ROLES]:
        raise InputError(_(
            "{where}: \"role\" must be one of {roles}, got {value} (a primary key is the table's \"primary_key\", a "
            "foreign key a link's, a time the table's \"time\")."
        ).format(where=where, roles=", ".join(role.value for role in DECLARED_ROLES), value=_shown(role)))
    if kind is not None and kind not in [known.value for known in Kind]:
        raise InputError(_("{where}: \"kind\" must be one of {kinds}, got {value}.").format(
            where=where, kinds=", ".join(known.value for known in Kind), value=_shown(kind)))
    if weight is not None:
        check_weight(f'{where}: "weight"', weight)
    return Column(role=Role(role), kind=None if kind is None else Kind(kind),
                  weight=None if weight is None else float(weight))


def _link(position: int, entry: Any) -> Link:
    where = _("Link {position}").format(position=position)
    _check_entries(entry, LINK_ENTRIES, where)
    for key in ("parent", "key", "child", "foreign_key"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise InputError(_("{where}: \"{key}\" must name a {what}, got {value}.").format(
                where=where, key=key, what=_("table") if key in ("parent", "child") else _("column"),
                value=_shown(entry.get(key))))
    method = entry.get("method", LinkMethod.LINEAR_SUM_ASSIGNMENT.value)
    if method not in [known.value for known in LinkMethod]:
        raise InputError(_("{where} ({link}): \"method\" must be one of {methods}, got {value}.").format(
            where=where, link=f"{entry['parent']} -> {entry['child']}",
            methods=", ".join(known.value for known in LinkMethod), value=_shown(method)))
    return Link(entry["parent"], entry["key"], entry["child"], entry["foreign_key"], LinkMethod(method))


def _table_entry(table: Table) -> dict[str, Any]:
    entry: dict[str, Any] = {key: getattr(table, key) for key in TABLE_ENTRIES[:4] if getattr(table, key) is not None}
    asked = table.relations
    entry |= {**({} if asked.find else {"find_relations": False}),
              **({"relations": list(asked.declared)} if asked.declared else {}),
              **({"ignored_relations": list(asked.ignored)} if asked.ignored else {})}
    columns = {name: {key: value for key, value in (("role", column.role.value if column.role is not
                                                      Role.SYNTHESIZED else None),
                                                     ("kind", column.kind.value if column.kind else None),
                                                     ("weight", column.weight)) if value is not None}
               for name, column in table.columns.items()}
    return {**entry, **({"columns": columns} if columns else {}), **table.parameters}


def _check_columns(name: str, table: Table) -> None:
    """A key or time column is not also set apart, dropped or weighted."""
    for column, what in ((table.primary_key, N_("primary key")), (table.time, N_("time"))):
        declared = table.columns.get(column) if column else None
        if declared is not None and (declared.role is not Role.SYNTHESIZED or declared.weight is not None):
            raise InputError(_(
                "Table '{table}', column '{column}': it is the table's {what}, so it takes no other role nor "
                "weight; remove it from the table's columns."
            ).format(table=name, column=column, what=_(what)))
    if table.primary_key and table.primary_key == table.time:
        raise InputError(_("Table '{table}', column '{column}': the primary key cannot be the time column too.")
                         .format(table=name, column=table.time))


def _check_entries(entry: Any, allowed: tuple[str, ...], where: str) -> None:
    if not isinstance(entry, dict):
        raise InputError(_("{where}: expected an object, got {value}.").format(where=where, value=_shown(entry)))
    unknown = [key for key in entry if key not in allowed]
    if unknown:
        raise InputError(_("{where}: \"{key}\" is not an entry it takes ({allowed}).").format(
            where=where, key=unknown[0], allowed=", ".join(allowed)))


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
