"""Keep the caller's credentials out of everything stored or printed from a run.

The sandbox never hands credentials to a run (`scrub_env`), but a value can still reach
its output: a key the caller passed on purpose (the `--solver-cmd` passthrough), a
key pasted into a question, a file. `redact` replaces the value of every credential
variable of the caller's environment, and the password part of any `user:pass@` URL
there, by a marker naming the variable, in any text before it is stored or printed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from scigate.sandbox._env import is_secret

MIN_SECRET_CHARS = 6  # shorter values ("1", "true") would redact ordinary words
_URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]+:([^/\s@]+)@", re.IGNORECASE)


def secret_values(env: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """(value, variable name) of every credential in `env` (default: os.environ),
    longest first so a key that contains another is replaced whole."""
    env = os.environ if env is None else env
    found: dict[str, str] = {}
    for name, value in env.items():
        if not is_secret(name, value):
            continue
        for password in _URL_PASSWORD.findall(value):
            if len(password) >= MIN_SECRET_CHARS:
                found.setdefault(password, name)
        if len(value.strip()) >= MIN_SECRET_CHARS:
            found.setdefault(value.strip(), name)
    return sorted(found.items(), key=lambda item: -len(item[0]))


def redact(text: str, env: Mapping[str, str] | None = None) -> str:
    """`text` with every credential value of `env` replaced by ``[redacted NAME]``."""
    if not text:
        return text
    for value, name in secret_values(env):
        if value in text:
            text = text.replace(value, f"[redacted {name}]")
    return text


def redact_obj(obj: object, env: Mapping[str, str] | None = None) -> object:
    """`redact` applied to every string inside nested dicts, lists and tuples."""
    secrets = secret_values(env)
    if not secrets:
        return obj

    def walk(value: object) -> object:
        if isinstance(value, str):
            for secret, name in secrets:
                if secret in value:
                    value = value.replace(secret, f"[redacted {name}]")
            return value
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(walk(v) for v in value)
        return value

    return walk(obj)
