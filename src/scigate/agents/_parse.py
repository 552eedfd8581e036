"""Lenient parsing of model text: JSON objects, numbered lists, final answers."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def extract_json(text: str | None) -> dict[str, Any] | None:
    """The first JSON object in `text` (fenced or bare), or None."""
    if not text:
        return None
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for chunk in candidates:
        chunk = chunk.strip()
        try:
            value = json.loads(chunk)
        except json.JSONDecodeError:
            value = _first_object(chunk)
        if isinstance(value, dict):
            return value
    return None


def _first_object(text: str) -> Any:
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch == "{":
            try:
                value, _ = decoder.raw_decode(text[i:])
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    return None


_ITEM = re.compile(r"\(\s*\d+\s*\)|^\s*\d+[.)]\s+|^\s*[-*•]\s+", re.M)


def numbered_items(text: str | None) -> list[str]:
    """Items of a "(1) a (2) b" or "1. a" list, stripped and non-empty."""
    if not text:
        return []
    parts = _ITEM.split(text)
    # the paper's format line ends "(2) tool description 2 …": a copied ellipsis is no item
    items = [" ".join(p.split()).strip(" ;,").removesuffix("…").strip() for p in parts]
    return [i for i in items if i]


_ANSWER = re.compile(r"(?im)^\s*(?:final\s+)?answer\s*[:：]\s*(.+?)\s*$")


def final_answer(text: str | None) -> str | None:
    """The text after the last "Answer:" line, else the whole stripped text."""
    if not text:
        return None
    found = _ANSWER.findall(text)
    if found:
        return found[-1].strip()
    stripped = text.strip()
    return stripped or None


def as_float(value: Any, default: float = 0.0) -> float:
    """A number in [0, 1] from a model's score field (clipped; bad values give `default`)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return default
    if x != x:  # NaN
        return default
    return min(1.0, max(0.0, x))


def truncate_words(text: str, limit: int) -> str:
    """At most `limit` words of `text`."""
    words = text.split()
    return " ".join(words[:limit])
