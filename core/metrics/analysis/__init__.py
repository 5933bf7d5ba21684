"""Does my analysis still hold (SPEC section 9): analyses run on the real data and on the avatars, side by side."""

SIDES = ("real", "avatars", "holdout")  # WO, WA and HO: every analysis runs on the three
SIDE_NAMES = {"real": "real rows", "avatars": "avatars", "holdout": "holdout"}  # as the readings name them
