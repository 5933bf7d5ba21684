"""The languages (SPEC section 11): the switch's mechanics, numbers and dates per language, and the catalogues
complete: every message marked in the code translated into French, with the same placeholders, and compiled."""

import copy
import datetime as dt
import json
import pickle
import re
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from core.i18n import (
    DOMAIN,
    LOCALES,
    N_,
    Message,
    Number,
    _,
    compiled_catalogue,
    current_language,
    date_time,
    language,
    language_of_locale,
    ngettext,
    number,
    percent,
    plotly_separators,
    with_unit,
)

ROOT = Path(__file__).resolve().parents[1]
FRENCH_PO = LOCALES / "fr" / "LC_MESSAGES" / f"{DOMAIN}.po"
NARROW_NO_BREAK_SPACE = "\u202f"


def placeholders(text: str) -> list[str]:
    return sorted(re.findall(r"\{(\w*)[^{}]*\}", text))


def marked_messages() -> dict[str, str]:
    """Every message marked ``_``, ``ngettext`` or ``N_`` in the code, as Babel extracts it with ``babel.cfg``."""
    with (ROOT / "babel.cfg").open() as config:
        method_map, options_map = parse_mapping_cfg(config)
    found = {}
    for path, _line, message, _comments, _context in extract_from_dir(
            ROOT, method_map, options_map, keywords=dict(DEFAULT_KEYWORDS, N_=None)):
        found[message if isinstance(message, str) else message[0]] = path
    return found


def french_catalogue():
    with FRENCH_PO.open("rb") as handle:
        return read_po(handle, locale="fr")


def test_numbers_keep_their_digits_and_take_the_language_symbols():
    assert number(1234567.891, ",.1f") == "1,234,567.9" and number(0.0456, ".3f") == "0.046"
    with language("fr"):
        assert number(1234567.891, ",.1f") == f"1{NARROW_NO_BREAK_SPACE}234{NARROW_NO_BREAK_SPACE}567,9"
        assert number(0.0456, ".3f") == "0,046" and number(12, ",") == "12"
        assert plotly_separators() == f",{NARROW_NO_BREAK_SPACE}"
        assert percent(12.345) == f"12,3{NARROW_NO_BREAK_SPACE}%" and with_unit("93,5", "/ 100").endswith("\u202f/ 100")
    assert plotly_separators() == ".," and percent(12.345) == "12.3 %" and with_unit("93.5", "/ 100") == "93.5 / 100"


def test_dates_are_written_the_language_way():
    moment = dt.datetime(2026, 12, 1, 16, 50)
    assert date_time(moment) == "Dec 1, 2026, 16:50"
    with language("fr"):
        assert date_time(moment) == "1 déc. 2026, 16:50"


def test_the_language_is_english_unless_set_and_comes_back_after_a_block():
    assert current_language() == "en" and _("Language") == "Language"
    with language("fr"):
        assert current_language() == "fr" and _("Language") == "Langue"
    assert current_language() == "en"
    with pytest.raises(ValueError, match="language must be one of en, fr, got 'de'"):
        with language("de"):
            pass


@pytest.mark.parametrize("locale, expected", [
    ("fr-FR", "fr"), ("fr", "fr"), ("fr_CA", "fr"), ("FR-be", "fr"), ("en-GB", "en"), ("de-DE", "en"), (None, "en"),
    ("", "en"),
])
def test_the_browser_locale_chooses_the_first_language(locale, expected):
    assert language_of_locale(locale) == expected


def test_every_message_marked_in_the_code_has_a_french_translation_with_the_same_placeholders():
    catalogue, problems = french_catalogue(), []
    for message_id, path in marked_messages().items():
        entry = catalogue.get(message_id) if message_id in catalogue else catalogue.get((message_id,))
        entry = entry or next((item for item in catalogue if isinstance(item.id, tuple) and item.id[0] == message_id),
                              None)
        if entry is None or "fuzzy" in entry.flags:
            problems.append(f"{path}: {message_id!r} has no French translation (run `make translations`)")
            continue
        translations = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        if not all(translations):
            problems.append(f"{path}: {message_id!r} is not translated")
        elif any(placeholders(text) != placeholders(message_id) for text in translations[-1:]):
            problems.append(f"{path}: {message_id!r} and its translation have different placeholders")
    assert not problems, "\n".join(problems)


def test_no_message_is_formatted_by_position():
    assert not [message for message in marked_messages() if "" in placeholders(message)]


def test_the_compiled_catalogue_is_the_one_of_the_po_file():
    assert FRENCH_PO.with_suffix(".mo").read_bytes() == compiled_catalogue(FRENCH_PO), "run `make translations`"



def test_french_counts_0_and_1_in_the_singular_and_a_million_in_the_plural():
    def fields(count: int) -> str:
        return ngettext("{count} field", "{count} fields", count).format(count=count)

    assert [fields(count) for count in (0, 1, 2)] == ["0 fields", "1 field", "2 fields"]
    with language("fr"):
        assert [fields(count) for count in (0, 1, 2, 1_000_000)] == ["0 champ", "1 champ", "2 champs",
                                                                      "1000000 champs"]


def test_a_message_kept_for_later_is_english_as_a_string_and_translated_when_shown():
    with language("fr"):  # made in a French session...
        kept = Message(N_("Table: {name} ({rows} rows)"), name="a.csv", rows=Number(12_345, ","))
    assert kept == "Table: a.csv (12,345 rows)" and json.dumps(kept) == '"Table: a.csv (12,345 rows)"'  # ...the JSON's
    assert _(kept) == "Table: a.csv (12,345 rows)"
    for copied in (pickle.loads(pickle.dumps(kept)), copy.deepcopy(kept)):
        with language("fr"):
            assert _(copied) == f"Table\u00a0: a.csv (12{NARROW_NO_BREAK_SPACE}345 lignes)"
