"""Keep the caller's credentials out of everything stored or printed.

A value can reach a text however carefully runs are built: a model echoing a key pasted
into a prompt, a key the caller passed on purpose (the `--solver-cmd` passthrough), a
file. `redact` replaces the value of every credential variable of the caller's
environment, and the password part of any `user:pass@` URL there, by a marker naming
the variable. It is applied where text leaves: the sandbox's captured output, every
write of the run database (`scigate.store`), the agent evaluation's files and the
command line's stdout/stderr. A leaf module (no scigate imports), so the store and the
sandbox both use it without importing each other.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from typing import TextIO

MIN_SECRET_CHARS = 6  # shorter values ("1", "true") would redact ordinary words

_SECRET_WORDS = ("SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL")
# whole "_"-separated parts, so TOKENIZERS_PARALLELISM and SSL_CERT_FILE survive
_SECRET_PARTS = frozenset(
    {"KEY", "KEYS", "APIKEY", "TOKEN", "TOKENS", "PAT", "AUTH", "PRIVATE", "COOKIE", "COOKIES"}
)
_SECRET_PREFIXES = ("AWS_", "AZURE_", "GCP_", "GCLOUD_", "GOOGLE_", "ARM_CLIENT")
_SECRET_NAMES = frozenset(
    {"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KUBECONFIG", "NETRC", "DOCKER_AUTH_CONFIG", "PGPASS"}
)
# scheme://user:password@host in a value (proxies, database URLs)
_URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@", re.IGNORECASE)
_URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]+:([^/\s@]+)@", re.IGNORECASE)


def is_secret(name: str, value: str = "") -> bool:
    """True when an environment variable looks like a credential."""
    upper = name.upper()
    if upper in _SECRET_NAMES or upper.startswith(_SECRET_PREFIXES):
        return True
    if any(word in upper for word in _SECRET_WORDS):
        return True
    if any(part in _SECRET_PARTS for part in re.split(r"[_\W]+", upper)):
        return True
    return bool(_URL_WITH_PASSWORD.search(value))


def _spellings(value: str) -> set[str]:
    """`value` as it appears in plain text and inside JSON strings (escaped quotes,
    backslashes, control and non-ASCII characters), so stored JSON is covered too."""
    return {
        value,
        json.dumps(value, ensure_ascii=False)[1:-1],
        json.dumps(value, ensure_ascii=True)[1:-1],
    }


def secret_values(env: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """(value, variable name) of every credential in `env` (default: os.environ), in
    each spelling, longest first so a key that contains another is replaced whole."""
    env = os.environ if env is None else env
    found: dict[str, str] = {}
    for name, value in env.items():
        if not is_secret(name, value):
            continue
        values = [p for p in _URL_PASSWORD.findall(value) if len(p) >= MIN_SECRET_CHARS]
        if len(value.strip()) >= MIN_SECRET_CHARS:
            values.append(value.strip())
        for secret in values:
            for spelling in _spellings(secret):
                found.setdefault(spelling, name)
    return sorted(found.items(), key=lambda item: -len(item[0]))


def _replace(text: str, secrets: list[tuple[str, str]]) -> str:
    for secret, name in secrets:
        if secret in text:
            text = text.replace(secret, f"[redacted {name}]")
    return text


def redactor(env: Mapping[str, str] | None = None) -> Callable[[str], str]:
    """`redact` with the credentials of `env` looked up once, for many texts in a row."""
    secrets = secret_values(env)
    return lambda text: _replace(text, secrets) if text and secrets else text


def redact(text: str, env: Mapping[str, str] | None = None) -> str:
    """`text` with every credential value of `env` replaced by ``[redacted NAME]``."""
    if not text:
        return text
    return _replace(text, secret_values(env))


def redact_obj(obj: object, env: Mapping[str, str] | None = None) -> object:
    """`redact` applied to every string inside nested dicts, lists and tuples."""
    secrets = secret_values(env)
    if not secrets:
        return obj

    def walk(value: object) -> object:
        if isinstance(value, str):
            return _replace(value, secrets)
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(walk(v) for v in value)
        return value

    return walk(obj)


class RedactingStream:
    """A text stream that redacts everything written to it before passing it on
    (the command line wraps stdout and stderr in it)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        """Write `text`, redacted; returns the length of the text given (as callers expect)."""
        self.stream.write(redact(text))
        return len(text)

    def writelines(self, lines: list[str]) -> None:
        """Write each line, redacted."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> object:
        if name == "buffer":  # writes to the byte buffer would bypass the redaction
            raise AttributeError(name)
        return getattr(self.stream, name)
