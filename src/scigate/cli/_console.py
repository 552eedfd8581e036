"""Untrusted text on the terminal: the CLI's one way of printing what others wrote.

A candidate's output (and the reasons that quote it), a model's question, options,
replies and answers, a tool's output, a run database's specs and reasons are printed
through these helpers, never as they are:

- `inert(text)`: control characters (C0 but newline and tab, C1, ESC and so OSC 8
  hyperlinks, carriage return, backspace, bidirectional marks) written as escapes
  (`\\x1b`), for plain `print`/`typer.echo` and for `Text`;
- `inert_markup(text)`: `inert` with Rich markup escaped, for a value placed inside a
  markup string (`[link=...]` shows as written instead of becoming a hyperlink);
- `untrusted(text)`: a `rich.text.Text` (never parsed as markup), e.g. a table cell;
- `one_line(text)`: one line with line breaks escaped too (the `scigate: error:` line);
- `json_text(data)` / `print_json(console, data)`: JSON whose strings carry hidden
  characters as `\\u` escapes (JSON escapes C0 itself, not C1, DEL or bidi marks).
"""

from __future__ import annotations

import json
import re
from typing import Any

from rich.console import Console
from rich.highlighter import JSONHighlighter
from rich.markup import escape
from rich.text import Text

from scigate._text import HIDDEN_CATEGORIES, visible

__all__ = ["inert", "inert_markup", "json_text", "one_line", "print_json", "untrusted"]


def inert(text: object) -> str:
    """`text` safe to print: every control or hidden character written as its escape
    (`\\x1b`, `\\r`, `\\u202e`); line breaks and tabs kept."""
    return visible(str(text))


def inert_markup(text: object) -> str:
    """`inert(text)` with Rich markup escaped, to place inside a markup string."""
    return escape(inert(text))


def untrusted(text: object, style: str = "") -> Text:
    """`inert(text)` as a Rich `Text`: printed as written, never parsed as markup."""
    return Text(inert(text), style=style)


def one_line(text: object) -> str:
    """`text` as one printable line: line breaks and other control characters (which a
    path or a model's message may hold) are shown escaped, e.g. `\\n`, `\\x1e`."""
    return visible(str(text).strip(), keep="")


_NON_ASCII = re.compile(r"[^\x00-\x7e]")


def json_text(data: Any, *, indent: int | None = 2) -> str:
    """`data` as JSON (non-ASCII text kept readable) whose hidden characters, DEL and C1
    controls included, are `\\u` escapes: the same JSON, inert on a terminal."""
    import unicodedata

    text = json.dumps(data, indent=indent, ensure_ascii=False, default=str)

    def one(m: re.Match[str]) -> str:  # outside strings JSON is ASCII: this is in one
        ch = m.group()
        if ch == "\x7f" or unicodedata.category(ch) in HIDDEN_CATEGORIES:
            return json.dumps(ch)[1:-1]
        return ch

    return _NON_ASCII.sub(one, text)


def print_json(console: Console, data: Any) -> None:
    """`data` as highlighted JSON on `console` (as `Console.print_json`), inert."""
    console.print(JSONHighlighter()(Text(json_text(data))), soft_wrap=True)
