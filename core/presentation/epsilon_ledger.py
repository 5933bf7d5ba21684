"""Where AvatarFastDP's epsilon goes (SPEC 4, the epsilon ledger), as a table: each noisy statistic's share and
value, how it is split, and what no noise covers. The commercial engine and the SPEC split the budget; this says so
on every surface that shows a FastDP run (the Generate page, the report, the JSON's ``epsilon_ledger``)."""

from __future__ import annotations

from core.engine.value_grid import RARE_HOLDERS
from core.i18n import N_, _, number, percent

STATISTICS = {"mean": N_("mean of the latent coordinates"), "covariance": N_("covariance of the latent coordinates"),
              "weights": N_("weights of the mixture's groups"), "means": N_("means of the mixture's groups"),
              "covariances": N_("covariances of the mixture's groups"),
              "counts": N_("histogram counts of each latent axis")}
PARTS = {"mean vector": N_("one noise scale for the whole vector"), "entry": N_("{parts} entries, {each} each"),
         "component": N_("{parts} groups, {each} each"), "dimension": N_("{parts} axes, {each} each")}
NOT_COVERED = {"projection": N_("the projection (fitted on the real values)"),
               "clipping bounds": N_("the clipping bounds (percentiles of the real coordinates)"),
               "column types and decimals": N_(
                   "the column types, decimals and steps, the values a number with few values takes (each held by at least "
                   "{holders} people) and the observed ranges"),
               "missing values and spikes": N_("the missing-value and spike indicators")}


def ledger_rows(ledger: dict) -> list[dict[str, str]]:
    """One row per noisy statistic: what it is, its share and epsilon, and how that is split."""
    return [{_("statistic"): _(STATISTICS[share["statistic"]]),
             _("share of epsilon"): percent(100 * share["share"], ".0f"),
             _("epsilon"): number(share["epsilon"], ".4g"),
             _("split"): _(PARTS[share["part"]]).format(parts=number(share["parts"]),
                                                        each=number(share["epsilon_per_part"], ".3g"))}
            for share in ledger["shares"]]


def not_covered_sentence(ledger: dict) -> str:
    """What the budget does not cover, in one sentence (not end-to-end DP)."""
    return _("Not covered by the budget, computed on the real values without noise: {items}.").format(
        items="; ".join(_(NOT_COVERED[item]).format(holders=RARE_HOLDERS) for item in ledger["not_covered"]))


NEGLIGIBLE_NOISE = 0.01  # below 1 % of what it blurs, the noise changes nothing a reader could see


def noise_sentence(ledger: dict) -> str | None:
    """What epsilon buys, in words (issue 45: epsilon 100 read "meets every target" with no word that its noise was
    then negligible): the noise's typical size against the statistics it blurs, and when it buys nothing."""
    relative = ledger.get("relative_noise")
    if relative is None:
        return None
    values = dict(epsilon=number(ledger["epsilon"], "g"), share=percent(100 * relative, ".2g"))
    if relative < NEGLIGIBLE_NOISE:  # the noise's scale is inversely proportional to epsilon
        limit = number(float(f"{ledger['epsilon'] * relative / NEGLIGIBLE_NOISE:.2g}"), "g")
        return _("At epsilon {epsilon} the noise is negligible: about {share} of the size of the statistics it blurs. "
                 "The avatars are drawn from the model as if it were fitted without noise, so epsilon buys no "
                 "protection of its own here: what protects is drawing new points from a model. Below epsilon "
                 "{limit}, the noise reaches 1 % of that size.").format(limit=limit, **values)
    if relative >= 1:
        return _("At epsilon {epsilon} the noise is about {times} times the size of the statistics it blurs "
                 "(spreads, correlations, counts): the model is mostly noise, which is what epsilon buys.").format(
            times=number(relative, ".2g"), **values)
    return _("At epsilon {epsilon} the noise is about {share} of the size of the statistics it blurs (spreads, "
             "correlations, counts): that is what epsilon buys.").format(**values)
