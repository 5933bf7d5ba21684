"""Text from the user's data as Streamlit must receive it: every text that ``st.markdown`` renders (titles,
captions, messages, labels) reads markdown, so a file or column named ``![x](http://...)`` would make the page fetch
that address, ``[text](http://...)`` would become a link, and so would a bare ``http://...``, ``www.`` or e-mail
address (GitHub's autolinks). Whatever carries a file name, a column name or a value goes through :func:`plain`
before it is shown."""

from __future__ import annotations

import re

from core.errors import InputError

MARKDOWN_SPECIALS = str.maketrans({character: "\\" + character for character in "\\`*_{}[]<>()#+-!|~$"})
WORD_JOINER = "\u2060"  # invisible: breaks an autolink's pattern without changing what is read
AUTOLINK_STARTS = re.compile(r"(?i)(?<=[a-z])(?=://)|(?<=www)(?=\.)|(?<=@)")


def plain(text: object) -> str:
    """``text`` shown as written by ``st.markdown``: its markdown characters escaped (a column name with ``*``,
    ``$`` or ``](`` stays a name), and an invisible word joiner where an address would start an autolink. An
    :class:`~core.errors.InputError` is shown in the dashboard's words."""
    if isinstance(text, InputError):
        text = text.dashboard_text()
    return AUTOLINK_STARTS.sub(WORD_JOINER, str(text).translate(MARKDOWN_SPECIALS))
