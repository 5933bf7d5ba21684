"""The one way a metric's value is written: by the command line, the pages, the report and the sweep's tables."""

from __future__ import annotations

import html
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

import numpy as np
import pandas as pd

from core.dataset.relations.sequence import FamilyRelation
from core.engine.io import formula_like
from core.engine.schema import quoted
from core.engine.split import Holdout
from core.i18n import N_, SOURCE_LANGUAGE, _, language, localized_number, number, percent, with_unit
from core.metrics.definition import INFERENCE, LINKABILITY, SINGLING_OUT, MetricDefinition
from core.metrics.evaluation import Evaluation
from core.metrics.metrics_json import ATTACKS
from core.metrics.result import MetricResult

AT_LEAST = ">= "  # before a value that is only a lower bound (a local cloaking whose counts stopped at their cap)
SHOWN_UNITS = ("%", "/ 100")  # units written after a value, each out of 100; others ("avatars") are in the label
CRITERION_NAMES = {SINGLING_OUT: N_("Singling out"), LINKABILITY: N_("Linkability"), INFERENCE: N_("Inference")}

Parameters = ParamSpec("Parameters")
Returned = TypeVar("Returned")


def in_english(function: Callable[Parameters, Returned]) -> Callable[Parameters, Returned]:
    """``function`` run in English whatever the language shown (SPEC section 11): the command line's text and the
    JSON, which the dashboard offers to download too."""

    @wraps(function)
    def english(*args: Parameters.args, **kwargs: Parameters.kwargs) -> Returned:
        with language(SOURCE_LANGUAGE):
            return function(*args, **kwargs)

    return english


def figure_text(value: object) -> str:
    """A text from the data (a column name, a category) as a plotly figure must receive it: HTML-escaped, since
    plotly reads ``<b>``, ``<a href>`` and ``<br>`` in any text as markup (a column named ``<a href=...>`` was a live
    link in every figure); plotly shows the escaped characters as typed."""
    return html.escape(str(value), quote=False)


def number_text(value: float, unit: str = "") -> str:
    """Three decimals below 1, one from 1 on; a value out of 100 (a percentage, a score ``/ 100``) always one
    (``0.0 %``, ``0.0 / 100``, not ``0.000``), but as many as a value short of 100 needs never to read 100 (issue 46:
    99.986 % shown "100.0 %"; at most four, then 99.9999)."""
    if unit in SHOWN_UNITS and 99.95 <= value < 100:
        places = next((places for places in (2, 3, 4) if round(value, places) < 100), None)
        return number(value, f".{places}f") if places else number(99.9999, ".4f")
    return number(value, ".3f") if abs(value) < 1 and unit not in SHOWN_UNITS else number(value, ".1f")


def metric_text(result: MetricResult, unit: str = "") -> str:
    """``result``'s value as shown everywhere: "n/a" when it does not apply, ``>= `` when only a lower bound, then
    the number and ``unit`` (see :data:`SHOWN_UNITS`)."""
    if result.value is None:
        return _("n/a")
    prefix = AT_LEAST if result.breakdown.get("at_least") else ""
    value = number_text(result.value, result.unit)
    return prefix + (with_unit(value, unit) if unit in SHOWN_UNITS else value)


def target_text(result: MetricResult) -> str:
    """``result``'s target as the cards and tables show it (``> 90 %``, ``> 0,3`` in French); "" without one."""
    return localized_number(result.target_text or "")


def criterion_name(criterion: str) -> str:
    """``Singling out``: a privacy criterion (SPEC 6.2) named as a heading, in the current language."""
    return _(CRITERION_NAMES[criterion])


def holdout_sentence(evaluation: Evaluation) -> str:
    """Which holdout the signal metrics compared with (SPEC section 5), in one sentence."""
    rows = evaluation.rows
    sentence = {
        Holdout.REAL: _("Compared with a real holdout: {holdout} real rows set aside before the avatars were made and never "
                  "used to make them ({working} rows avatarized); {avatars} avatars."),
        Holdout.GIVEN: _("Compared with the holdout file given: {holdout} real rows kept apart ({working} originals); "
                   "{avatars} avatars."),
        Holdout.APPROXIMATE: _("Compared with an approximate holdout: every row was avatarized, so half of the originals "
                         "({holdout} rows) were drawn at random as the reference when scoring; {avatars} avatars."),
    }[evaluation.holdout]
    return sentence.format(holdout=number(rows["holdout"], ","), working=number(rows["working"], ","),
                           avatars=number(rows["avatars"], ","))


