"""Inputs the fuzz tests found that broke a tool, one test per fix: each stays answered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from octo import Config
from octo import Gateway
from octo.core.concurrency import RankedLimiter
from octo.core.envelope import QueryStatus
from octo.core.errors import ErrorCode
from octo.core.errors import InvalidQueryError
from octo.core.files.paths import PathPolicy
from octo.transports.ripgrep import RgPlace
from octo.transports.ripgrep import run_rg

#: A place in a queue of rg processes of its own, as a runtime would give it.
PLACE = RgPlace(RankedLimiter(4), None)


@pytest.mark.parametrize("raw", ["loop", "loop/inner.py", "~nosuchuser-octo/x", "a/" * 3000])
def test_unresolvable_paths_are_invalid_queries(tmp_path: Path, raw: str) -> None:
    # pathlib raised RuntimeError (symlink loop, unknown ~user) or OSError (path too long).
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(InvalidQueryError, match="cannot be resolved") as info:
        PathPolicy([tmp_path]).resolve(raw)
    assert info.value.hints
    assert len(info.value.message) < 200


@pytest.mark.parametrize(
    ("arg", "message"),
    [("a\0b", "NUL character"), ("x" * 200_000, "too long for ripgrep")],
)
async def test_arguments_no_program_can_receive_are_invalid_queries(
    tmp_path: Path, arg: str, message: str
) -> None:
    # subprocess raised ValueError (NUL) or OSError E2BIG (one argument over 128 KiB).
    with pytest.raises(InvalidQueryError, match=message) as info:
        await run_rg(["--", arg, "."], place=PLACE, cwd=tmp_path, timeout_ms=5000)
    assert info.value.hints


async def test_too_many_long_globs_together_are_an_invalid_query(tmp_path: Path) -> None:
    # Each glob fits, but together they pass the kernel's limit on all arguments.
    globs = [f"--glob={'g' * 100_000}{i}" for i in range(100)]
    with pytest.raises(InvalidQueryError, match="together are too long"):
        await run_rg([*globs, "x", "."], place=PLACE, cwd=tmp_path, timeout_ms=5000)


@pytest.mark.parametrize(
    "query",
    [
        {"path": ".", "mainResearchGoal": "\ud800"},
        {"path": ".", "excludeDir": ["\udfff"]},
        {"path": ".", "modifiedWithin": "\ud800"},
    ],
)
async def test_lone_surrogates_are_validation_errors_and_the_answer_stays_json(
    tmp_path: Path, query: dict[str, object]
) -> None:
    # JSON can carry "\ud800"; it reached rg's argv and the echo, and the answer was not JSON.
    async with Gateway(config=Config(), roots=[tmp_path]) as gateway:
        response = await gateway.call("localFindFiles", [query, {"path": "."}])
    [bad, good] = response.results
    assert bad.error is not None and bad.error.code is ErrorCode.VALIDATION_ERROR
    assert "lone surrogate" in bad.error.message
    assert good.status is QueryStatus.EMPTY
    assert json.loads(response.to_compact_json())["results"][0]["status"] == "error"


@pytest.mark.parametrize(
    ("tool", "query"),
    [
        ("githubGetFileContent", {"owner": "o", "repo": "r", "path": "x" * 100_000}),
        ("githubSearchRepositories", {"topicsToSearch": ["x" * 100_000]}),
    ],
)
async def test_a_query_too_long_for_a_url_is_an_invalid_query(
    tool: str, query: dict[str, object]
) -> None:
    # httpx raised InvalidURL (not a TransportError) while sending: an INTERNAL_ERROR.
    env = {"GITHUB_API_URL": "http://127.0.0.1:9/", "GITHUB_TOKEN": "test-token-not-real"}
    async with Gateway(config=Config.from_env(env)) as gateway:
        response = await gateway.call(tool, [query])
    [envelope] = response.results
    assert envelope.error is not None
    assert envelope.error.code is ErrorCode.INVALID_QUERY
    assert "does not fit" in envelope.error.message
    assert envelope.hints


@pytest.mark.parametrize("symbol", [".", "..", "config.", " "])
async def test_a_symbol_name_with_no_name_after_its_last_dot_is_a_validation_error(
    tmp_path: Path, symbol: str
) -> None:
    # The empty name matched at each line's end and indexed past the line: IndexError.
    (tmp_path / "app.py").write_text("def load_config():\n    pass\n")
    async with Gateway(config=Config(), roots=[tmp_path]) as gateway:
        response = await gateway.call(
            "lspGotoDefinition", [{"uri": "app.py", "symbolName": symbol, "lineHint": 1}]
        )
    [envelope] = response.results
    assert envelope.error is not None
    assert envelope.error.code is ErrorCode.VALIDATION_ERROR
    assert envelope.error.message.startswith("symbolName: ")


@pytest.mark.parametrize("globs", [{"include": ["["]}, {"exclude": ["\\"]}])
async def test_a_glob_ripgrep_rejects_gets_a_hint(tmp_path: Path, globs: dict[str, object]) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    async with Gateway(config=Config(), roots=[tmp_path]) as gateway:
        response = await gateway.call("localSearchCode", [{"pattern": "x", "path": ".", **globs}])
    [envelope] = response.results
    assert envelope.error is not None
    assert envelope.error.code is ErrorCode.INVALID_QUERY
    assert any("globs" in hint for hint in envelope.hints)


@pytest.mark.parametrize(
    ("tool", "listed"), [("localFindFiles", "files"), ("localViewStructure", "entries")]
)
async def test_a_file_name_with_a_line_break_is_listed_whole(
    tmp_path: Path, tool: str, listed: str
) -> None:
    # rg --files printed one name per line, so "two\nlines.py" became two names (and was lost).
    (tmp_path / "two\nlines.py").write_text("x = 1\n")
    (tmp_path / "two").write_text("x = 2\n")
    async with Gateway(config=Config(), roots=[tmp_path]) as gateway:
        response = await gateway.call(tool, [{"path": "."}])
    data = response.to_wire()["results"][0]["data"]
    names = sorted(entry.get("path", entry.get("name")) for entry in data[listed])
    assert names == ["two", "two\nlines.py"]
