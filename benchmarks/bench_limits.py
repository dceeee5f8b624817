"""Memory under hostile answers: the peak RSS of `octo serve` in each case the issue names,
each on a fresh server (target: under 512 MB).

- a host streaming a 1 GiB body without saying its length (so only reading tells): a GitHub
  file, a GitLab file, npm package metadata (a local server plays the host,
  tests/limits/hostile_server.py);
- a language server announcing a 4,000,000,000-byte message, and one answering with a
  million locations (tests/lsp/fake_server.py);
- a search whose only file is one 200 MB line, with OCTO_RG_MAX_FILESIZE=200M, with and
  without OCTO_RG_TIMEOUT_MS=30000;
- five default reads of large files in one call: the answer's size (before: 106 KB).

Run: ``.venv/bin/python benchmarks/bench_limits.py`` (Linux: RSS is read from /proc).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.http_serving import peak_rss_mb  # noqa: E402
from tests.http_serving import serving_http  # noqa: E402
from tests.limits.hostile_server import HostileServer  # noqa: E402
from tests.lsp.conftest import FAKE_SERVER  # noqa: E402
from tests.lsp.conftest import SOURCE  # noqa: E402

DEFINITION = {"uri": "mod.py", "symbolName": "target", "lineHint": 5}


async def serve_and_call(
    env: dict[str, str], tool: str, queries: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], float, float, int]:
    """Start `octo serve --http` with ``env``, make one call; its rows, the server's peak RSS,
    the seconds the call took and the size of its answer."""
    async with serving_http({**os.environ, **env}) as (url, server):
        async with Client(url) as client:
            started = time.perf_counter()
            result = await client.call_tool(tool, {"queries": queries})
            seconds = time.perf_counter() - started
        assert result.structured_content is not None, result
        rows: list[dict[str, Any]] = result.structured_content["results"]
        size = len(json.dumps(result.structured_content, separators=(",", ":")))
        return rows, peak_rss_mb(server.pid), seconds, size


def outcome(rows: list[dict[str, Any]]) -> str:
    return ", ".join(
        (row["error"]["code"] if row["status"] == "error" else row["status"])
        + (" partial" if row.get("partial") else "")
        for row in rows
    )


async def main() -> None:
    host = HostileServer().start()
    work = Path(tempfile.mkdtemp(prefix="octo-limits-"))
    (work / "pyproject.toml").touch()
    (work / "mod.py").write_text(SOURCE)
    line = work / "line"
    line.mkdir()
    with (line / "data.json").open("w") as out:
        out.write("[")
        for _ in range(100):
            out.write("1," * 1_000_000)
        out.write('"needle"]\n')
    reads = work / "reads"
    reads.mkdir()
    for index in range(5):
        rows = (f"line {n} of file {index}: " + "x" * 60 for n in range(4000))
        (reads / f"big{index}.txt").write_text("\n".join(rows) + "\n")

    remote = {
        "GITHUB_API_URL": host.url,
        "GITLAB_HOST": f"{host.url}/api/v4",
        "OCTO_NPM_REGISTRY": f"{host.url}/npm/",
        "OCTO_ROOTS": str(work),
    }
    fake = f"{sys.executable} {FAKE_SERVER}"
    cases: list[tuple[str, dict[str, str], str, list[dict[str, Any]]]] = [
        (
            "GitHub file, 1 GiB body streamed without a length",
            remote,
            "githubGetFileContent",
            [{"owner": "o", "repo": "r", "path": "unsized.txt"}],
        ),
        (
            "GitLab file, 1 GiB body streamed without a length",
            remote,
            "githubGetFileContent",
            [{"provider": "gitlab", "owner": "o", "repo": "r", "path": "unsized.txt"}],
        ),
        (
            "npm package metadata, 1 GiB body streamed without a length",
            remote,
            "packageSearch",
            [{"name": "unsized", "ecosystem": "npm", "npmFetchMetadata": True}],
        ),
        (
            "language server sending Content-Length: 4000000000",
            {"OCTO_ROOTS": str(work), "OCTO_LSP_PYTHON_COMMAND": f"{fake} huge-message"},
            "lspGotoDefinition",
            [DEFINITION],
        ),
        (
            "language server answering a million locations",
            {"OCTO_ROOTS": str(work), "OCTO_LSP_PYTHON_COMMAND": f"{fake} million-references"},
            "lspFindReferences",
            [DEFINITION],
        ),
        (
            "search of one 200 MB line",
            {"OCTO_ROOTS": str(line), "OCTO_RG_MAX_FILESIZE": "200M"},
            "localSearchCode",
            [{"pattern": "needle", "path": "."}],
        ),
        (
            "search of one 200 MB line, OCTO_RG_TIMEOUT_MS=30000",
            {
                "OCTO_ROOTS": str(line),
                "OCTO_RG_MAX_FILESIZE": "200M",
                "OCTO_RG_TIMEOUT_MS": "30000",
            },
            "localSearchCode",
            [{"pattern": "needle", "path": "."}],
        ),
        (
            "five default reads of large files in one call",
            {"OCTO_ROOTS": str(reads)},
            "localGetFileContent",
            [{"path": f"big{index}.txt"} for index in range(5)],
        ),
    ]
    try:
        for name, env, tool, queries in cases:
            rows, rss, seconds, size = await serve_and_call(env, tool, queries)
            print(
                f"{name}: {outcome(rows)}; peak RSS {rss:.0f} MB (target < 512 MB); "
                f"answer {size / 1024:.1f} KB in {seconds:.1f} s"
            )
    finally:
        host.stop()


if __name__ == "__main__":
    anyio.run(main)
