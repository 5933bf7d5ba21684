"""Does my analysis still hold (SPEC section 9): analyses run on the real data and on the avatars, side by side."""
