"""The sandbox's environment is an allow-list (issue 19, "secrets by allow-list"): the
caller's credentials, whatever they are called, and the caller's ordinary variables do
not reach a sandboxed run; locale, threads and the software's paths do; an encoded key a
run prints is redacted from its output."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from scigate.sandbox import run_python
from scigate.sandbox._env import allowed, sandbox_env

# the names the deny-list let through (issue 19), and more of the same kind
CREDENTIALS = {
    "MYSQL_PWD": "mysql-pw-9f8e7d6c",
    "DB_PASS": "db-pass-1a2b3c4d",
    "SSHPASS": "ssh-pass-5e6f7a8b",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX",
    "SENTRY_DSN": "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/42",
    "OPENAIKEY": "sk-proj-Zq8xVt3LmN0pRw7sKd2YhF5g",
    "GITHUBTOKEN": "ghp_0123456789abcdefghijABCDEFGHIJ",
    "APIKEY": "plain-api-key-value",
    # a name no rule knows, holding a key of no known format: only the allow-list stops it
    "VENDOR_CONF": "Zq8xVt3LmN0pRw7sKd2Y",
}
ORDINARY = {"MY_PROJECT_SETTING": "1", "EDITOR": "vim", "PYTHONSTARTUP": "/tmp/x.py"}
DUMP = "import json, os; print(json.dumps(dict(os.environ)))"


def _seen(ws: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> dict[str, str]:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = run_python(DUMP, workspace=ws)
    assert result.ok, result.reason
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", sorted(CREDENTIALS))
def test_an_unlisted_credential_does_not_reach_a_run(
    ws: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    seen = _seen(ws, monkeypatch, {name: CREDENTIALS[name]})
    assert name not in seen
    assert CREDENTIALS[name] not in json.dumps(seen)


def test_ordinary_caller_variables_do_not_reach_a_run_either(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Allow-list, not deny-list: a variable that is no credential stays out too."""
    seen = _seen(ws, monkeypatch, ORDINARY)
    assert not set(ORDINARY) & set(seen), set(ORDINARY) & set(seen)


def test_locale_threads_and_software_paths_reach_a_run(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = {
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "OMP_NUM_THREADS": "2",
        "OPENBLAS_NUM_THREADS": "2",
        "OPENBLAS_CORETYPE": "Haswell",
        "MKL_NUM_THREADS": "2",
        "TOKENIZERS_PARALLELISM": "false",
        "PETSC_ARCH": "arch-linux-c-opt",
        "JAVA_HOME": "/usr/lib/jvm/default",
    }
    seen = _seen(ws, monkeypatch, kept)
    assert {k: seen.get(k) for k in kept} == kept
    assert seen["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)


def test_the_env_a_caller_passes_still_goes_in(ws: Path) -> None:
    result = run_python(DUMP, workspace=ws, env={"MY_PROJECT_SETTING": "7"})
    assert result.ok, result.reason
    assert json.loads(result.stdout)["MY_PROJECT_SETTING"] == "7"


def test_sandbox_env_keeps_only_the_allow_list(tmp_path: Path) -> None:
    base = {
        **CREDENTIALS,
        **ORDINARY,
        "PATH": "/opt/bin:/usr/bin",
        "HOME": "/root",
        "PWD": "/work",
        "OLDPWD": "/",
        "VIRTUAL_ENV": "/elsewhere",
        "TMPDIR": "/var/tmp",
        "LD_PRELOAD": "/tmp/evil.so",
        "LANG": "C.UTF-8",
        "LC_NUMERIC": "C",
        "SSL_CERT_FILE": "/etc/ssl/cert.pem",
        "NO_PROXY": "localhost",
        # allow-listed names whose values are credentials: left out all the same
        "HTTPS_PROXY": "http://bob:hunter2hunter2@proxy:3128",
        "LC_MESSAGES": "sk-ant-api03-Zq8xVt3LmN0pRw7sKd2YhF5g",
    }
    env = sandbox_env(base, workspace=tmp_path, extra={"GIVEN": "yes"})
    home = tmp_path / ".home"
    assert env["HOME"] == str(home) and env["XDG_CACHE_HOME"] == str(home / ".cache")
    assert env["XDG_CONFIG_HOME"] == str(home / ".config")
    assert env["PATH"] == os.pathsep.join(
        [str(Path(sys.executable).parent), "/opt/bin", "/usr/bin"]
    )
    assert env["TMPDIR"] == "/var/tmp"  # outside isolation the caller's TMPDIR stays
    assert env.get("VIRTUAL_ENV") == (sys.prefix if sys.prefix != sys.base_prefix else None)
    for name in ("LANG", "LC_NUMERIC", "SSL_CERT_FILE", "NO_PROXY"):
        assert env[name] == base[name]
    assert env["GIVEN"] == "yes"
    for name in (*CREDENTIALS, *ORDINARY, "PWD", "OLDPWD", "LD_PRELOAD"):
        assert name not in env, name
    assert "HTTPS_PROXY" not in env and "LC_MESSAGES" not in env
    isolated = sandbox_env(base, workspace=tmp_path, extra=None, inside="/sandbox/workspace")
    assert isolated["TMPDIR"] == "/tmp" and isolated["HOME"] == "/sandbox/workspace/.home"


def test_a_key_pasted_into_path_is_not_passed(tmp_path: Path) -> None:
    env = sandbox_env(
        {"PATH": "/usr/bin:sk-proj-Zq8xVt3LmN0pRw7sKd2YhF5g"}, workspace=tmp_path, extra=None
    )
    assert "sk-proj" not in env["PATH"]


def test_allowed() -> None:
    assert allowed("OMP_PROC_BIND", "close") and allowed("MPIR_CVAR_CH4_NETMOD", "ofi")
    assert not allowed("OMP_SECRET", "x")  # allow-listed prefix, credential name
    assert not allowed("PETSC_DIR", "https://ghp_0123456789abcdefghijABCD@example.org/")
    assert not allowed("PYTHONPATH", "/caller/repo") and not allowed("LD_PRELOAD", "/x.so")


ENCODED_RUN = r"""
import base64, urllib.parse
key = {key!r}
raw = key.encode()
print("b64", base64.b64encode(raw).decode())
print("b64url", base64.urlsafe_b64encode(raw).decode().rstrip("="))
print("echo|base64", base64.b64encode(raw + b"\n").decode())
print("inside", base64.b64encode(b"{{\"k\": \"" + raw + b"\"}}").decode())
print("hex", raw.hex(), raw.hex().upper())
print("url", urllib.parse.quote(key, safe=""))
"""
KEY = "sk-proj-Zq8xVt3LmN0pRw7sKd2YhF5gJc9BnE4a/Uo1+iXe6TfQyHzWvM"


def test_an_encoded_key_printed_by_a_run_is_redacted(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import base64
    from urllib.parse import quote

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    result = run_python(ENCODED_RUN.format(key=KEY), workspace=ws)
    assert result.ok, result.reason
    out = result.stdout
    raw = KEY.encode()
    for spelling in (
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        base64.b64encode(raw + b"\n").decode()[:-4],
        base64.b64encode(b'{"k": "' + raw).decode()[12:60],  # the key's part, in the middle
        raw.hex(),
        raw.hex().upper(),
        quote(KEY, safe=""),
    ):
        assert spelling not in out, spelling
    assert out.count("[redacted OPENAI_API_KEY]") >= 7, out