def bands_text(definition: MetricDefinition) -> str:
    """A signal metric's bands in words: ``below 0.1: almost identical; 0.1 to 0.3: good fidelity; ...``."""
    bands, parts = list(definition.bands), []
    for index, (limit, _level, band) in enumerate(bands):
        band = _(band)
        if definition.goal == "minimize":
            lower = bands[index - 1][0] if index else None
            parts.append(_("below {limit}: {band}").format(limit=number(limit, "g"), band=band) if lower is None else
                         _("above {lower}: {band}").format(lower=number(lower, "g"), band=band)
                         if limit == float("inf") else
                         _("{lower} to {limit}: {band}").format(lower=number(lower, "g"), limit=number(limit, "g"),
                                                                band=band))
        else:
            upper = bands[index - 1][0] if index else None
            parts.append(_("{limit} and above: {band}").format(limit=number(limit, "g"), band=band) if upper is None
                         else _("below {upper}: {band}").format(upper=number(upper, "g"), band=band)
                         if limit == float("-inf") else
                         _("{limit} to {upper}: {band}").format(limit=number(limit, "g"), upper=number(upper, "g"),
                                                                band=band))
    return "; ".join(parts)


def metric_readings(result: MetricResult) -> list[str]:
    """A privacy metric's figures beside its value, in words: an attack's (:func:`attack_readings`) or synthpop's
    disclosure measures' (:func:`disclosure_readings`); empty for the others."""
    return [*attack_readings(result), *disclosure_readings(result)]


def propensity_reading(result: MetricResult) -> str | None:
    """The propensity score's test and its holdout reference, in words (None when it did not run)."""
    details = result.breakdown
    if result.name != "propensity_mse" or result.value is None:
        return None
    said = dict(p=number(details["p_value"], ".3g"), parameters=number(details["parameters"]))
    reading = (_("A model told to separate the avatars from the real rows does no better than chance would on two "
                 "samples of one population (p-value {p}, {parameters} parameters).") if result.level == "good" else
               _("A model told to separate the avatars from the real rows does better than chance would on two "
                 "samples of one population (p-value {p}, {parameters} parameters).")).format(**said)
    if "holdout_S_pMSE" in details:
        reading += " " + _("Real rows never used, in place of the avatars: {holdout}.").format(
            holdout=number(details["holdout_S_pMSE"], ".2f"))
    return reading


def disclosure_readings(result: MetricResult) -> list[str]:
    """synthpop's measures beside repU and DiSCO, each with the same computed on real people never used when there
    are some (what chance, or any sample of the population, gives)."""
    details = result.breakdown
    if result.value is None or result.name not in ("replicated_uniques", "disclosive_correct_original"):
        return []
    if result.name == "replicated_uniques":
        reading = _("{unique} of the people are alone in having their known variables ({keys}) among the real rows "
                    "(UiO); {replicated} are alone among the avatars too (repU).").format(
            unique=percent(details["UiO"]), keys=", ".join(details["keys"]), replicated=percent(details["repU"]))
        if "holdout_repU" in details:
            reading += " " + _("With real people never used in place of the avatars: {holdout}.").format(
                holdout=percent(details["holdout_repU"]))
        return [reading]
    readings = []
    for variable, measures in details["per_variable"].items():
        reading = _("{variable}: for {correct} of the people, every avatar with their known variables holds their "
                    "own value (DiSCO); among the real rows, {original} share their known variables only with people "
                    "of the same value (Dorig).").format(variable=variable, correct=percent(measures["DiSCO"]),
                                                          original=percent(measures["Dorig"]))
        if "holdout_DiSCO" in measures:
            reading += " " + _("With real people never used in place of the avatars: {holdout}.").format(
                holdout=percent(measures["holdout_DiSCO"]))
        readings.append(reading)
    return readings


