"""Redaction (issue 19, "secrets by allow-list"): which variables are credentials, by
name and by value, and every spelling of their values that is removed: plain, JSON,
base64 (standard, URL-safe, padded or not, wrapped, inside a longer base64 text at each
byte offset), hex and percent-encoded; in `redact` and in what the run database stores."""

from __future__ import annotations

import base64
import contextlib
import re
import sqlite3
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from scigate import _secrets
from scigate.store import Store

SECRET_NAMES = [
    # the names the old deny-list let through (issue 19)
    "MYSQL_PWD",
    "DB_PASS",
    "SSHPASS",
    "SLACK_WEBHOOK_URL",
    "SENTRY_DSN",
    "OPENAIKEY",
    # glued and lower-case forms
    "APIKEY",
    "GITHUBTOKEN",
    "HFTOKEN",
    "openaiKey",
    "dbPassword",
    "SMTP_PASSWD",
    "REDIS_PASS",
    "PGPASS",
    "LDAP_BIND_PW_PASSPHRASE",
    "MYSQLPWD",
    "DISCORD_WEBHOOK",
    "OAUTH_CLIENT",
    "HTTP_AUTH",
    "BASICAUTH_USER",
    "MY_CREDENTIALS_FILE",
    "SERVICE_CREDS",
    "DATABASE_DSN",
    "SENTRYDSN",
    # the names the old rules already had
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "HF_TOKEN",
    "GITHUB_TOKEN",
    "client_secret",
    "PGPASSWORD",
    "AWS_ACCESS_KEY_ID",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "SSH_AUTH_SOCK",
    "GH_PAT",
    "STRIPE_KEY",
    "SESSION_COOKIE",
]
ORDINARY_NAMES = [
    "PWD",  # the shell's directories, not passwords
    "OLDPWD",
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "TOKENIZERS_PARALLELISM",
    "KEYBOARD_LAYOUT",
    "KEYMAP",
    "HOTKEY_MODE",
    "MONKEYPATCH",
    "SSL_CERT_FILE",
    "REQUESTS_CA_BUNDLE",
    "COMPASS_HEADING",
    "BYPASS_CACHE",
    "LOWPASS_HZ",
    "PASSTHROUGH",
    "GIT_AUTHOR_NAME",
    "AUTHOR",
    "OMP_NUM_THREADS",
    "PETSC_DIR",
    "JAVA_HOME",
    "LD_LIBRARY_PATH",
    "TMPDIR",
    "PYTHONPATH",
    "HTTPS_PROXY",
]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_credential_names(name: str) -> None:
    assert _secrets.is_secret(name, "whatever")


@pytest.mark.parametrize("name", ORDINARY_NAMES)
def test_ordinary_names(name: str) -> None:
    assert not _secrets.is_secret(name, "/usr/bin")


KEY_VALUES = [
    "sk-proj-Zq8xVt3LmN0pRw7sKd2YhF5gJc9BnE4a",
    "sk-ant-api03-Zq8xVt3LmN0pRw7sKd2YhF5gJc9BnE4a",
    "sk-Zq8xVt3LmN0pRw7sKd2YhF5g",
    "ghp_0123456789abcdefghijABCDEFGHIJ",
    "gho_0123456789abcdefghijABCDEFGHIJ",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "xoxb-1234567890-0987654321-AbCdEfGhIjKl",
    "xoxp-1234567890-0987654321-AbCdEfGhIjKl",
    "AKIAIOSFODNN7EXAMPLE",
    "AIzaSyA-0123456789abcdefghijklmnopqrstu",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
    "glpat-AbCdEfGhIjKlMnOpQrSt",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX",
    "postgres://app:hunter2hunter2@db.internal:5432/prod",
    "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/42",
    "Bearer sk-proj-Zq8xVt3LmN0pRw7sKd2YhF5gJc9BnE4a",  # a key inside a longer value
]
ORDINARY_VALUES = [
    "/usr/local/bin:/usr/bin",
    "C.UTF-8",
    "false",
    "sk-learn",
    "https://pypi.org/simple",
    "http://proxy.internal:3128",
    "mysql://db.internal/prod",
    "git@github.com:org/repo.git",
]


@pytest.mark.parametrize("value", KEY_VALUES)
def test_key_formats_are_credentials_whatever_the_name(value: str) -> None:
    assert _secrets.is_secret("SOME_SETTING", value)
    out = _secrets.redact(f"config: {value} end", {"SOME_SETTING": value})
    assert "[redacted SOME_SETTING]" in out
    assert "hunter2hunter2" not in out and "Zq8xVt3L" not in out and "0123456789ab" not in out


@pytest.mark.parametrize("value", ORDINARY_VALUES)
def test_ordinary_values(value: str) -> None:
    assert not _secrets.is_secret("SOME_SETTING", value)


KEY = "sk-proj-Zq8xVt3LmN0pRw7sKd2YhF5gJc9BnE4a/Uo1+iXe6TfQyHzWvM?x=1&y=ö"
RAW = KEY.encode()
ENV = {"MY_SERVICE_TOKEN": KEY, "HOME": "/root", "SHORT_KEY": "1"}
B64_RUN = re.compile(r"[A-Za-z0-9+/_\-]+")


