"""The release in words (the report's sections 1, 3 and 8; the Privacy page's attacker): its context, the attacker
its recipient implies and the controller's decision, each field read from :class:`~core.workflows.release.Release`."""

from __future__ import annotations

from core.i18n import _, enumeration
from core.metrics.attack import Knowledge
from core.workflows.release import (
    CONTEXT_FIELDS,
    DECISION_FIELDS,
    FIELD_LABELS,
    NOT_STATED,
    NOT_YET_DECIDED,
    RECIPIENTS,
    SCENARIO_REASONS,
    SENSITIVITIES,
    Release,
)

def context_rows(release: Release) -> list[list[str]]:
    """Each field of the release's context with its value ("not stated" when blank), the choices in words."""
    words = {"recipient": RECIPIENTS, "sensitivity": SENSITIVITIES}
    rows = []
    for name in CONTEXT_FIELDS:
        value = getattr(release, name)
        rows.append([_(FIELD_LABELS[name]), _(words[name][value]) if name in words and value else value or
                     _(NOT_STATED)])
    return rows


def decision_rows(release: Release) -> list[list[str]] | None:
    """The controller's decision, field by field; None when nothing is filled in (the report says "not yet
    decided")."""
    decision = release.decision
    if not decision.decided:
        return None
    return [[_(FIELD_LABELS[name]), getattr(decision, name) or _(NOT_STATED)] for name in DECISION_FIELDS]


def not_yet_decided() -> str:
    return _("The controller's decision: {state}. Fill in the residual risk accepted, by whom, the date and a review "
             "date (the Report page, or the release file's \"decision\").").format(state=_(NOT_YET_DECIDED))


def scenario_sentences(release: Release, knowledge: Knowledge, held_out: bool) -> list[str]:
    """Why the attacker assumed is realistic for the recipient, what they know and want, and whether real people
    kept apart (``held_out``) served as the attacks' control."""
    said = [_(SCENARIO_REASONS[release.recipient])]
    if knowledge.known:
        said.append(_("The attacker knows: {names}.").format(names=enumeration(list(knowledge.known))))
    else:
        said.append(_("No variable was chosen as known: the linkability and inference attacks were not run."))
    if knowledge.sensitive:
        said.append(_("The attacker wants to learn: {names}.").format(names=enumeration(list(knowledge.sensitive))))
    if not knowledge.known:
        return said
    said.append(_("Real people kept apart from the synthesis (the holdout) served as the attacks' control: a risk "
                  "counts only beyond what the avatars tell about people they were not made from.") if held_out else
                _("No real people were kept apart: the attacks' control is drawn from the originals the avatars were "
                  "made from, an approximation."))
    return said
