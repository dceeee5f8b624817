"""The extractor refuses archives built to attack it, each with a clear error, and leaves
nothing behind: no target, no temporary folder, nothing outside the clone folder."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest

from octo.codehosts.clone.extract import Caps
from octo.codehosts.clone.extract import UnsafeArchiveError
from octo.codehosts.clone.extract import extract
from octo.core.errors import FileTooLargeError
from octo.core.errors import InvalidResponseError
from octo.lsp.servers.client import UNTRUSTED_OPTIONS
from octo.lsp.servers.process import server_environment
from tests.codehosts.clone.archives import PROJECT
from tests.codehosts.clone.archives import TOP
from tests.codehosts.clone.archives import bomb
from tests.codehosts.clone.archives import build
from tests.codehosts.clone.archives import special

CAPS = Caps(max_bytes=10 * 1024 * 1024, max_files=1000)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The clone folder, inside a sandbox whose other contents must stay untouched."""
    (tmp_path / "outside.txt").write_text("keep me\n")
    clones = tmp_path / "clones"
    clones.mkdir()
    return clones


def _untouched(folder: Path) -> None:
    sandbox = folder.parent
    assert sorted(p.name for p in sandbox.iterdir()) == ["clones", "outside.txt"]
    assert (sandbox / "outside.txt").read_text() == "keep me\n"
    assert list(folder.iterdir()) == []


def test_an_honest_archive_is_extracted_read_only(folder: Path) -> None:
    done = extract(build(), folder / "c", caps=CAPS)
    assert done.files == len(PROJECT)
    assert done.size == sum(len(v) for v in PROJECT.values())
    assert (folder / "c" / "pkg" / "shapes.py").read_text().startswith("def area_of_square")
    assert not os.access(folder / "c" / "pkg" / "shapes.py", os.W_OK) or os.geteuid() == 0
    assert [p.name for p in folder.iterdir()] == ["c"]


def test_dependencies_are_left_out_and_nothing_is_executable(folder: Path) -> None:
    files = {
        **PROJECT,
        "node_modules/typescript/lib/tsserver.js": "evil()",
        ".venv/bin/python": "x",
    }
    extract(build(files), folder / "c", caps=CAPS)
    assert not (folder / "c" / "node_modules").exists() and not (folder / "c" / ".venv").exists()
    modes = {p.stat().st_mode & 0o777 for p in (folder / "c").rglob("*") if p.is_file()}
    assert modes == {0o444}


def test_sparse_path_keeps_only_that_folder(folder: Path) -> None:
    done = extract(build(), folder / "c", caps=CAPS, sparse_path="pkg")
    names = sorted(str(p.relative_to(folder / "c")) for p in (folder / "c").rglob("*"))
    assert names == ["pkg", "pkg/__init__.py", "pkg/shapes.py", "pkg/use.py"]
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
    ],
    ids=["absolute", "dotdot", "symlink-out", "symlink-abs", "hardlink-out", "device", "fifo"],
)
def test_an_unsafe_entry_refuses_the_whole_archive(
    folder: Path, entry: tarfile.TarInfo, said: str
) -> None:
    with pytest.raises(UnsafeArchiveError) as refused:
        extract(build(extra=[entry]), folder / "c", caps=CAPS)
    assert said in refused.value.message
    assert "nothing was extracted" in refused.value.message
    _untouched(folder)


def test_a_chain_of_links_pointing_out_is_refused(folder: Path) -> None:
    """Each link looks inside on its own; followed through the first, the second leaves."""
    chain = [
        special(f"{TOP}/a", tarfile.SYMTYPE, "."),
        special(f"{TOP}/b", tarfile.SYMTYPE, "a/a/a/../../../outside.txt"),
    ]
    with pytest.raises(UnsafeArchiveError):
        extract(build(extra=chain), folder / "c", caps=CAPS)
    _untouched(folder)


def test_an_entry_written_through_a_link_is_refused(folder: Path) -> None:
    entries = [
        special(f"{TOP}/a", tarfile.SYMTYPE, "."),
        special(f"{TOP}/a/x", tarfile.REGTYPE),
    ]
    with pytest.raises(UnsafeArchiveError, match="through a link"):
        extract(build(extra=entries), folder / "c", caps=CAPS)
    _untouched(folder)


def test_a_tar_bomb_over_the_byte_cap_names_the_cap(folder: Path) -> None:
    with pytest.raises(FileTooLargeError) as refused:
        extract(bomb(4, 1024 * 1024), folder / "c", caps=Caps(max_bytes=3 * 1024**2, max_files=10))
    assert "OCTO_CLONE_MAX_BYTES" in refused.value.message
    _untouched(folder)


def test_too_many_files_names_the_cap(folder: Path) -> None:
    with pytest.raises(FileTooLargeError) as refused:
        extract(bomb(30, 1), folder / "c", caps=Caps(max_bytes=10**6, max_files=20))
    assert "OCTO_CLONE_MAX_FILES" in refused.value.message
    _untouched(folder)


def test_a_cut_archive_is_an_invalid_response(folder: Path) -> None:
    data = build()
    with pytest.raises(InvalidResponseError, match="could not be read"):
        extract(data[: len(data) // 2], folder / "c", caps=CAPS)
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
