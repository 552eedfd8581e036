"""Keep the caller's credentials out of everything stored or printed.

A value can reach a text however carefully runs are built: a model echoing a key pasted
into a prompt, a key the caller passed on purpose (the `--solver-cmd` passthrough), a
file, a sandboxed script that prints a key it was given base64-encoded. `redact`
replaces the value of every credential variable of the caller's environment, the
password part of any `user:pass@` URL there and any key of a known format found in a
value, by a marker naming the variable, and does the same for each value's base64
(standard and URL-safe, padded or not, alone or inside a longer base64 text, wrapped
as `base64` and PEM wrap it), hex (lower and upper case) and percent-encoded spellings.
It is applied where text leaves: the sandbox's captured output, every write of the run
database (`scigate.store`), the agent evaluation's files and the command line's
stdout/stderr. A leaf module (no scigate imports), so the store and the sandbox both
use it without importing each other.

A variable is a credential (`is_secret`) when its name says so or its value does:

- a name with a part (between ``_``, ``-`` or ``.``) KEY(S), TOKEN(S), PASS, PWD, AUTH,
  DSN, PAT, PRIVATE, COOKIE(S), CREDS, or a part ending in KEY, TOKEN, PASS, PWD, AUTH or
  DSN (glued names: ``OPENAIKEY``, ``GITHUBTOKEN``, ``SSHPASS``, ``MYSQLPWD``), ordinary
  words excepted (``HOTKEY``, ``COMPASS``, ``BYPASS``, ``LOWPASS``, ...); a name containing
  SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL or WEBHOOK anywhere; the cloud prefixes
  (``AWS_``, ``AZURE_``, ``GOOGLE_``, ...) and a few well-known names. ``PWD`` and
  ``OLDPWD`` (the shell's directories), ``TOKENIZERS_PARALLELISM``, ``KEYBOARD_*``,
  ``SSL_CERT_FILE`` and ``GIT_AUTHOR_*`` are not credentials;
- a value holding a key of a known format (``sk-...``, ``sk-ant-...``, ``ghp_``/``gho_``/
  ``github_pat_``, ``xox[abp]-``, ``AKIA...``, ``AIza...``, ``hf_...``, ``glpat-``,
  ``npm_``, ``pypi-``, JWTs, Slack/Discord webhook URLs, PEM private keys) or a URL with
  a password or a token as its user (``scheme://user:pass@``, ``https://TOKEN@``).

The spellings of the credentials of one environment are computed once and cached (keyed
on the environment's items), so `redact` on every stored write costs only the scan of
the text.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
import threading
from collections.abc import Callable, Mapping
from typing import TextIO
from urllib.parse import quote, quote_plus

MIN_SECRET_CHARS = 6  # shorter values ("1", "true") would redact ordinary words
# a value's base64 inside a longer base64 text loses up to 3 characters at each end; a
# shorter remainder would be too likely to occur by chance
_MIN_CORE_CHARS = 16

_SECRET_WORDS = ("SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "WEBHOOK")
# whole parts, so TOKENIZERS_PARALLELISM and SSL_CERT_FILE survive
_SECRET_PARTS = frozenset(
    {"KEY", "KEYS", "APIKEY", "TOKEN", "TOKENS", "PAT", "AUTH", "AUTHN", "AUTHZ"}
    | {"AUTHORIZATION", "PRIVATE", "COOKIE", "COOKIES", "PASS", "PWD", "DSN", "CREDS"}
)
# a part ending so is a glued credential name (OPENAIKEY, GITHUBTOKEN, SSHPASS, MYSQLPWD)
_SECRET_SUFFIXES = ("KEY", "TOKEN", "PASS", "PWD", "AUTH", "DSN")
# ... unless it is an ordinary word
_ORDINARY_WORDS = frozenset(
    {"HOTKEY", "MONKEY", "DONKEY", "TURKEY", "HOCKEY", "JOCKEY", "WHISKEY", "TURNKEY"}
    | {"LACKEY", "COMPASS", "BYPASS", "SURPASS", "TRESPASS", "ENCOMPASS", "OVERPASS"}
    | {"UNDERPASS", "LOWPASS", "HIGHPASS", "BANDPASS", "ALLPASS", "MULTIPASS", "ONEPASS"}
    | {"TWOPASS", "SINGLEPASS", "FIRSTPASS", "SUBPASS", "RENDERPASS"}
)
_SECRET_PREFIXES = ("AWS_", "AZURE_", "GCP_", "GCLOUD_", "GOOGLE_", "ARM_CLIENT")
_SECRET_NAMES = frozenset(
    {"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KUBECONFIG", "NETRC", "DOCKER_AUTH_CONFIG", "PGPASS"}
)
_NOT_SECRET_NAMES = frozenset({"PWD", "OLDPWD"})  # the shell's working directories
_NAME_PARTS = re.compile(r"[^A-Z0-9]+")

# scheme://user:password@host in a value (proxies, database URLs)
_URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@", re.IGNORECASE)
_URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]+:([^/\s@]+)@", re.IGNORECASE)
# scheme://TOKEN@host: a token as the URL's user (Sentry DSNs, git remotes with a token)
_URL_TOKEN_USER = re.compile(r"[a-z][a-z0-9+.-]*://([A-Za-z0-9_\-]{20,})@", re.IGNORECASE)
# keys of known formats, whatever the variable is called
_KEY_FORMATS = re.compile(
    "|".join(
        (
            r"\bsk-(?:ant-|proj-|svcacct-|live-|test-)?[A-Za-z0-9_\-]{16,}",  # OpenAI, Anthropic
            r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{10,}",  # Stripe
            r"\bgh[pousr]_[A-Za-z0-9]{20,}",  # GitHub tokens
            r"\bgithub_pat_[A-Za-z0-9_]{20,}",
            r"\bxox[abposr]-[A-Za-z0-9\-]{10,}",  # Slack
            r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key ids
            r"\bAIza[0-9A-Za-z_\-]{30,}",  # Google API keys
            r"\bya29\.[0-9A-Za-z_\-]{20,}",  # Google OAuth access tokens
            r"\bhf_[A-Za-z0-9]{20,}",  # Hugging Face
            r"\bglpat-[A-Za-z0-9_\-]{20,}",  # GitLab
            r"\bnpm_[A-Za-z0-9]{30,}",  # npm
            r"\bpypi-[A-Za-z0-9_\-]{40,}",  # PyPI
            r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}",  # SendGrid
            r"\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*",  # JWTs
            r"https://hooks\.slack\.com/[^\s\"']+",
            r"https://(?:discord|discordapp)\.com/api/webhooks/[^\s\"']+",
            r"-----BEGIN[A-Z ]* PRIVATE KEY-----",
        )
    )
)


def _name_is_secret(name: str) -> bool:
    upper = name.upper()
    if upper in _NOT_SECRET_NAMES:
        return False
    if upper in _SECRET_NAMES or upper.startswith(_SECRET_PREFIXES):
        return True
    if any(word in upper for word in _SECRET_WORDS):
        return True
    for part in _NAME_PARTS.split(upper):
        if part in _SECRET_PARTS:
            return True
        if part.endswith(_SECRET_SUFFIXES) and part not in _ORDINARY_WORDS:
            return True
    return False


def _value_is_secret(value: str) -> bool:
    return bool(
        _URL_WITH_PASSWORD.search(value)
        or _URL_TOKEN_USER.search(value)
        or _KEY_FORMATS.search(value)
    )


def is_secret(name: str, value: str = "") -> bool:
    """True when an environment variable looks like a credential, by its name or by its
    value (a key of a known format, a URL with a password or a token in it)."""
    return _name_is_secret(name) or _value_is_secret(value)


def _wrapped(text: str, width: int) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


def _base64_spellings(raw: bytes) -> set[str]:
    out: set[str] = set()
    encoders = (base64.b64encode, base64.urlsafe_b64encode)
    # the value encoded alone, as `echo $KEY | base64` (trailing newline, 76 columns) or
    # PEM (64 columns) write it
    for data in (raw, raw + b"\n"):
        for encode in encoders:
            full = encode(data).decode()
            out.update((full, full.rstrip("=")))
        full = base64.b64encode(data).decode()
        for width in (64, 76):
            if len(full) > width:
                out.add(_wrapped(full, width))
    # the value inside a longer base64 text, at each of the 3 byte offsets: the
    # characters that depend on the value's bytes only
    for offset, skip in ((0, 0), (1, 2), (2, 3)):
        data = b"\0" * offset + raw
        whole = len(data) // 3 * 4  # the characters of complete 3-byte groups
        for encode in encoders:
            core = encode(data).decode()[skip:whole]
            if len(core) >= _MIN_CORE_CHARS:
                out.add(core)
    return out


def _lower_escapes(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), text)


@functools.lru_cache(maxsize=1024)
def _spellings(value: str) -> frozenset[str]:
    """`value` as it appears in plain text, inside JSON strings (escaped quotes,
    backslashes, control and non-ASCII characters), base64-, hex- and percent-encoded."""
    out = {value}
    raw = value.encode("utf-8", "surrogateescape")
    out |= _base64_spellings(raw)
    out.update((raw.hex(), raw.hex().upper()))
    for encoded in (quote(value, safe=""), quote(value), quote_plus(value, safe="")):
        out.update((encoded, _lower_escapes(encoded)))
    for spelling in list(out):  # each as a JSON string holds it (wrapped base64: "\\n")
        out.add(json.dumps(spelling, ensure_ascii=False)[1:-1])
        out.add(json.dumps(spelling, ensure_ascii=True)[1:-1])
    return frozenset(s for s in out if s)


def _values_of(value: str) -> list[str]:
    """The secret texts of one credential variable's value: the whole value, URL
    passwords and token users, keys of known formats inside it."""
    found = [*_URL_PASSWORD.findall(value), *_URL_TOKEN_USER.findall(value)]
    found += [m.group() for m in _KEY_FORMATS.finditer(value)]
    found.append(value.strip())
    return [s for s in found if len(s) >= MIN_SECRET_CHARS]


def _table(items: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    found: dict[str, str] = {}
    # a value both named as a credential and found inside another variable (a key format
    # in PYTEST_CURRENT_TEST, say) is marked with the credential's own name
    by_name = [(n, v) for n, v in items if _name_is_secret(n)]
    by_value = [(n, v) for n, v in items if not _name_is_secret(n) and _value_is_secret(v)]
    for name, value in by_name + by_value:
        for secret in _values_of(value):
            for spelling in _spellings(secret):
                found.setdefault(spelling, name)
    return sorted(found.items(), key=lambda item: (-len(item[0]), item[0]))


_CACHE_SIZE = 16
_cache: dict[object, list[tuple[str, str]]] = {}
_cache_lock = threading.Lock()


def _env_key(env: Mapping[str, str]) -> object:
    """A hashable key that changes whenever `env` does (for os.environ its raw bytes,
    which are read without decoding every variable)."""
    if env is os.environ:
        data = getattr(os.environ, "_data", None)
        if isinstance(data, dict):
            return ("os.environ", tuple(data.items()))
    return tuple(env.items())


def secret_values(env: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """(value, variable name) of every credential in `env` (default: os.environ), in
    each spelling, longest first so a key that contains another is replaced whole.

    Cached per environment: the list returned is shared, do not change it."""
    env = os.environ if env is None else env
    key = _env_key(env)
    table = _cache.get(key)
    if table is None:
        table = _table(tuple(env.items()))
        with _cache_lock:
            if len(_cache) >= _CACHE_SIZE:
                _cache.pop(next(iter(_cache)))
            _cache[key] = table
    return table


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
    """`text` with every credential value of `env`, in each spelling, replaced by
    ``[redacted NAME]``."""
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
