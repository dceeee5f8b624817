"""The extractor, run as githubCloneRepo runs it (a child process), refuses archives built to
attack it, each with a clear error, and leaves nothing behind: no work folder, nothing
outside the clone folder, no child process."""

from __future__ import annotations

import os
import tarfile
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from octo.codehosts.clone.extract import FOLDER_BYTES
from octo.codehosts.clone.extract import MAX_DEPTH
from octo.codehosts.clone.extract import Caps
from octo.codehosts.clone.extract import Extracted
from octo.codehosts.clone.unpack import UnsafeArchiveError
from octo.codehosts.clone.unpack import unpack
from octo.core.errors import FileTooLargeError
from octo.core.errors import InvalidResponseError
from octo.lsp.servers.wire.client import UNTRUSTED_OPTIONS
from octo.lsp.servers.wire.process import server_environment
from octo.transports.processes import running
from tests.codehosts.clone.archives import PROJECT
from tests.codehosts.clone.archives import TOP
from tests.codehosts.clone.archives import bomb
from tests.codehosts.clone.archives import build
from tests.codehosts.clone.archives import extended
from tests.codehosts.clone.archives import grinding
from tests.codehosts.clone.archives import header
from tests.codehosts.clone.archives import member
from tests.codehosts.clone.archives import raw
from tests.codehosts.clone.archives import special

