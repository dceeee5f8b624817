"""The LSP pool's resident memory with the Python, TypeScript and PHP fixtures open at once,
as the pool measures it for OCTO_LSP_MEMORY (each server's process tree, from /proc).

Run: .venv/bin/python benchmarks/bench_lsp_memory.py
(npm servers: .ci/run installs them into .ci/lsp; OCTO_LSP_PATH may point elsewhere.)
Prints each server's resident size, the pool's total, and the total as a share of the
default budget (a quarter of the machine's memory, at most 4 GB) and of octo's own size.
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from octo import Gateway
from octo.core.config import Config
from octo.lsp.servers.running.memory import default_budget
from octo.lsp.servers.running.memory import megabytes
from octo.lsp.servers.running.memory import resident_sizes
from octo.lsp.servers.running.pool import LspPool

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "lsp" / "fixtures"
NPM_BIN = FIXTURES.parent.parent.parent / ".ci" / "lsp" / "node_modules" / ".bin"
OPENED = {
    "py_project": "main.py",
    "ts_project": "app.ts",
    "php_project": "Shapes.php",
}


def _own_resident() -> int:
    statm = Path("/proc/self/statm").read_text().split()
    return int(statm[1]) * os.sysconf("SC_PAGE_SIZE")


async def main() -> None:
    env = dict(os.environ)
    env["OCTO_LSP_PATH"] = os.pathsep.join(p for p in (env.get("OCTO_LSP_PATH"), str(NPM_BIN)) if p)
    roots = [FIXTURES / name for name in OPENED]
    async with Gateway(Config.from_env(env), roots=roots) as gw:
        for folder, name in OPENED.items():
            result = await gw.lsp_document_symbols([{"uri": str(FIXTURES / folder / name)}])
            status = result.results[0].status.value
            print(f"{folder}/{name}: {status}")
        pool = gw.runtime.backend(LspPool)
        live = [slot for slot in pool.live() if slot.client and slot.client.pid]
        sizes = resident_sizes(slot.client.pid for slot in live if slot.client and slot.client.pid)
        total = 0
        for slot in live:
            assert slot.client is not None and slot.client.pid is not None
            size = sizes.get(slot.client.pid, 0)
            total += size
            print(f"{slot.server_id:28} {megabytes(size):>8}")
        budget = default_budget()
        own = _own_resident()
        print(f"{'pool total':28} {megabytes(total):>8}")
        print(f"total / default budget ({megabytes(budget)}): {total / budget:.2f}")
        print(f"total / octo's own resident size ({megabytes(own)}): {total / own:.2f}")


if __name__ == "__main__":
    anyio.run(main)
