"""Chosen embeddings (--embedder) and a separate reranker (--reranker) on agent run/eval."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import numpy as np
import pytest

from scigate.agents import EvalConfig, Memory, evaluate, load_bench
from scigate.errors import BadInput
from scigate.tools import CachedEmbedder, HashingEmbedder, make_embedder

from .conftest import spec
from .test_eval import BENCH, _write

RERANK_MARK = "Complete the following two-step task"
COMPLEX = "What is the InChIKey and the molecular weight of the molecule with SMILES CCO?"


class _Embeddings(BaseHTTPRequestHandler):
    """POST /v1/embeddings as OpenAI serves it: float lists, or base64 little-endian
    float32 when the client asks for encoding_format=base64 (the SDK's default)."""

    requests: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), **body}
        )
        if self.path != "/v1/embeddings":
            self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
            return
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = HashingEmbedder(dim=64).embed(texts)
        data = []
        for i, v in enumerate(vectors):
            if body.get("encoding_format") == "base64":
                emb = base64.b64encode(v.astype("<f4").tobytes()).decode()
            else:
                emb = [float(x) for x in v]
            data.append({"object": "embedding", "index": i, "embedding": emb})
        tokens = sum(len(t.split()) for t in texts)
        self._send(
            200,
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _send(self, status: int, payload: dict) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def embeddings_server(monkeypatch, tmp_path):
    _Embeddings.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}/v1")
    monkeypatch.setenv("SCIGATE_CACHE_DIR", str(tmp_path / "cache"))
    yield _Embeddings.requests
    server.shutdown()
    server.server_close()


def test_openai_embeddings_through_the_sdk_and_the_disk_cache(embeddings_server, tmp_path):
    emb = make_embedder("openai/text-embedding-3-small")
    assert isinstance(emb, CachedEmbedder)
    texts = ["convert SMILES to InChI", "molecular weight of a molecule"]
    vectors = emb.embed(texts)
    assert np.allclose(vectors, HashingEmbedder(dim=64).embed(texts), atol=1e-6)
    (request,) = embeddings_server
    assert request["path"] == "/v1/embeddings" and request["model"] == "text-embedding-3-small"
    assert request["input"] == texts and request["auth"] == "Bearer sk-test"
    assert request["encoding_format"] == "base64"  # the SDK default: decoded by the SDK
    again = make_embedder("openai/text-embedding-3-small").embed(texts)  # a new process, say
    assert np.allclose(again, vectors) and len(embeddings_server) == 1
    assert len(list((tmp_path / "cache" / "embeddings").glob("*/*.npy"))) == 2


def test_agent_run_uses_the_chosen_embedder_everywhere(embeddings_server, tmp_path):
    from scigate.cli._agent import app

    memory = tmp_path / "mem.db"
    args = ["run", "--model", spec("policy"), "--method", "evo", "--known-ratio", "1.0"]
    # every tool known and the known arm throughout, so the scripted run succeeds and
    # distills a skill (which split and arm it plays is not what this test is about)
    args += ["--gate", "exploit"]
    args += ["--embedder", "openai/text-embedding-3-small", "--memory", str(memory)]
    # the reference answer: Evo learns only from a reply judged right (issue 20)
    args += ["--parameter", "CCO", "--answer", "46.07", "--json", COMPLEX]
    app(args=args, standalone_mode=False)
    embedded = [t for r in embeddings_server for t in r["input"]]
    assert {r["model"] for r in embeddings_server} == {"text-embedding-3-small"}
    assert any("InChIToInChIKey" in t for t in embedded)  # the tool index
    assert "convert SMILES string to standard InChI" in embedded  # an active request
    skill = Memory(memory).skills()[0]  # distilled from this run, with the remote vector
    assert len(skill.embedding) == 64
    first = len(embeddings_server)
    app(args=args, standalone_mode=False)
    fresh = [t for r in embeddings_server[first:] for t in r["input"]]
    assert not any("InChIToInChIKey" in t for t in fresh)  # tool vectors come from the cache
    assert COMPLEX in fresh  # skill matching embeds the question with the same model
    # the memory's vectors are the remote model's: another embedder cannot use them
    with pytest.raises(BadInput, match="holds vectors of the embedder"):
        app(args=[*args[:-1], "--embedder", "hashing", COMPLEX], standalone_mode=False)


