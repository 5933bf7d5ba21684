"""Does my analysis still hold (SPEC section 9): analyses run on the real data and on the avatars, side by side."""

from core.i18n import N_

SIDES = ("real", "avatars", "holdout")  # WO, WA and HO: every analysis runs on the three
ON_SIDE = {"real": N_("On the real rows: {note}"), "avatars": N_("On the avatars: {note}"),  # a side's note, shown
           "holdout": N_("On the holdout: {note}")}
