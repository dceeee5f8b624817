"""Content handles of `octo call` survive the process: the next `octo call` reads them from a
private folder under the user's cache directory, for the same time and under the same roots."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from octo.core.handles import Origin
from octo.core.shared.disk_handles import DiskHandleStore


def _octo(tree: Path, cache: Path, *args: str) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OCTO_", "XDG_"))}
    env.update(XDG_CACHE_HOME=str(cache), OCTO_MAX_TOKENS="300")
    done = subprocess.run(
        [sys.executable, "-m", "octo", "call", *args, "--json"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=tree,
        timeout=60,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: every query failed
    [result] = json.loads(done.stdout)["results"]
    assert isinstance(result, dict)
    return result


@pytest.mark.slow
def test_a_handle_from_one_call_is_read_by_the_next(tmp_path: Path) -> None:
    tree, cache, other = tmp_path / "tree", tmp_path / "cache", tmp_path / "other"
    tree.mkdir()
    other.mkdir()
    (tree / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 3001)))
    cut = _octo(tree, cache, "localGetFileContent", "-q", '{"path":"big.txt"}')
    data = cut["data"]
    assert isinstance(data, dict)
    handle = data["contentHandle"]
    query = json.dumps({"handle": handle, "page": 2})
    page = _octo(tree, cache, "getCachedContent", "-q", query)
    assert page["status"] == "success"
    assert isinstance(page["data"], dict) and page["data"]["content"].startswith("line ")
    elsewhere = _octo(tree, cache, "getCachedContent", "--root", str(other), "-q", query)
    assert elsewhere["status"] == "error"
    folder = cache / "octo" / "handles"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    [record] = folder.iterdir()
    assert stat.S_IMODE(record.stat().st_mode) == 0o600


async def test_an_expired_handle_keeps_its_origin_and_odd_names_find_nothing(
    tmp_path: Path,
) -> None:
    now = [1000.0]
    store = DiskHandleStore(tmp_path / "handles", 60, max_entries=2, clock=lambda: now[0])
    origin = Origin("localGetFileContent", {"path": "a.txt"}, (str(tmp_path),), "caller")
    first = await store.put("first", origin)
    found = await store.get(first)
    assert found is not None and found.content == "first" and found.origin == origin
    now[0] += 61
    expired = await store.get(first)
    assert expired is not None and expired.content is None and expired.origin == origin
    assert await store.get("../../etc/passwd") is None
    for text in ("second", "third"):
        await store.put(text, origin)
    assert len(list((tmp_path / "handles").glob("*.json"))) == 2  # the oldest went first


async def test_a_planted_link_in_place_of_the_folder_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o755)
    elsewhere.chmod(0o755)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "handles").symlink_to(elsewhere)
    store = DiskHandleStore(tmp_path / "cache" / "handles", 60)
    origin = Origin("localGetFileContent", {"path": "a.txt"}, (str(tmp_path),), "caller")
    handle = await store.put("kept", origin)
    assert list(elsewhere.iterdir()) == []
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o755
    found = await store.get(handle)  # kept in this process instead
    assert found is not None and found.content == "kept"


async def test_records_are_capped_in_bytes_too(tmp_path: Path) -> None:
    folder = tmp_path / "handles"
    store = DiskHandleStore(folder, 60, max_bytes=5000)
    origin = Origin("localGetFileContent", {"path": "a.txt"}, (str(tmp_path),), "caller")
    handles = [await store.put(str(n) * 1500, origin) for n in range(6)]
    sizes = [record.stat().st_size for record in folder.glob("*.json")]
    assert 0 < len(sizes) < 6 and sum(sizes) <= 5000
    newest = await store.get(handles[-1])
    assert newest is not None and newest.content == "5" * 1500
    huge = await store.put("x" * 6000, origin)  # beyond the cap alone: kept in this process
    assert sum(record.stat().st_size for record in folder.glob("*.json")) <= 5000
    found = await store.get(huge)
    assert found is not None and found.content == "x" * 6000