def test_a_memory_refuses_vectors_of_another_embedder(tmp_path):
    with Memory(tmp_path / "m.db") as m:
        m.bind_embedder("st-model-a")
        m.bind_embedder("st-model-a")
        with pytest.raises(BadInput, match="'st-model-a', not 'openai-x'"):
            m.bind_embedder("openai-x")


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--embedder", "word2vec/glove", "unknown embedder spec"),
        ("--embedder", "openai/text-embedding-3-small", "OPENAI_API_KEY is not set"),
        ("--embedder", "openai-compatible/e5", "needs ?base_url"),
        ("--embedder", "sentence-transformers/all-MiniLM-L6-v2", "not installed"),
        ("--reranker", "openai/gpt-5.4-mini", "OPENAI_API_KEY"),
        ("--reranker", "python/missing.py:f", "not found"),
    ],
)
@pytest.mark.parametrize("command", ["run", "eval"])
def test_bad_embedder_or_reranker_specs_exit_2(
    tmp_path, monkeypatch, capsys, option, value, message, command
):
    import signal

    from scigate.cli import main

    if "sentence-transformers" in value:
        try:
            import sentence_transformers  # noqa: F401

            pytest.skip("sentence-transformers is installed")
        except ImportError:
            pass
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    base = ["agent", command, "--model", spec("policy"), "--method", "cot", option, value]
    if command == "run":
        args = [*base, "What is the molecular weight of CCO?"]
    else:
        args = [*base, "--bench", str(_write(tmp_path / "b.jsonl", BENCH[:1]))]
    handler = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(SystemExit) as stop:
            main(args)
    finally:
        signal.signal(signal.SIGTERM, handler)
    assert stop.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("scigate: error:") and message in lines[0]


def test_the_reranker_is_called_apart_and_recorded_apart(tmp_path):
    from scigate.cli._agent import app
    from scigate.store import Store

    db = tmp_path / "runs.db"
    args = ["run", "--model", spec("policy"), "--method", "evo", "--known-ratio", "1.0"]
    args += ["--parameter", "CCO", "--db", str(db), "--memory", str(tmp_path / "m.db")]
    app(args=[*args, "--reranker", spec("reranker_only"), COMPLEX], standalone_mode=False)
    store = Store(db)
    (run,) = store.runs()
    calls = store.model_calls(run_id=run["id"])
    reranker = [c for c in calls if c["role"] == "reranker"]
    agent = [c for c in calls if c["role"] == "evo"]
    assert reranker and agent and len(reranker) + len(agent) == len(calls)
    assert all(RERANK_MARK in c["messages"][-1]["content"] for c in reranker)
    assert all(c["spec"].endswith(":reranker_only") for c in reranker)
    assert not any(RERANK_MARK in c["messages"][-1]["content"] for c in agent)
    store.close()
    # --reranker none: retrieval scores rank, no model is asked
    db2 = tmp_path / "runs2.db"
    args[args.index("--db") + 1] = str(db2)
    args[args.index("--memory") + 1] = str(tmp_path / "m2.db")
    app(args=[*args, "--reranker", "none", COMPLEX], standalone_mode=False)
    store = Store(db2)
    calls = store.model_calls()
    assert calls and not any(RERANK_MARK in c["messages"][-1]["content"] for c in calls)
    store.close()


async def test_eval_counts_reranker_calls_apart_from_the_agents(tools, embedder, tmp_path):
    from scigate.llm import get_model

    complex_task = {"question": COMPLEX, "Parameter": "CCO", "answer": "46.07"}  # 3 tools
    tasks = load_bench(_write(tmp_path / "b.jsonl", [complex_task, *BENCH[:2]]))
    config = EvalConfig(method="evo", known_ratio=1.0)
    model = get_model(spec("policy"))
    alone = await evaluate(model, tasks, tools, config, embedder=embedder)
    apart = await evaluate(
        model, tasks, tools, config, embedder=embedder, reranker=get_model(spec("reranker_only"))
    )
    assert [r["status"] for r in apart.rows] == [r["status"] for r in alone.rows]
    assert sum(r["reranker_calls"] for r in apart.rows) > 0
    assert all(r["reranker_calls"] == 0 for r in alone.rows)
    for a, b in zip(alone.rows, apart.rows, strict=True):
        assert b["calls"] + b["reranker_calls"] == a["calls"]
    assert apart.summary["cost"]["reranker_calls"] > 0


def test_hashing_is_the_default_and_builtin_its_alias():
    assert isinstance(make_embedder("hashing"), HashingEmbedder)
    assert make_embedder("hashing").id == make_embedder("builtin").id == make_embedder(None).id
