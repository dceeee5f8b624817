"""The semantic tools end to end through the gateway, on both stores (SQLite files and a real
PostgreSQL with pgvector), with the stand-in embeddings endpoint."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from octo import Config
from octo import Gateway

from .conftest import EMBED_MODEL
from .conftest import PLANTED_TOKEN
from .conftest import FakeEmbeddings
from .conftest import one

GITHUB_TOKEN = PLANTED_TOKEN


def _bytes_under(directory: Path) -> bytes:
    return b"".join(path.read_bytes() for path in directory.iterdir())


async def index(gw: Gateway, tree: Path, **extra: Any) -> Any:
    result = await one(gw, "semanticIndexCodebase", {"path": str(tree), **extra})
    assert result["status"] == "success", result
    return result["data"]


async def search(gw: Gateway, query: str, **extra: Any) -> Any:
    return await one(gw, "semanticSearchCode", {"query": query, **extra})


async def test_index_then_search_finds_by_meaning_and_word(
    gateway: Gateway, tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    data = await index(gateway, tree, waitForEmbeddings=True)
    assert data["stats"]["filesAdded"] == 5
    assert data["embedding"]["status"] == "complete"
    assert data["embedding"]["embeddedChunks"] == data["embedding"]["totalChunks"] > 0
    assert data["embedding"]["model"] == EMBED_MODEL

    result = await search(gateway, "read the JSON configuration file", limit=3)
    context = result["data"]["searchContext"]
    assert context["resolvedFrom"] == "root" and context["mode"] == "hybrid"
    assert context["embeddedChunks"] == context["totalChunks"]
    top = result["data"]["results"][0]
    assert (top["path"], top["symbolName"], top["symbolType"]) == (
        "src/app.py",
        "load_config",
        "function",
    )
    assert top["matchType"] == "both" and top["vectorScore"] > 0 and top["keywordScore"] == 1.0
    assert top["symbolSignature"] == "def load_config(path)"
    assert top["content"].startswith("def load_config(path):")


async def test_filters_language_aliases_symbols_and_path(
    gateway: Gateway, tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    await index(gateway, tree, waitForEmbeddings=True)
    methods = await search(gateway, "deliver a message", symbolType="method")
    assert {h["symbolType"] for h in methods["data"]["results"]} == {"method"}
    assert methods["data"]["results"][0]["hierarchy"] == "Mailer.send_message"

    named = await search(gateway, "message", symbolName="SEND*")
    assert [h["symbolName"] for h in named["data"]["results"]] == ["send_message"]

    for alias, language in (
        ("terraform", "hcl"),
        ("shell", "bash"),
        ("sh", "bash"),
        ("ts", "typescript"),
    ):
        found = await search(gateway, "release logs bucket duration deploying", language=alias)
        assert {h["language"] for h in found["data"]["results"]} == {language}, alias

    two = await search(
        gateway, "server duration", language="go,typescript", symbolType=["class", "interface"]
    )
    assert {h["symbolName"] for h in two["data"]["results"]} == {"Server", "Clock"}

    under = await search(gateway, "function", path="cmd")
    context = under["data"]["searchContext"]
    assert context["resolvedFrom"] == "path" and context["path"] == "cmd"
    assert {h["path"] for h in under["data"]["results"]} == {"cmd/main.go"}


@pytest.mark.slow
async def test_smart_context_and_explicit_context_lines(
    gateway: Gateway, tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    await index(gateway, tree, waitForEmbeddings=True)
    widened = await search(gateway, "retry later attempts", limit=1)
    [hit] = widened["data"]["results"]
    assert hit["symbolName"] == "retry_later"
    assert hit["content"].splitlines()[0] == "    def retry_later(self, attempts=3):"

    lines = await search(gateway, "retry later attempts", contextBefore=2, contextAfter=5, limit=1)
    [hit] = lines["data"]["results"]
    assert hit["contextBefore"] == "        return (to, body)\n"
    assert "contextAfter" not in hit  # the method ends the file

    whole = await search(gateway, "Mailer e-mail SMTP", symbolType="class", limit=1)
    [hit] = whole["data"]["results"]
    assert hit["content"].count("def ") == 2, "smartContext widens a class header to the class"


async def test_incremental_reindex_embeds_only_what_changed(
    gateway: Gateway, tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    first = await index(gateway, tree, waitForEmbeddings=True)
    calls = len(fake_embeddings.texts)
    again = await index(gateway, tree, waitForEmbeddings=True)
    assert again["stats"] == {**first["stats"], "filesAdded": 0}
    assert len(fake_embeddings.texts) == calls, "an unchanged tree costs no embedding call"

    # A function moved to another file keeps its vector; only the edited chunk is embedded.
    app = tree / "src" / "app.py"
    source = app.read_text()
    moved = source[source.index("def load_config") : source.index("class Mailer")]
    app.write_text(source.replace(moved, "").replace("Deliver one message", "Deliver a letter"))
    (tree / "src" / "config.py").write_text(moved)
    (tree / "deploy.sh").unlink()
    before, batches = fake_embeddings.passages, len(fake_embeddings.texts)
    changed = await index(gateway, tree, waitForEmbeddings=True)
    assert changed["stats"]["filesAdded"] == 1
    assert changed["stats"]["filesUpdated"] == 1
    assert changed["stats"]["filesRemoved"] == 1
    embedded = [t for batch in fake_embeddings.texts[batches:] for t in batch]
    assert fake_embeddings.passages - before <= 3, embedded
    assert not any("load_config" in text for text in embedded), embedded
    found = await search(gateway, "configuration defaults", symbolName="load_config")
    assert found["data"]["results"][0]["path"] == "src/config.py"


@pytest.mark.slow
async def test_unembedded_chunks_rank_by_keyword_and_the_answer_says_so(
    env: dict[str, str], tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    # A gateway that is not entered runs no background work: only the keyword side exists.
    plain = Gateway(Config.from_env(env), roots=[tree])
    try:
        data = await index(plain, tree)
        assert data["embedding"]["status"] == "not started"
        assert data["embedding"]["embeddedChunks"] == 0
        assert any(
            "waitForEmbeddings" in hint
            for hint in (await one(plain, "semanticIndexCodebase", {"path": str(tree)}))["hints"]
        )
        result = await search(plain, "parse duration")
        context = result["data"]["searchContext"]
        assert context["mode"] == "keyword" and context["embeddedChunks"] == 0
        assert result["data"]["results"][0]["symbolName"] == "parseDuration"
        assert any("0 of" in hint for hint in result["hints"])
    finally:
        await plain.aclose()
    assert fake_embeddings.texts == []

    # An entered gateway resumes: the search starts the background job, which finishes.
    async with Gateway(Config.from_env(env), roots=[tree]) as gw:
        started = await search(gw, "parse duration")
        assert started["data"]["searchContext"]["embeddingRunning"] is True
        with anyio.fail_after(20):
            while True:
                query = {"indexName": data["indexName"]}
                stats = (await one(gw, "semanticIndexStats", query))["data"]["indexes"][0]
                if stats["embeddedChunks"] == stats["chunks"]:
                    break
                await anyio.sleep(0.05)
        done = await search(gw, "parse duration", useHybridSearch=False)
        assert done["data"]["searchContext"]["mode"] == "semantic"
        assert {h["matchType"] for h in done["data"]["results"]} == {"semantic"}


async def test_interrupted_embedding_loses_at_most_the_batch_in_flight(
    env: dict[str, str], tmp_path: Path, fake_embeddings: FakeEmbeddings
) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for i in range(40):
        (root / f"m{i}.py").write_text(f"def handler_{i}(event):\n    return 'value {i}'\n")
    fake_embeddings.fail_after = 1
    async with Gateway(Config.from_env(env), roots=[root]) as gw:
        failed = await one(
            gw, "semanticIndexCodebase", {"path": str(root), "waitForEmbeddings": True}
        )
        assert failed["status"] == "error" and failed["error"]["code"] == "TOOL_NOT_AVAILABLE"
        assert "503" in failed["error"]["message"] and failed["hints"]
        name = (await one(gw, "semanticListIndexes", {}))["data"]["indexes"][0]["name"]
        stats = (await one(gw, "semanticIndexStats", {"indexName": name}))["data"]["indexes"][0]
        assert stats["embeddedChunks"] == 16 and stats["chunks"] == 40
        fake_embeddings.fail_after = None
        resumed = await index(gw, root, waitForEmbeddings=True)
    assert resumed["embedding"]["embeddedChunks"] == 40
    assert sum(len(batch) for batch in fake_embeddings.texts) == 40, "nothing embedded twice"


@pytest.mark.slow
async def test_secrets_hidden_ignored_and_credential_files_stay_out(
    gateway: Gateway, tree: Path, fake_embeddings: FakeEmbeddings, store_env: dict[str, str]
) -> None:
    data = await index(gateway, tree, waitForEmbeddings=True)
    assert data["stats"]["filesAdded"] == 5  # not .env, .hidden/, build/ (gitignored)
    found = await search(gateway, "API token debug defaults", limit=10)
    wire = str(found)
    assert GITHUB_TOKEN not in wire and "[REDACTED:github-token]" in wire
    for word in ("hidden_function", "generated_function", "hunter2"):
        assert word not in str(await search(gateway, word))
    assert not any(GITHUB_TOKEN in text for batch in fake_embeddings.texts for text in batch)
    if "OCTO_INDEX_DIR" in store_env:
        stored = await anyio.to_thread.run_sync(_bytes_under, Path(store_env["OCTO_INDEX_DIR"]))
        assert GITHUB_TOKEN.encode() not in stored


async def test_list_stats_clear_and_unknown_index(
    gateway: Gateway, tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    data = await index(gateway, tree, indexName="demo")
    listed = await one(gateway, "semanticListIndexes", {})
    [demo] = [i for i in listed["data"]["indexes"] if i["name"] == "demo"]
    assert demo["root"] == str(tree)
    here = await one(gateway, "semanticListIndexes", {"path": "src"})
    assert [i["name"] for i in here["data"]["indexes"]] == ["demo"]
    [stats] = (await one(gateway, "semanticIndexStats", {"indexName": "demo"}))["data"]["indexes"]
    assert stats["files"] == 5 and stats["chunks"] == data["stats"]["chunks"]
    assert set(stats["languages"]) == {"python", "typescript", "go", "bash", "hcl"}
    assert stats["bytes"] > 0 and stats["model"] == EMBED_MODEL

    cleared = await one(gateway, "semanticClearIndex", {"indexName": "demo"})
    assert cleared["data"]["cleared"] is True
    for tool, query in (
        ("semanticIndexStats", {"indexName": "demo"}),
        ("semanticClearIndex", {"indexName": "demo"}),
        ("semanticSearchCode", {"query": "x", "indexName": "demo"}),
    ):
        missing = await one(gateway, tool, query)
        assert missing["error"]["code"] == "NOT_FOUND", tool
        assert any("semanticListIndexes" in h for h in missing["hints"])
        assert any("semanticIndexCodebase" in h for h in missing["hints"])
    nothing = await one(gateway, "semanticSearchCode", {"query": "x"})
    assert nothing["error"]["code"] == "NOT_FOUND"
    assert any("semanticIndexCodebase" in h for h in nothing["hints"])


@pytest.mark.slow
async def test_stale_index_hints_the_reindex_call(
    gateway: Gateway, tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    data = await index(gateway, tree)
    fresh = await search(gateway, "duration")
    assert fresh["data"]["searchContext"]["stale"] is False
    later = time.time() + 5
    os.utime(tree / "src" / "util.ts", (later, later))
    from octo.semantic.backend import SemanticBackend

    gateway.runtime.backend(SemanticBackend).forget(data["indexName"])
    stale = await search(gateway, "duration")
    assert stale["data"]["searchContext"]["stale"] is True
    assert "changed" in stale["data"]["searchContext"]["staleReason"]
    assert any(
        h.startswith("The index is stale") and "semanticIndexCodebase" in h for h in stale["hints"]
    )

    store = gateway.runtime.backend(SemanticBackend).store
    await anyio.to_thread.run_sync(store.finish, data["indexName"], time.time() - 8 * 86400)
    old = await search(gateway, "duration")
    assert old["data"]["searchContext"]["staleReason"] == "indexed more than 7 days ago"


async def test_model_mismatch_is_a_clear_error(
    env: dict[str, str], tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    async with Gateway(Config.from_env(env), roots=[tree]) as gw:
        await index(gw, tree, waitForEmbeddings=True)
    other = {**env, "OCTO_EMBED_MODEL": "another-model"}
    async with Gateway(Config.from_env(other), roots=[tree]) as gw:
        for tool, query in (
            ("semanticSearchCode", {"query": "duration"}),
            ("semanticIndexCodebase", {"path": str(tree)}),
        ):
            result = await one(gw, tool, query)
            assert result["error"]["code"] == "TOOL_NOT_AVAILABLE", tool
            assert EMBED_MODEL in result["error"]["message"]
            assert "another-model" in result["error"]["message"]
            assert any("semanticClearIndex" in h for h in result["hints"])


async def test_progress_is_reported(
    gateway: Gateway, tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    await gateway.call(
        "semanticIndexCodebase", [{"path": str(tree), "waitForEmbeddings": True}], progress=progress
    )
    messages = [m or "" for _, _, m in seen]
    assert any(m.startswith("indexed") for m in messages)
    assert any(m.startswith("embedded") for m in messages)
    assert seen[-1][0] == seen[-1][1]


async def test_paths_outside_the_roots_and_bad_names(
    gateway: Gateway, tree: Path, tmp_path: Path, fake_embeddings: FakeEmbeddings
) -> None:
    outside = await one(gateway, "semanticIndexCodebase", {"path": str(tmp_path)})
    assert outside["error"]["code"] == "PATH_NOT_ALLOWED"
    a_file = await one(gateway, "semanticIndexCodebase", {"path": "src/app.py"})
    assert a_file["error"]["code"] == "INVALID_QUERY" and a_file["hints"]
    bad = await one(gateway, "semanticIndexCodebase", {"path": ".", "indexName": "../x"})
    assert bad["error"]["code"] == "VALIDATION_ERROR" and "indexName" in bad["error"]["message"]
    await index(gateway, tree / "src", indexName="taken")
    clash = await one(gateway, "semanticIndexCodebase", {"path": str(tree), "indexName": "taken"})
    assert (
        clash["error"]["code"] == "INVALID_QUERY" and "already covers" in clash["error"]["message"]
    )


@pytest.mark.slow
async def test_concurrent_index_runs_of_one_tree_agree(
    gateway: Gateway, tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    query = {"path": str(tree), "indexName": "same"}
    response = await gateway.call("semanticIndexCodebase", [query, query, query])
    results = response.to_wire()["results"]
    assert [r["status"] for r in results] == ["success"] * 3
    assert sorted(r["data"]["stats"]["filesAdded"] for r in results) == [0, 0, 5]
    assert {r["data"]["stats"]["chunks"] for r in results} == {
        results[0]["data"]["stats"]["chunks"]
    }


async def test_an_unusable_index_directory_is_tool_not_available(
    tree: Path, tmp_path: Path, fake_embeddings: FakeEmbeddings
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    env = {"OCTO_INDEX_DIR": str(blocker / "indexes"), "PATH": os.defpath}
    async with Gateway(Config.from_env(env), roots=[tree]) as gw:
        result = await one(gw, "semanticIndexCodebase", {"path": "."})
    assert result["error"]["code"] == "TOOL_NOT_AVAILABLE" and result["hints"]


async def test_files_over_one_megabyte_are_left_out(
    gateway: Gateway, tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    (tree / "big.py").write_text("def huge():\n    return 1\n" + "# filler\n" * 120_000)
    data = await index(gateway, tree)
    assert data["stats"]["filesAdded"] == 5


async def test_the_endpoint_key_is_sent_and_the_model_named(
    env: dict[str, str], tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    keyed = {**env, "OCTO_EMBED_KEY": "embed-key-not-real"}
    async with Gateway(Config.from_env(keyed), roots=[tree]) as gw:
        data = await index(gw, tree, waitForEmbeddings=True)
    assert data["embedding"]["model"] == EMBED_MODEL
    assert set(fake_embeddings.authorizations) == {"Bearer embed-key-not-real"}
    unnamed = {key: value for key, value in env.items() if key != "OCTO_EMBED_MODEL"}
    async with Gateway(Config.from_env(unnamed), roots=[tree]) as gw:
        result = await one(gw, "semanticIndexCodebase", {"path": "."})
    assert result["error"]["code"] == "TOOL_NOT_AVAILABLE"
    assert "OCTO_EMBED_MODEL" in result["error"]["message"]


async def test_without_an_embedding_model_the_hints_say_what_to_install(
    env: dict[str, str], tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The semantic extra's model missing, as without `[semantic]` (None in sys.modules is how
    # Python says a module cannot be imported). Before, the install hint never reached the
    # answer and the search sent the caller to index again, which could not help.
    monkeypatch.setitem(sys.modules, "wordllama", None)
    bundled = {k: v for k, v in env.items() if not k.startswith("OCTO_EMBED")}
    async with Gateway(Config.from_env(bundled), roots=[tree]) as gw:
        built = await one(gw, "semanticIndexCodebase", {"path": ".", "waitForEmbeddings": False})
        assert built["data"]["embedding"]["status"] == "unavailable"
        found = await one(gw, "semanticSearchCode", {"query": "retry later", "path": "."})
    install = 'pip install "octo-gateway[semantic]"'
    assert any(install in hint for hint in built["hints"]), built["hints"]
    assert any(install in hint for hint in found["hints"]), found["hints"]
    assert not any("waitForEmbeddings" in hint for hint in built["hints"] + found["hints"])


async def test_keyword_matching_is_no_oracle(
    gateway: Gateway, tree: Path, fake_embeddings: FakeEmbeddings
) -> None:
    # Issue 31: the index holds redacted text only, so a guessed prefix of a hidden token
    # answers as a wrong one does.
    await index(gateway, tree, waitForEmbeddings=True)
    right, wrong = GITHUB_TOKEN[:12], GITHUB_TOKEN[:8] + "zzzz"
    for probe in (right, wrong, GITHUB_TOKEN):
        answer = await search(gateway, probe, limit=50)
        # Vectors rank every chunk; no chunk matches the probe by its words.
        matched = [hit for hit in answer["data"]["results"] if hit["matchType"] != "semantic"]
        assert matched == [], probe
        assert GITHUB_TOKEN not in str(answer)
