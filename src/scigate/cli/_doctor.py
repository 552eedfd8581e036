"""`scigate doctor`: what this machine can run, never printing a secret."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from scigate.cli._console import inert_markup, untrusted
from scigate.errors import install_command

STACKS: list[tuple[str, str, str]] = [
    ("DOLFINx (FEniCSx)", "dolfinx", "fenicsx"),
    ("Basix", "basix", "fenicsx"),
    ("UFL", "ufl", "fenicsx"),
    ("RDKit", "rdkit", "chem"),
    ("OPSIN (py2opsin)", "py2opsin", "chem"),
    ("SELFIES", "selfies", "chem"),
    ("Biopython", "Bio", "bio"),
    ("pymatgen", "pymatgen.core", "materials"),
    ("FastMCP", "fastmcp", "mcp"),
    ("PyArrow (Parquet export)", "pyarrow", "release"),
    ("inspect_ai (optional)", "inspect_ai", "inspect"),
    ("Ray (--executor ray)", "ray", "ray"),
]


def stack_versions() -> list[dict[str, str | bool | None]]:
    """Which domain stacks import, with their versions."""
    rows: list[dict[str, str | bool | None]] = []
    for label, module, extra in STACKS:
        try:
            if module == "dolfinx":
                importlib.import_module("dolfinx_solver")
            mod = importlib.import_module(module)
            version = getattr(mod, "__version__", None)
            if version is None and module == "pymatgen.core":
                from importlib.metadata import version as dist_version

                version = dist_version("pymatgen")
            rows.append({"stack": label, "ok": True, "version": str(version), "extra": extra})
        except Exception as exc:  # report, never crash
            rows.append(
                {
                    "stack": label,
                    "ok": False,
                    "version": None,
                    "extra": extra,
                    "error": f"{type(exc).__name__}: {exc}".splitlines()[0][:120],
                }
            )
    return rows


def external_programs() -> list[dict[str, str | bool | None]]:
    """Programs scigate uses when present: Java (OPSIN), Chromium (report check), bwrap."""
    rows: list[dict[str, str | bool | None]] = []
    for name, cmd, purpose in [
        ("java", ["java", "-version"], "OPSIN name-to-structure"),
        ("chromium", ["chromium", "--version"], "report screenshots and tests"),
        ("bwrap", ["bwrap", "--version"], "sandbox network isolation"),
    ]:
        path = shutil.which(name)
        version = None
        if path:
            try:
                out = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
                text = (out.stdout or out.stderr).strip().splitlines()
                version = text[0] if text else ""
            except (OSError, subprocess.TimeoutExpired):
                version = "(did not answer)"
        rows.append({"program": name, "ok": bool(path), "version": version, "purpose": purpose})
    return rows


def doctor(
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    ray_address: str | None = typer.Option(
        None, "--ray-address", help="Also show this Ray cluster's nodes and CPUs."
    ),
    providers: bool = typer.Option(
        False,
        "--providers",
        help="Show the model providers and the capability table: each rule, what it applies "
        "to, its documentation source and date, and when it was last checked.",
    ),
) -> None:
    """Show which domain stacks import, which providers have credentials, which protections
    are active (and, with --ray-address, a Ray cluster's nodes and CPUs; with --providers,
    the providers and the capability rules with their sources)."""
    from scigate.llm import providers_status
    from scigate.sandbox import cgroup_join_note, cgroup_join_seconds, protections

    if providers:
        _providers(json_out)
        return

    report: dict[str, Any] = {
        "python": sys.version.split()[0],
        "stacks": stack_versions(),
        "programs": external_programs(),
        "providers": providers_status(),
        "sandbox": protections(),
        "performance": {"cgroup join": cgroup_join_note(cgroup_join_seconds())},
    }
    if ray_address:
        from scigate.executor import cluster_status

        report["ray_cluster"] = cluster_status(ray_address)
    if json_out:
        typer.echo(json.dumps(report, indent=2))
        return
    console = Console()
    console.print(f"[bold]scigate doctor[/bold]  (Python {report['python']})")
    t = Table(title="Domain stacks", title_justify="left")
    for col in ("stack", "status", "version", "extra"):
        t.add_column(col)
    for r in report["stacks"]:
        status = (
            "[green]ok[/green]"
            if r["ok"]
            else f"[red]missing[/red] {inert_markup(r.get('error', ''))}"
        )
        t.add_row(
            str(r["stack"]),
            status,
            untrusted(r["version"] or ""),
            untrusted(install_command(str(r["extra"])) if not r["ok"] else str(r["extra"])),
        )
    console.print(t)
    t = Table(title="Programs", title_justify="left")
    for col in ("program", "status", "version", "used for"):
        t.add_column(col)
    for r in report["programs"]:
        t.add_row(
            str(r["program"]),
            "[green]found[/green]" if r["ok"] else "[yellow]absent[/yellow]",
            untrusted(r["version"] or ""),  # a program's own words
            str(r["purpose"]),
        )
    console.print(t)
    t = Table(title="Model providers (credentials are never shown)", title_justify="left")
    for col in ("provider", "status", "how"):
        t.add_column(col)
    for r in report["providers"]:
        t.add_row(
            str(r.get("provider")),
            "[green]configured[/green]"
            if r.get("configured")
            else "[yellow]not configured[/yellow]",
            str(r.get("how", "")),
        )
    console.print(t)
    console.print(_status_table("Sandbox protections", "protection", report["sandbox"], "active"))
    console.print(_status_table("Performance", "what", report["performance"], ("fast", "n/a")))
    if ray_address:
        _print_cluster(console, report["ray_cluster"])


def _status_table(
    title: str, what: str, rows: dict[str, Any], good: str | tuple[str, ...]
) -> Table:
    """A two-column table of statuses, green where a status starts with `good`, else
    yellow (statuses quote the machine: shown inert)."""
    t = Table(title=title, title_justify="left")
    t.add_column(what)
    t.add_column("status")
    for name, status in rows.items():
        colour = "green" if str(status).startswith(good) else "yellow"
        t.add_row(name, untrusted(status, style=colour))
    return t


def _providers(json_out: bool) -> None:
    """`scigate doctor --providers`: provider status and the capability table."""
    from scigate.llm import capability_rules, providers_status

    report = {"providers": providers_status(), "capability_rules": capability_rules()}
    if json_out:
        typer.echo(json.dumps(report, indent=2))
        return
    console = Console()
    t = Table(title="Model providers (credentials are never shown)", title_justify="left")
    for col in ("provider", "status", "how"):
        t.add_column(col)
    for r in report["providers"]:
        status = (
            "[green]configured[/green]"
            if r.get("configured")
            else "[yellow]not configured[/yellow]"
        )
        t.add_row(str(r.get("provider")), status, inert_markup(str(r.get("how", ""))))
    console.print(t)
    t = Table(title="Capability rules (scigate/llm/capabilities.json)", title_justify="left")
    for col in ("rule", "applies to", "sets", "source", "checked"):
        t.add_column(col, overflow="fold")
    for r in report["capability_rules"]:
        sets = ", ".join(f"{k}={v}" for k, v in r["sets"].items())
        t.add_row(
            inert_markup(r["id"]),
            inert_markup(r["applies_to"]),
            inert_markup(sets),
            inert_markup(f"{r['source']} ({r['source_date']})"),
            inert_markup(str(r["checked"])),
        )
    console.print(t)


def _print_cluster(console: Console, cluster: dict) -> None:
    if "error" in cluster:
        console.print(untrusted(f"Ray cluster {cluster['address']}: {cluster['error']}", "red"))
        return
    t = Table(
        title=f"Ray cluster {inert_markup(cluster['address'])}: {cluster['cpus']:g} CPUs",
        title_justify="left",
    )
    for col in ("node", "address", "status", "CPUs"):
        t.add_column(col)
    for n in cluster["nodes"]:
        status = "[green]alive[/green]" if n["alive"] else "[red]dead[/red]"
        t.add_row(untrusted(n["node_id"][:12]), untrusted(n["address"]), status, f"{n['cpus']:g}")
    console.print(t)