def attack_readings(result: MetricResult) -> list[str]:
    """What an attack achieved, in words: the links made (linkability) or, per sensitive variable, the right
    guesses, against the control (real people never used) and the baseline (random linkage, guessing the most
    common value), or against the baseline alone when no real person was kept apart, and whether the attack does
    any better than that baseline; empty for other metrics or when it did not run."""
    details = result.breakdown
    if result.value is None or result.name not in ATTACKS:
        return []
    if result.name == "linkability_risk":
        if details["against"] == "baseline":
            reading = _("Links made for {members} of the people the avatars come from; random linkage would make "
                        "{baseline}. No real people were kept apart, so the risk is taken against random linkage, "
                        "which can only overstate it.").format(members=percent(details["members"]),
                                                              baseline=percent(details["baseline"]))
        else:
            reading = _("Links made for {members} of the people the avatars come from, {controls} of people never "
                        "used (random linkage: {baseline}).").format(members=percent(details["members"]),
                                                                     controls=percent(details["controls"]),
                                                                     baseline=percent(details["baseline"]))
        if details["members"] <= details["baseline"]:
            reading += " " + _("The attack does no better than random linkage.")
        return [reading, risk_meaning(details)]
    readings = []
    for entry in details["per_variable"]:
        values = dict(variable=entry["variable"], members=percent(entry["members"]), guess=_(entry["baseline_guess"]),
                      baseline=percent(entry["baseline"]))
        if entry["against"] == "baseline":
            reading = _("{variable}: right for {members} of the people used; guessing {guess} of the avatars "
                        "for everyone: {baseline}. No real people were kept apart, so the risk is taken against "
                        "that guess, which can only overstate it.").format(**values)
        else:
            reading = _("{variable}: right for {members} of the people used, {controls} of people never used; "
                        "guessing {guess} of the avatars for everyone: {baseline}.").format(
                controls=percent(entry["controls"]), **values)
        if entry["members"] <= entry["baseline"]:
            reading += " " + _("The attack does no better than that guess.")
        readings.append(reading)
    worst = next(entry for entry in details["per_variable"] if entry["variable"] == details["worst"])
    return [*readings, risk_meaning(worst)]


def risk_meaning(entry: dict) -> str:
    """What a risk of SPEC 6.2 is, in words: the members' gain over the controls (or the baseline), as a share of what
    the attack gets wrong on them, not a share of people exposed (a card read "21.7 %, missed" beside success rates
    of 92.1 % and 91.0 %)."""
    if entry["against"] == "baseline":
        return _("The risk, {risk}, is the attack's gain over the baseline, as a share of what the baseline gets wrong: "
                 "not a share of people exposed.").format(risk=percent(entry["risk"]))
    return _("The risk, {risk}, is the attack's gain on the people the avatars come from over people never used, as "
             "a share of what it gets wrong on those: not a share of people exposed.").format(
        risk=percent(entry["risk"]))


NARROWING_FACTOR = 4  # more people than this many times those attacked: no narrowing is offered (SPEC 6.2)


def _rates_sentences(entry: dict) -> list[str]:
    """An attack's success on members and controls (or its baseline alone), and whether it beats the baseline."""
    if "variable" in entry:
        rates = _("For {variable}, the attack is right for {members} of the people the avatars come from").format(
            variable=entry["variable"], members=percent(entry["members"]))
    else:
        rates = _("The attack links {members} of the people the avatars come from").format(
            members=percent(entry["members"]))
    guess = _(entry.get("baseline_guess", N_("random linkage")))
    if entry["against"] == "control":
        rates += _(", {controls} of people never used; {baseline} by the baseline ({guess}).").format(
            controls=percent(entry["controls"]), baseline=percent(entry["baseline"]), guess=guess)
    else:
        rates += _("; {baseline} by the baseline ({guess}).").format(baseline=percent(entry["baseline"]), guess=guess)
    beaten = [_("The attack does no better than the baseline.")] if entry["members"] <= entry["baseline"] else []
    return [rates, *beaten]