CAPS = Caps(max_bytes=10 * 1024 * 1024, max_files=1000)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The clone folder, inside a sandbox whose other contents must stay untouched."""
    (tmp_path / "outside.txt").write_text("keep me\n")
    clones = tmp_path / "clones"
    clones.mkdir()
    return clones


async def extract(
    data: bytes, target: Path, *, caps: Caps = CAPS, sparse_path: str | None = None
) -> Extracted:
    """``data`` written beside the clone folder, extracted into ``target`` by the child."""
    archive = target.parent.parent / "archive.tar.gz"
    archive.write_bytes(data)
    try:
        return await unpack(archive, target, caps=caps, sparse_path=sparse_path, env=os.environ)
    finally:
        archive.unlink()


def names(folder: Path, *, deep: bool = False) -> list[str]:
    """What ``folder`` holds: its names, or (``deep``) every path below it."""
    if deep:
        return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
    return sorted(p.name for p in folder.iterdir())


def modes(folder: Path, *, files_only: bool = False) -> set[int]:
    """The permission bits of everything below ``folder`` (of its files only)."""
    return {p.stat().st_mode & 0o777 for p in folder.rglob("*") if p.is_file() or not files_only}


async def until(condition: Callable[[], bool]) -> None:
    """Wait (in small steps, no deadline of its own) until ``condition`` holds."""
    while True:
        if condition():
            return
        await anyio.sleep(0.01)


def _untouched(folder: Path) -> None:
    sandbox = folder.parent
    assert sorted(p.name for p in sandbox.iterdir()) == ["clones", "outside.txt"]
    assert (sandbox / "outside.txt").read_text() == "keep me\n"
    assert list(folder.iterdir()) == []


async def test_an_honest_archive_is_extracted_owner_only(folder: Path) -> None:
    done = await extract(build(), folder / "c")
    assert done.files == len(PROJECT) and done.entries == len(PROJECT) + 2  # pkg, docs
    assert done.size >= sum(len(v) for v in PROJECT.values()) + 2 * FOLDER_BYTES
    assert (folder / "c" / "pkg" / "shapes.py").read_text().startswith("def area_of_square")
    assert modes(folder / "c") == {0o400, 0o700}
    assert names(folder) == ["c"]


async def test_dependencies_are_left_out_and_nothing_is_executable(folder: Path) -> None:
    files = {
        **PROJECT,
        "node_modules/typescript/lib/tsserver.js": "evil()",
        ".venv/bin/python": "x",
    }
    await extract(build(files), folder / "c")
    assert not (folder / "c" / "node_modules").exists() and not (folder / "c" / ".venv").exists()
    assert modes(folder / "c", files_only=True) == {0o400}


async def test_sparse_path_keeps_only_that_folder(folder: Path) -> None:
    done = await extract(build(), folder / "c", sparse_path="pkg")
    assert names(folder / "c", deep=True) == [
        "pkg",
        "pkg/__init__.py",
        "pkg/shapes.py",
        "pkg/use.py",
    ]
    assert done.files == 3


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        (special("/etc/evil", tarfile.REGTYPE), "absolute path"),
        (special(f"{TOP}/../../evil", tarfile.REGTYPE), "'..'"),
        (special(f"{TOP}/up", tarfile.SYMTYPE, "../../outside.txt"), "links outside"),
        (special(f"{TOP}/abs", tarfile.SYMTYPE, "/etc/passwd"), "absolute path"),
        (special(f"{TOP}/hard", tarfile.LNKTYPE, "../outside.txt"), "links outside"),
        (special(f"{TOP}/dev", tarfile.CHRTYPE), "device"),
        (special(f"{TOP}/fifo", tarfile.FIFOTYPE), "device, FIFO"),
        (special(f"{TOP}/" + "d/" * 1500 + "f", tarfile.REGTYPE), "folders deep"),
        (special(f"{TOP}/" + "n" * 300, tarfile.REGTYPE), "name longer than 255 bytes"),
        (special("elsewhere/a.txt", tarfile.REGTYPE), "outside the archive's top folder"),
    ],
    ids=[
        "absolute",
        "dotdot",
        "symlink-out",
        "symlink-abs",
        "hardlink-out",
        "device",
        "fifo",
        "1500-deep",
        "long-name",
        "second-top",
    ],
)
async def test_an_unsafe_entry_refuses_the_whole_archive(
    folder: Path, entry: tarfile.TarInfo, said: str
) -> None:
    with pytest.raises(UnsafeArchiveError) as refused:
        await extract(build(extra=[entry]), folder / "c")
    assert said in refused.value.message
    assert "nothing was extracted" in refused.value.message
    _untouched(folder)


async def test_a_path_deeper_than_the_cap_is_refused_not_a_recursion_error(folder: Path) -> None:
    deep = {"/".join(["d"] * (MAX_DEPTH + 1)): "x"}
    with pytest.raises(UnsafeArchiveError, match="folders deep"):
        await extract(build(deep), folder / "c")
    _untouched(folder)


async def test_a_loop_of_links_is_refused(folder: Path) -> None:
    loop = [
        special(f"{TOP}/a", tarfile.SYMTYPE, "b"),
        special(f"{TOP}/b", tarfile.SYMTYPE, "a"),
    ]
    with pytest.raises(UnsafeArchiveError, match="loop of symbolic links"):
        await extract(build(extra=loop), folder / "c")
    _untouched(folder)


async def test_an_archive_without_a_top_folder_says_what_it_held(folder: Path) -> None:
    with pytest.raises(UnsafeArchiveError, match=r"'README\.md' lies outside the archive's top"):
        await extract(build(top=None), folder / "c")
    with pytest.raises(InvalidResponseError, match="holds no entries"):
        await extract(raw(), folder / "c")
    _untouched(folder)


async def test_a_chain_of_links_pointing_out_is_refused(folder: Path) -> None:
    """Each link looks inside on its own; followed through the first, the second leaves."""
    chain = [
        special(f"{TOP}/a", tarfile.SYMTYPE, "."),
        special(f"{TOP}/b", tarfile.SYMTYPE, "a/a/a/../../../outside.txt"),
    ]
    with pytest.raises(UnsafeArchiveError):
        await extract(build(extra=chain), folder / "c")
    _untouched(folder)


async def test_an_entry_written_through_a_link_is_refused(folder: Path) -> None:
    entries = [
        special(f"{TOP}/a", tarfile.SYMTYPE, "."),
        special(f"{TOP}/a/x", tarfile.REGTYPE),
    ]
    with pytest.raises(UnsafeArchiveError, match="through a link"):
        await extract(build(extra=entries), folder / "c")
    _untouched(folder)


async def test_a_tar_bomb_over_the_byte_cap_names_the_cap(folder: Path) -> None:
    with pytest.raises(FileTooLargeError) as refused:
        await extract(
            bomb(4, 1024 * 1024), folder / "c", caps=Caps(max_bytes=3 * 1024**2, max_files=10)
        )
    assert "OCTO_CLONE_MAX_BYTES" in refused.value.message
    _untouched(folder)


async def test_too_many_files_names_the_cap(folder: Path) -> None:
    with pytest.raises(FileTooLargeError) as refused:
        await extract(bomb(30, 1), folder / "c", caps=Caps(max_bytes=10**6, max_files=20))
    assert "OCTO_CLONE_MAX_FILES" in refused.value.message
    _untouched(folder)


async def test_folders_count_as_entries_and_as_bytes(folder: Path) -> None:
    """Empty folders are entries and take disk: 200 of them pass neither cap unseen."""
    folders = [member(f"{TOP}/d{i}", kind=tarfile.DIRTYPE) for i in range(200)]
    with pytest.raises(FileTooLargeError, match="OCTO_CLONE_MAX_FILES"):
        await extract(raw(*folders), folder / "c", caps=Caps(max_bytes=10**9, max_files=100))
    with pytest.raises(FileTooLargeError, match="OCTO_CLONE_MAX_BYTES"):
        await extract(
            raw(*folders), folder / "c", caps=Caps(max_bytes=100 * FOLDER_BYTES, max_files=10**6)
        )
    _untouched(folder)


@pytest.mark.parametrize(
    "blocks",
    [
        # 256 KiB of digits: this Python's PAX parser froze the interpreter for 37 s.
        [extended(tarfile.XHDTYPE, b"9" * (256 * 1024))],
        # A GNU long name said to be 256 MiB (tarfile read all of it into memory).
        [header("././@LongLink", tarfile.GNUTYPE_LONGNAME, 256 * 1024 * 1024)],
        [header("././@LongLink", tarfile.GNUTYPE_LONGLINK, 256 * 1024 * 1024)],
    ],
    ids=["pax-256k", "longname-256m", "longlink-256m"],
)
async def test_an_oversized_extended_header_is_refused_before_it_is_read(
    folder: Path, blocks: list[bytes]
) -> None:
    archive = raw(member(TOP, kind=tarfile.DIRTYPE), *blocks, member(f"{TOP}/a"))
    with pytest.raises(UnsafeArchiveError, match="extended header of"):
        await extract(archive, folder / "c")
    _untouched(folder)


async def test_global_headers_are_capped_together(folder: Path) -> None:
    """Each global header under the cap, but many: tarfile would apply them all again to
    every later entry (quadratic) and keep them all (memory)."""
    value = b"a" * 4000
    record = b"4008 k=" + value + b"\n"
    archive = raw(
        member(TOP, kind=tarfile.DIRTYPE),
        *(extended(tarfile.XGLTYPE, record) + member(f"{TOP}/f{i}") for i in range(100)),
    )
    with pytest.raises(UnsafeArchiveError, match="global headers over"):
        await extract(archive, folder / "c")
    _untouched(folder)


async def test_extended_header_bytes_count_against_the_byte_cap(folder: Path) -> None:
    with pytest.raises(FileTooLargeError, match="OCTO_CLONE_MAX_BYTES"):
        await extract(grinding(3), folder / "c", caps=Caps(max_bytes=10_000, max_files=100))
    _untouched(folder)


async def test_a_cut_archive_is_an_invalid_response(folder: Path) -> None:
    data = build()
    with pytest.raises(InvalidResponseError, match="could not be read"):
        await extract(data[: len(data) // 2], folder / "c")
    _untouched(folder)


async def test_a_cancelled_extraction_kills_its_child_and_leaves_no_folder(folder: Path) -> None:
    """Cancelled (the query's deadline) while the child grinds, the child is killed and its
    work folder removed."""
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(extract, grinding(3_000), folder / "c")
            await until(lambda: bool(names(folder)))
            assert running()["extract"] == 1
            scope.cancel()
    await until(lambda: not running().get("extract") and not names(folder))
    _untouched(folder)


def test_servers_on_a_clone_run_nothing_of_it() -> None:
    """What a language server started on a clone gets: gopls's go command stays on the local
    toolchain, offline, without cgo; rust-analyzer runs no build script nor proc macro."""
    env = server_environment({"PATH": "/usr/bin", "GOTOOLCHAIN": "auto"}, untrusted=True)
    assert env["GOTOOLCHAIN"] == "local" and env["GOPROXY"] == "off"
    assert env["CGO_ENABLED"] == "0"
    assert "GOPROXY" not in server_environment({"PATH": "/usr/bin"})
    assert UNTRUSTED_OPTIONS["cargo"] == {"buildScripts": {"enable": False}}
    assert UNTRUSTED_OPTIONS["procMacro"] == {"enable": False}
