"""The risk profile of SPEC 6.4 in words, read alike on the Data page and the command line: who the known variables
single out, the precision each was counted at, and what removing one would change."""

from __future__ import annotations

from core.i18n import _, enumeration, ngettext, number, percent, semicolons
from core.metrics.risk_profile import SMALL_GROUP, RiskProfile


def step_text(step: float) -> str:
    """``1``, ``0.5``, ``0.001``: a step as written, without trailing zeros."""
    return number(step, "g") if step >= 1e-4 else number(step, ".1e")


def precision_sentence(profile: RiskProfile) -> str:
    """How the values were counted: "Counted on the values as written (categories, whole numbers and dates
    exactly); wage to the nearest 1."."""
    rounded = [_("{name} to the nearest {step}").format(name=name, step=step_text(step))
               for name, step in profile.steps.items()]
    if not rounded:
        return _("Counted on the values as an attacker would know them: categories, whole numbers and dates exactly "
                 "as written.")
    return _("Counted on the values as an attacker would know them: categories, whole numbers and dates exactly as "
             "written; {rounded}.").format(rounded=enumeration(rounded))


def removals_sentence(profile: RiskProfile) -> str | None:
    """"What helps most, removing one variable after another: without education: 170 unique (0.6 %); then ..." (None:
    no one is unique)."""
    if not profile.removals:
        return None
    steps = []
    for index, (name, count) in enumerate(profile.removals):
        share = percent(profile.share(count), ".2g" if 0 < count and profile.share(count) < 0.1 else ".1f")
        unique = ngettext("{count} unique ({share})", "{count} unique ({share})", count).format(
            count=number(count, ","), share=share)
        steps.append((_("then without {name}: {unique}") if index else _("without {name}: {unique}")).format(
            name=name, unique=unique))
    return _("What helps most, removing one variable after another: {steps}.").format(steps=semicolons(steps))


def profile_lines(profile: RiskProfile) -> list[str]:
    """The profile in sentences (the command line's; the page shows the same figures as cards)."""
    lines = [_("Before generation, on {known}: {unique} of {rows} real people ({unique_share}) are unique on them, "
               "{small} ({small_share}) are in groups of fewer than {size}.").format(
        known=enumeration(list(profile.known)), unique=number(profile.unique, ","), rows=number(profile.rows, ","),
        unique_share=percent(profile.unique_share), small=number(profile.small_groups, ","),
        small_share=percent(profile.small_group_share), size=SMALL_GROUP), precision_sentence(profile)]
    removals = removals_sentence(profile)
    return [*lines, removals] if removals else lines
