"""The user's language (SPEC section 11): gettext catalogues of one domain, ``workbench``, in ``core/locales``
(extracted and compiled with Babel: ``make translations``), and numbers written with the language's symbols from
Babel's locale data.

The language is a context variable: English unless a caller sets another (the dashboard for each of its script
runs, the command line for ``--report-language``), so the command line and the JSON stay English. Messages are
written in English in the code, marked ``_("...")`` where they are shown and ``N_("...")`` where they are defined
ahead (a module's constant), then translated where shown; placeholders are named, ``_("{rows} rows").format(...)``.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import gettext
import io
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from babel.dates import format_date, format_time
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import get_decimal_symbol, get_group_symbol

DOMAIN = "workbench"
LOCALES = Path(__file__).resolve().parent / "locales"
LANGUAGES = {"en": "English", "fr": "Français"}  # code: the language's own name, as the switch shows it
UNIT_SPACES = {"fr": "\u202f"}  # between a number and its unit, where not a plain space
SOURCE_LANGUAGE = "en"

_language: contextvars.ContextVar[str] = contextvars.ContextVar("language", default=SOURCE_LANGUAGE)


def compile_catalogues() -> None:
    """Each language's ``.po`` compiled to its ``.mo`` (``make translations``) with Babel's writer. Not with
    ``pybabel compile``: it checks printf placeholders, and the messages are ``str.format`` ones in which it reads
    "95 % of" as a ``% o`` (the placeholders are checked by the tests instead)."""
    for po in sorted(LOCALES.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        po.with_suffix(".mo").write_bytes(compiled_catalogue(po))


def compiled_catalogue(po: Path) -> bytes:
    """The ``.mo`` bytes of the catalogue ``po``."""
    with po.open("rb") as handle:
        messages = read_po(handle)
    compiled = io.BytesIO()
    write_mo(compiled, messages)
    return compiled.getvalue()


@cache
def catalogue(language: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``language`` (English: the messages as written)."""
    if language == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALES, languages=[language])


def _(message: str) -> str:
    """``message`` in the current language (a :class:`Message` kept from earlier: its template translated now)."""
    if isinstance(message, Message):
        return message.shown()
    return catalogue(_language.get()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The singular or plural form of a message for ``count``, in the current language."""
    return catalogue(_language.get()).ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Marks ``message`` for the catalogue where it is defined; it is translated where shown, by :func:`_`."""
    return message


def current_language() -> str:
    return _language.get()


def set_language(language: str) -> None:
    """Use ``language`` from now on in this context (the dashboard: at the start of each script run)."""
    _language.set(_checked(language))


@contextmanager
def language(code: str) -> Iterator[None]:
    """Use ``code`` within the block, then the language before it again."""
    token = _language.set(_checked(code))
    try:
        yield
    finally:
        _language.reset(token)


def _checked(code: str) -> str:
    if code not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {code!r}.")
    return code


def language_of_locale(locale: str | None) -> str:
    """The language to start in for a browser's locale (``fr-FR`` → ``fr``); English for any other."""
    code = (locale or "").replace("_", "-").split("-")[0].lower()
    return code if code in LANGUAGES else SOURCE_LANGUAGE


def localized_number(text: str) -> str:
    """A number written by Python's format (``1,234.5``) with the language's symbols (French ``1 234,5``, a narrow
    no-break space between thousands): the digits, hence the value shown, are the same in every language."""
    locale = _language.get()
    if locale == SOURCE_LANGUAGE:
        return text
    symbols: dict[str, str | int | None] = {",": get_group_symbol(locale), ".": get_decimal_symbol(locale)}
    return text.translate(str.maketrans(symbols))


def number(value: float, spec: str = "") -> str:
    """``format(value, spec)`` in the current language's symbols (``spec`` ``,`` for thousands, ``.1f``...)."""
    return localized_number(format(value, spec))


def with_unit(text: str, unit: str) -> str:
    """A number written and its unit (``12.3 %``, ``93.5 / 100``), apart by the language's space: French, a narrow
    no-break space, so that the unit never starts a line."""
    return f"{text}{UNIT_SPACES.get(_language.get(), ' ')}{unit}"


def enumeration(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``, in the current language."""
    if len(items) < 2:
        return "".join(items)
    return _("{names} and {last}").format(names=", ".join(items[:-1]), last=items[-1])


def semicolons(items: list[str]) -> str:
    """``a; b; c`` in the current language (French sets a narrow no-break space before each semicolon)."""
    return _("; ").join(items)


def percent(value: float, spec: str = ".1f") -> str:
    """``12.3 %`` in the current language (``12,3 %`` in French)."""
    return with_unit(number(value, spec), "%")


def plotly_separators() -> str:
    """The decimal and thousands symbols of the current language, as plotly's ``layout.separators`` takes them."""
    locale = _language.get()
    return get_decimal_symbol(locale) + get_group_symbol(locale)


def date_time(value: dt.datetime) -> str:
    """A moment written the language's way (Babel's medium date and short time: ``Dec 1, 2026, 16:50``,
    ``1 déc. 2026, 16:50``)."""
    locale = _language.get()
    return f"{format_date(value, 'medium', locale=locale)}, {format_time(value, 'HH:mm', locale=locale)}"


class Number:
    """A number kept in a :class:`Message`, written when the message is shown: ``number(value, spec)``."""

    def __init__(self, value: float, spec: str = "") -> None:
        self.value, self.spec = value, spec

    def __format__(self, spec: str) -> str:
        return number(self.value, self.spec)

    def __repr__(self) -> str:
        return f"Number({self.value!r}, {self.spec!r})"


class Message(str):
    """A message made now and shown later (a column's warning, a run's note, a fix), in the language of the moment
    it is shown: as a string it is the English text (what the command line prints and the JSON holds), and
    :func:`_` translates its template then fills in its values (numbers as :class:`Number`, messages as messages).

    ``Message(N_("{rows} rows set aside"), rows=Number(n, ","))``: the ``N_`` puts the template in the catalogue.
    """

    template: str
    values: dict[str, object]

    def __new__(cls, template: str, **values: object) -> Message:
        token = _language.set(SOURCE_LANGUAGE)
        try:
            text = template.format(**values) if values else template
        finally:
            _language.reset(token)
        message = super().__new__(cls, text)
        message.template, message.values = template, values
        return message

    def shown(self) -> str:
        translated = catalogue(_language.get()).gettext(self.template)
        if not self.values:
            return translated
        return translated.format(**{name: _(value) if isinstance(value, Message) else value
                                    for name, value in self.values.items()})
