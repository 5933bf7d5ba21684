"""The release a report describes (ISO/IEC 27559's context; decisions 6.7): why the avatars are shared,
by whom, with whom and how, about whom, what kind of data; the attacker the recipient implies; and the controller's
decision on the residual risk, which the user fills in once the figures are read.

Written once here and read everywhere: the command line's ``--release`` file and ``--recipient``, the Privacy
page's recipient and the Report page's fields, the JSON's ``release`` (which :meth:`Release.from_json` reads back), the report's first and
last sections.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from core.errors import InputError
from core.i18n import N_

if TYPE_CHECKING:  # the command line's parser reads the choices: no numerical library imported here
    from core.metrics.attack import Knowledge

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
OPEN_DATA = "open_data"
RECIPIENTS = {  # the release models of ISO/IEC 27559 and the commercial engine's privacy-impact report
    OPEN_DATA: N_("open data: anyone may obtain the avatars"),
    "contract": N_("a third party under contract"),
    "internal": N_("inside the organisation"),
    "outside_eu": N_("a recipient outside the EU"),
    "trusted_third_party": N_("a trusted third party"),
}
SENSITIVITIES = {
    "personal": N_("personal data"),
    "special_category": N_("special categories (GDPR article 9: health, genetics, beliefs...)"),
    "criminal": N_("criminal convictions and offences (GDPR article 10)"),
}
FIELD_LABELS = {  # each field as the report, the pages and the command line's help name it
    "purpose": N_("purpose of the release"),
    "controller": N_("data controller"),
    "recipient": N_("recipient and release model"),
    "data_subjects": N_("data subjects"),
    "data_kind": N_("kind of data"),
    "sensitivity": N_("sensitivity"),
    "residual_risk": N_("residual risk accepted"),
    "accepted_by": N_("accepted by"),
    "date": N_("date of the decision"),
    "review_date": N_("review date"),
}
CONTEXT_FIELDS = ("purpose", "controller", "recipient", "data_subjects", "data_kind", "sensitivity")
DECISION_FIELDS = ("residual_risk", "accepted_by", "date", "review_date")
NOT_STATED = N_("not stated")
NOT_YET_DECIDED = N_("not yet decided")

# Why the attacker the recipient implies is realistic (the report's section 3).
SCENARIO_REASONS = {
    OPEN_DATA: N_("The avatars are open data: anyone may hold them, including someone who knows everything about a "
                  "person but the sensitive variables. The attacker is therefore assumed to know every variable that "
                  "is not sensitive, whatever variables were chosen."),
    "contract": N_("A third party under contract: the attacker is assumed to know the variables chosen as known, what "
                   "the recipient could learn of a person elsewhere (a motivated intruder), bound by the contract not "
                   "to try."),
    "internal": N_("Inside the organisation: the attacker is assumed to know the variables chosen as known, what a "
                   "colleague could hold about a person in other systems."),
    "outside_eu": N_("A recipient outside the EU: the attacker is assumed to know the variables chosen as known; the "
                     "transfer itself needs its own safeguards, which the figures do not replace."),
    "trusted_third_party": N_("A trusted third party: the attacker is assumed to know the variables chosen as known, "
                              "the most a trusted party could gather about a person."),
    "": N_("No recipient stated: the attacker is assumed to know the variables chosen as known."),
}


@dataclass(frozen=True)
class Decision:
    """The controller's decision (the report's last section): the ``residual_risk`` accepted, ``accepted_by`` whom,
    on ``date``, to be reviewed on ``review_date`` (ISO dates, ``YYYY-MM-DD``); all blank: not yet decided."""

    residual_risk: str = ""
    accepted_by: str = ""
    date: str = ""
    review_date: str = ""

    def __post_init__(self) -> None:
        days: dict[str, dt.date] = {}
        for name in ("date", "review_date"):
            text = getattr(self, name)
            if not text:
                continue
            try:
                days[name] = dt.date.fromisoformat(text)
            except ValueError:
                pass
            if name not in days or not _ISO_DATE.fullmatch(text):
                raise InputError(f"The decision's {name} '{text}' is not a date: write it as YYYY-MM-DD, such as "
                                 "2026-12-31.")
        if len(days) == 2 and days["review_date"] < days["date"]:
            raise InputError(f"The decision's review_date {self.review_date} comes before its date {self.date}: "
                             "review it on or after the day it is taken.")

    @property
    def decided(self) -> bool:
        return any(getattr(self, item.name) for item in fields(self))


@dataclass(frozen=True)
class Release:
    """The release's context: its ``purpose``, the ``controller``, the ``recipient`` (a key of :data:`RECIPIENTS`,
    "" when not stated), the ``data_subjects``, the ``data_kind`` and its ``sensitivity`` (a key of
    :data:`SENSITIVITIES`, or ""), and the controller's ``decision``."""

    purpose: str = ""
    controller: str = ""
    recipient: str = ""
    data_subjects: str = ""
    data_kind: str = ""
    sensitivity: str = ""
    decision: Decision = field(default_factory=Decision)

    def __post_init__(self) -> None:
        for name, allowed in (("recipient", RECIPIENTS), ("sensitivity", SENSITIVITIES)):
            value = getattr(self, name)
            if value and value not in allowed:
                raise InputError(f"The release's {name} '{value}' is not one of {', '.join(allowed)}: choose one, or "
                                 "leave it out.")

    def to_json(self) -> dict[str, Any]:
        """The JSON's ``release``: every field, blank ones as "" (what :meth:`from_json` reads back)."""
        return {**{item.name: getattr(self, item.name) for item in fields(self) if item.name != "decision"},
                "decision": {item.name: getattr(self.decision, item.name) for item in fields(Decision)}}

    @classmethod
    def from_json(cls, document: Mapping[str, Any], source: str = "the release") -> Release:
        """A release read from its JSON (:meth:`to_json`'s shape; a whole metrics document: its ``release``), every
        field optional; an unknown field or a value that is not text refused in one line naming ``source``."""
        if not isinstance(document, Mapping):
            raise InputError(f"{source}: expected a JSON object with the release's fields, such as "
                             '{"purpose": "...", "recipient": "contract"}.')
        if "release" in document and isinstance(document["release"], Mapping):
            document = document["release"]
        decision = document.get("decision", {})
        if not isinstance(decision, Mapping):
            raise InputError(f"{source}: 'decision' must be an object, such as {{\"accepted_by\": \"...\"}}.")
        try:
            return cls(**_texts({name: value for name, value in document.items() if name != "decision"},
                                [item.name for item in fields(cls) if item.name != "decision"], source),
                       decision=Decision(**_texts(decision, [item.name for item in fields(Decision)],
                                                  f"{source}, decision")))
        except InputError as error:
            said = str(error)
            raise InputError(said if said.startswith(source) else f"{source}: {said}") from None

    @property
    def widens(self) -> bool:
        """Whether the recipient widens the attacker beyond the user's choice (open data)."""
        return self.recipient == OPEN_DATA

    def with_recipient(self, recipient: str | None) -> Release:
        """The release with another recipient (``--recipient``), this one when None."""
        return self if recipient is None else replace(self, recipient=recipient)

    def attacker(self, knowledge: Knowledge, columns: Iterable[str]) -> Knowledge:
        """What the attacks assume the attacker knows, as the recipient implies (decisions 6.7): open data, every
        one of ``columns`` (the variables scored) that is not sensitive; otherwise the user's ``knowledge``."""
        if not self.widens:
            return knowledge
        from core.metrics.attack import Knowledge

        known = tuple(name for name in columns if name not in knowledge.sensitive)
        return Knowledge(known=known, sensitive=knowledge.sensitive, groups=knowledge.groups,
                         precision=tuple((name, step) for name, step in knowledge.precision if name in known))


def _texts(document: Mapping[str, Any], names: list[str], source: str) -> dict[str, str]:
    unknown = [name for name in document if name not in names]
    if unknown:
        raise InputError(f"{source}: '{unknown[0]}' is not a field of the release; the fields are "
                         f"{', '.join(names)}{'' if 'date' in names else ' and decision'}.")
    for name, value in document.items():
        if not isinstance(value, str):
            raise InputError(f"{source}: '{name}' must be text, got {value!r}.")
    return {name: document[name].strip() for name in names if name in document}
