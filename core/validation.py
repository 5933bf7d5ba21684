"""Parameter checks whose messages name the parameter, the expectation and the value given."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

from core.errors import InputError
from core.i18n import _, number


def check_whole_number(name: str, value: Any, *, minimum: int | None = None, hint: str = "") -> int:
    """Return ``value`` as an ``int``, or raise an :class:`InputError` naming ``name``."""
    is_whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not is_whole and isinstance(value, numbers.Real) and not isinstance(value, bool):
        is_whole = math.isfinite(float(value)) and float(value).is_integer()
    if not is_whole:
        raise InputError(_("{name} must be a whole number, got {value}.").format(name=name, value=repr(value))
                         + _suffix(hint))
    value = int(value)
    if minimum is not None and value < minimum:
        raise InputError(_("{name} must be at least {minimum}, got {value}.").format(
            name=name, minimum=number(minimum), value=number(value)) + _suffix(hint))
    return value


def check_positive_number(name: str, value: Any, *, hint: str = "") -> float:
    """Return ``value`` as a finite ``float`` > 0, or raise an :class:`InputError`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise InputError(_("{name} must be a number, got {value}.").format(name=name, value=repr(value))
                         + _suffix(hint))
    if float(value) <= 0:
        raise InputError(_("{name} must be greater than 0, got {value}.").format(name=name, value=repr(value))
                         + _suffix(hint))
    return float(value)


MAX_WEIGHT = 1_000_000  # a column's weight: a million variables' at most (1e308 overflowed the projection's sums)


def check_weight(name: str, value: Any, *, hint: str = "") -> float:
    """Return ``value`` as a ``float`` weight in (0, :data:`MAX_WEIGHT`], or raise an :class:`InputError`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) <= MAX_WEIGHT:
        raise InputError(_("{name} must be a number greater than 0 and at most {most}, got {value}.").format(
            name=name, most=number(MAX_WEIGHT, ","), value=repr(value)) + _suffix(hint))
    return float(value)


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, or raise an :class:`InputError` listing them."""
    choices = tuple(choices)
    if value not in choices:
        listed = ", ".join(repr(choice) for choice in choices)
        raise InputError(
            _("{name} must be one of {listed}, got {value}.").format(name=name, listed=listed, value=repr(value))
        )
    return value


def check_seed(value: Any) -> int | None:
    """A seed is ``None`` (fresh entropy) or a whole number >= 0."""
    if value is None:
        return None
    return check_whole_number("seed", value, minimum=0)


def _suffix(hint: str) -> str:
    """The hint (already in the user's language) after the message, a space between them."""
    return f" {hint}" if hint else ""
