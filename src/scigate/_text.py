"""Untrusted text made inert where it lands: the terminal, Markdown files.

Anything a candidate, a model or a sandboxed run wrote (printed output, reasons that
quote it, questions, options, replies, a generator's meta.json) can hold characters
that act instead of showing: ESC sequences that recolour or rewrite a terminal, OSC 8
hyperlinks, carriage returns and backspaces that overwrite what was printed before,
bidirectional marks that reorder it. `visible` writes every such character as its
escape (`\\x1b`, `\\r`, `\\u202e`), so the text shows what it holds and does nothing.
`md_text` and `md_code` do the same for Markdown, where HTML and link syntax act too.
The terminal side (Rich markup) is `scigate.cli._console`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: Unicode categories that act or hide rather than show: controls (C0, DEL, C1, ESC,
#: CR, backspace), formatting marks (zero-width, bidirectional), surrogates, private
#: use, unassigned, line and paragraph separators.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Everything but printable ASCII: the characters worth a closer look.
_SUSPECT = re.compile(r"[^\x20-\x7e]")


@lru_cache(maxsize=4096)
def _is_hidden(ch: str) -> bool:
    return unicodedata.category(ch) in HIDDEN_CATEGORIES


def escape_char(ch: str) -> str:
    """One character as its Python escape: `\\x1b`, `\\r`, `\\u202e`, `\\U000e0041`."""
    return repr(ch)[1:-1]


def visible(text: str, keep: str = "\n\t") -> str:
    """`text` with every hidden character (see HIDDEN_CATEGORIES) written as its escape,
    e.g. ESC as `\\x1b`; the characters in `keep` (by default newline and tab) stay.

    Letters, digits, punctuation, symbols and spaces of any script are left as they are.
    """
    if not _SUSPECT.search(text):
        return text

    def one(m: re.Match[str]) -> str:
        ch = m.group()
        return ch if ch in keep or not _is_hidden(ch) else escape_char(ch)

    return _SUSPECT.sub(one, text)


# Markdown and HTML syntax in running text: entities for HTML, a backslash for the rest
# (code spans, emphasis, strike-through, links and images, table cells, the escape itself).
_MD_SPECIAL = re.compile(r"[&<>\\`*_~\[\]|]")
_MD_REPLACE = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# Syntax that acts at the start of a line: headings, lists, setext underlines.
_MD_LEADING = re.compile(r"^(\s*)(#|=|[+-](?=\s|$)|\d+(?=[.)](?:\s|$)))")


def md_text(value: object) -> str:
    """`value` as Markdown that renders literally, on one line (safe in a table cell).

    HTML (`<script>`), links and images (`[x](javascript:...)`), code spans, emphasis,
    table pipes and a leading heading or list marker are escaped; line breaks and other
    hidden characters are written as their escapes (`\\n`, `\\x1b`).
    """
    text = _MD_SPECIAL.sub(
        lambda m: _MD_REPLACE.get(m.group(), "\\" + m.group()), visible(str(value), keep="")
    )
    lead = _MD_LEADING.match(text)
    if lead is None:
        return text
    mark = lead.group(2)
    if mark.isdigit():  # an ordered list marker: escape the dot or parenthesis after it
        end = lead.end()
        return text[:end] + "\\" + text[end:]
    return text[: lead.start(2)] + "\\" + text[lead.start(2) :]


# What an inline code span cannot carry safely everywhere: backticks end it, a pipe ends a
# table cell, and not every renderer keeps HTML inside code spans inert.
_CODE_UNSAFE = re.compile(r"[`|<>&]")


def md_code(value: object) -> str:
    """`value` as an inline code span (`` `run-1` ``), or as `md_text` when it holds a
    backtick, a pipe, HTML characters, a hidden character or outer spaces."""
    text = str(value)
    plain = text and text.strip() == text and not _CODE_UNSAFE.search(text)
    if plain and visible(text, keep="") == text:
        return f"`{text}`"
    return md_text(text)