def uncertainty_note(result: MetricResult, with_rates: bool = True) -> str | None:
    """Why a risk is uncertain (SPEC 6.2, revised again): its estimate meets the target, its interval reaches past
    it; the two success rates and the baseline, and what would narrow the interval, only when something would (a
    real holdout as the control; at most :data:`NARROWING_FACTOR` times the people attacked); without the rates
    ``with_rates`` False (a card that shows them already). None when it is not uncertain."""
    if not result.uncertain:
        return None
    details = result.breakdown
    entry = next((entry for entry in details.get("per_variable", []) if entry["variable"] == details.get("widest")),
                 details)
    several = len(details.get("per_variable", [])) > 1  # the figure is the worst variable's, the doubt the widest's
    sentences = [(_("Uncertain: for {variable}, the estimate, {risk}, meets the target, but its 95 % interval "
                    "reaches {high}.") if several else
                  _("Uncertain: its estimate, {risk}, meets the target, but its 95 % interval reaches {high}.")).format(
        variable=entry.get("variable"), risk=percent(entry["risk"]), high=percent(entry["high"]))]
    if with_rates:
        sentences += _rates_sentences(entry)
    if entry["against"] == "baseline":
        sentences.append(_("Avatars made with a real holdout (real people never used, as the control) would narrow "
                           "it."))
        return " ".join(sentences)
    wrong = 100 - entry["controls"]
    if wrong < 50:
        sentences.append(_("The interval is wide because the risk is read on the {wrong} of people never used whom "
                           "the attack gets wrong.").format(wrong=percent(wrong)))
    gap = result.target - entry["risk"]
    factor = ((entry["high"] - entry["risk"]) / gap) ** 2 if gap > 0 else float("inf")
    if factor <= NARROWING_FACTOR:
        people = int(np.ceil(factor * entry["members_attacked"] / 100) * 100)
        sentences.append(_("About {people} people attacked on each side ({factor} times as many) would narrow it "
                           "below the target at these rates.").format(people=number(people, ","),
                                                                      factor=number(factor, ".1f")))
    return " ".join(sentences)


def formula_warning(avatars: pd.DataFrame) -> str | None:
    """What to know before opening ``avatars`` when columns of theirs hold text a spreadsheet may run as a formula
    (:func:`core.engine.io.formula_like`); None when none does."""
    names = formula_like(avatars)
    return None if not names else _("{names}: some values begin with =, +, - or @, which a spreadsheet may run as a formula. They are "
             "written as they are, from the data: import the CSV with those columns as text, or open it in a text "
             "editor first.").format(names=", ".join(quoted(name) for name in names))


def relations_table(result: MetricResult) -> tuple[list[str], list[list[str]]]:
    """The Broken relations metric's table (issue 30), for the Utility page and the report: each relation in words,
    the share of originals and of avatars breaking it; no row when no relation holds."""
    headers = [_("relation between the columns"), _("originals breaking it"), _("avatars breaking it")]
    return headers, [[relation.sentence(), percent(originals), percent(avatars)]
                     for relation, originals, avatars in result.breakdown.get("per_relation", [])]


def sequences_table(result: MetricResult) -> tuple[list[str], list[list[str]]]:
    """The Broken sequences metric's table (issue 45), for the Utility page and the report: each relation across a
    family's rows in words, the share of real and of avatar families breaking it with its count (a counter applies
    to every family, a chain to those of two rows or more); no row when none holds."""
    headers = [_("relation across the rows of each family"), _("real families breaking it"),
               _("avatar families breaking it")]
    return headers, [[_relation_sentence(row), *(_("{share} ({broken} of {families})").format(
        share=percent(row[f"{side}_share"]), broken=number(row[f"{side}_broken"], ","),
        families=number(row[f"{side}_families"], ",")) for side in ("real", "avatar"))]
        for row in result.breakdown.get("per_relation", [])]


def _relation_sentence(row: dict) -> str:
    """A family relation's sentence in the current language (its JSON row holds the English one)."""
    return FamilyRelation(row["kind"], tuple(row["columns"]), row.get("value")).sentence()
