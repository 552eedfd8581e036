"""One example per verb, shown at the end of its `--help` (and checked by the tests to
parse as that verb's own command line)."""

from __future__ import annotations

from typing import Any

EXAMPLES: dict[str, str] = {
    "": "scigate tools run NameToSMILES --input aspirin",
    "doctor": "scigate doctor --providers",
    "demo": "scigate demo --out demo-output --rounds 12",
    "gate": "scigate gate run --db runs.db --generator templates --rounds 10",
    "gate verify": "scigate gate verify candidates/0001 --timeout 300",
    "gate invariance": "scigate gate invariance candidates/0001 --mpi-ranks 2",
    "gate screen": "scigate gate screen candidates/0001 --model openai/gpt-5-mini --calls 3",
    "gate solve": "scigate gate solve candidates/0001 --model openai/gpt-5 --time-limit 600",
    "gate run": "scigate gate run --db runs.db --generator templates --screen cue/middle "
    "--rounds 10",
    "gate audit": "scigate gate audit --db runs.db --json",
    "gate report": "scigate gate report --db runs.db --out report",
    "gate export": "scigate gate export --db runs.db --out accepted.jsonl --release release",
    "gate seeds": "scigate gate seeds --out seeds",
    "tools": "scigate tools search 'convert a chemical name to SMILES'",
    "tools list": "scigate tools list --category chemistry --available",
    "tools show": "scigate tools show NameToSMILES --json",
    "tools run": "scigate tools run SMILESToWeight --input CCO --json",
    "tools chain": "scigate tools chain NameToSMILES,SMILESToWeight --input ethanol",
    "tools plan": "scigate tools plan NameToSMILES,SMILESToWeight --input caffeine",
    "tools search": "scigate tools search 'molecular weight from a SMILES' -k 3",
    "tools graph": "scigate tools graph --out tool-graph.json",
    "tools coverage": "scigate tools coverage --missing",
    "tools serve-mcp": "scigate tools serve-mcp --mode finder",
    "agent": "scigate agent run --model openai/gpt-5-mini 'Molecular weight of ethanol?'",
    "agent run": "scigate agent run --model openai/gpt-5-mini --method react "
    "'What is the molecular weight of ethanol?'",
    "agent eval": "scigate agent eval --method evo --bench bench.jsonl "
    "--model openai/gpt-5-mini --out results",
    "bench": "scigate bench build --generator templates --n 50 --db bench.db --out bench.jsonl",
    "bench derive": "scigate bench derive scitooleval.jsonl --out derived.jsonl",
    "bench verify": "scigate bench verify bench.jsonl --workers 2",
    "bench build": "scigate bench build --generator templates --n 50 --db bench.db "
    "--out bench.jsonl",
    "bench report": "scigate bench report --db bench.db",
    "bench release": "scigate bench release --db bench.db --bench bench.jsonl --out release",
    "review": "scigate review serve --db runs.db",
    "review serve": "scigate review serve --db runs.db --protocol toolgate",
    "review add-reviewer": "scigate review add-reviewer 'Grace Hopper' --db runs.db",
    "review rule": "scigate review rule --db runs.db --protocol toolgate --reviewers 3",
    "review export": "scigate review export --db runs.db --out items.csv",
    "review import": "scigate review import items.csv --db runs.db --reviewer 'Grace Hopper'",
    "review status": "scigate review status --db runs.db --json",
    "runs": "scigate runs cost --db runs.db",
    "runs list": "scigate runs list --db runs.db --json",
    "runs cost": "scigate runs cost --db runs.db --run gate-20260512-101500-3fa2c1 --json",
    "cache": "scigate cache stats",
    "cache stats": "scigate cache stats --json",
    "cache clear": "scigate cache clear --dir ~/.cache/scigate",
    "cache prune": "scigate cache prune --older-than 30d",
}


def attach_examples(command: Any, path: str = "") -> Any:
    """Set the example of `command` (at `path`, e.g. "gate run") and of its subcommands as
    their help epilog, where the table has one; returns `command`."""
    from rich.markup import escape

    example = EXAMPLES.get(path)
    if example is not None and not command.epilog:
        command.epilog = f"Example: {escape(example)}"
    for name, sub in (getattr(command, "commands", None) or {}).items():
        attach_examples(sub, f"{path} {name}".strip())
    return command
