"""Where AvatarFastDP's epsilon goes (SPEC 4, the epsilon ledger), as a table: each noisy statistic's share and
value, how it is split, and what no noise covers. The commercial engine and the SPEC split the budget; this says so
on every surface that shows a FastDP run (the Generate page, the report, the JSON's ``epsilon_ledger``)."""

from __future__ import annotations

from core.i18n import N_, _, number, percent

STATISTICS = {"mean": N_("mean of the latent coordinates"), "covariance": N_("covariance of the latent coordinates"),
              "weights": N_("weights of the mixture's groups"), "means": N_("means of the mixture's groups"),
              "covariances": N_("covariances of the mixture's groups"),
              "counts": N_("histogram counts of each latent axis")}
PARTS = {"mean vector": N_("one noise scale for the whole vector"), "entry": N_("{parts} entries, {each} each"),
         "component": N_("{parts} groups, {each} each"), "dimension": N_("{parts} axes, {each} each")}
NOT_COVERED = {"projection": N_("the projection (fitted on the real values)"),
               "clipping bounds": N_("the clipping bounds (percentiles of the real coordinates)"),
               "column types and decimals": N_("the column types, decimals and observed ranges"),
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
        items="; ".join(_(NOT_COVERED[item]) for item in ledger["not_covered"]))