def _encodings() -> dict[str, str]:
    """Every spelling a script could print, computed here, not by the module under test."""
    b64 = base64.b64encode(RAW).decode()
    url = base64.urlsafe_b64encode(RAW).decode()
    echoed = base64.b64encode(RAW + b"\n").decode()
    spellings = {
        "base64": b64,
        "base64 unpadded": b64.rstrip("="),
        "urlsafe": url,
        "urlsafe unpadded": url.rstrip("="),
        "echo | base64": echoed,
        "echo | base64 (76 columns)": "\n".join(
            echoed[i : i + 76] for i in range(0, len(echoed), 76)
        ),
        "pem (64 columns)": "\n".join(b64[i : i + 64] for i in range(0, len(b64), 64)),
        "hex": RAW.hex(),
        "HEX": RAW.hex().upper(),
        "quote": quote(KEY, safe=""),
        "quote /": quote(KEY),
        "quote_plus": quote_plus(KEY),
        "quote lower-case escapes": re.sub(
            r"%[0-9A-F]{2}", lambda m: m.group().lower(), quote(KEY)
        ),
    }
    for offset in range(3):  # inside a longer base64 text
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            blob = encode(b"P" * (10 + offset) + RAW + b"S" * 7).decode()
            spellings[f"inside {encode.__name__} at offset {offset}"] = blob
    return spellings


def _leaks(text: str) -> bool:
    """Whether any 8 consecutive bytes of the key can be read back from `text`: plain,
    or by decoding any base64 run (each alignment, both alphabets) or hex run."""
    pieces = {RAW[i : i + 8] for i in range(len(RAW) - 7)}
    decoded = [text.encode()]
    for run in B64_RUN.findall(text.replace("\n", "")):
        for start in range(4):
            chunk = run[start:]
            chunk = chunk[: len(chunk) // 4 * 4]
            for altchars in (b"+/", b"-_"):
                with contextlib.suppress(ValueError):
                    decoded.append(base64.b64decode(chunk, altchars=altchars))
    for run in re.findall(r"[0-9a-fA-F]{16,}", text):
        decoded.append(bytes.fromhex(run[: len(run) // 2 * 2]))
    return any(piece in blob for blob in decoded for piece in pieces)


@pytest.mark.parametrize("how", sorted(_encodings()))
def test_every_encoding_of_a_key_is_redacted(how: str) -> None:
    text = f"the script printed:\n{_encodings()[how]}\n(done)"
    assert _leaks(text)  # the check can see the key
    out = _secrets.redact(text, ENV)
    assert "[redacted MY_SERVICE_TOKEN]" in out, out
    assert not _leaks(out), out


def test_percent_decoding_reads_nothing_back() -> None:
    from urllib.parse import unquote, unquote_plus

    for how in ("quote", "quote /", "quote_plus", "quote lower-case escapes"):
        out = _secrets.redact(_encodings()[how], ENV)
        assert KEY not in unquote(out) and KEY[:20] not in unquote_plus(out), how


def test_short_values_and_ordinary_text_are_left_alone() -> None:
    text = "flag 1, home /root, the hex 313233 and the word cm9vdA"
    assert _secrets.redact(text, ENV) == text


def test_the_spellings_are_computed_once_per_environment(monkeypatch) -> None:
    calls = []
    real = _secrets._table
    monkeypatch.setattr(_secrets, "_table", lambda items: calls.append(1) or real(items))
    env = {"MY_SERVICE_TOKEN": "a-fresh-token-value-for-the-cache"}
    for _ in range(50):
        _secrets.redact("a-fresh-token-value-for-the-cache", env)
    assert len(calls) == 1
    monkeypatch.setenv("ANOTHER_TOKEN", "yet-another-fresh-token")
    assert _secrets.redact("yet-another-fresh-token") == "[redacted ANOTHER_TOKEN]"
    assert _secrets.redact("yet-another-fresh-token") == "[redacted ANOTHER_TOKEN]"
    assert len(calls) == 2  # os.environ changed once: computed once more
    env["MY_SERVICE_TOKEN"] = "the-token-after-rotation"  # a changed mapping is seen
    assert _secrets.redact("the-token-after-rotation", env) == "[redacted MY_SERVICE_TOKEN]"


def test_an_encoded_key_is_not_stored(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", KEY)
    encodings = _encodings()
    store = Store(tmp_path / "run.db")
    run = store.create_run("gate", config={"note": encodings["base64"]})
    store.add_event(run, "note", {"printed": encodings})
    store.add_attempt(run, 0, candidate_id=None, status="error", reason=encodings["hex"])
    store.close()
    conn = sqlite3.connect(tmp_path / "run.db")
    dump = "\n".join(conn.iterdump())
    conn.close()
    assert "[redacted MY_SERVICE_TOKEN]" in dump
    # the dump holds JSON: its escaped newlines are undone before looking
    assert not _leaks(dump.replace("\\n", "\n")), [
        how for how, text in encodings.items() if text in dump
    ]


def test_without_redaction_the_encoded_key_is_stored(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", KEY)
    monkeypatch.setattr(_secrets, "secret_values", lambda env=None: [])
    store = Store(tmp_path / "run.db")
    run = store.create_run("gate", config={})
    store.add_event(run, "note", {"printed": _encodings()["base64"]})
    store.close()
    conn = sqlite3.connect(tmp_path / "run.db")
    dump = "\n".join(conn.iterdump())
    conn.close()
    assert _leaks(dump)
