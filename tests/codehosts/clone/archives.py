"""Tar archives built as GitHub and GitLab serve them (one top folder, a pax global header
holding the commit), honest ones and ones built to attack the extractor."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Iterable
from collections.abc import Mapping

from octo.codehosts.clone.extract import MAX_HEADER_BYTES

SHA = "0123456789abcdef0123456789abcdef01234567"
TOP = f"o-r-{SHA[:7]}"

#: A small Python project: a definition in one module, its use in another.
PROJECT = {
    "README.md": "# r\n\nA tiny project for clone tests.\n",
    "pkg/__init__.py": "",
    "pkg/shapes.py": "def area_of_square(side: float) -> float:\n    return side * side\n",
    "pkg/use.py": (
        "from pkg.shapes import area_of_square\n\n\n"
        "def total() -> float:\n    return area_of_square(2.0) + area_of_square(3.0)\n"
    ),
    "docs/guide.md": "How to compute area_of_square.\n",
}


def _file(name: str, data: bytes, mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    return info, data


def special(name: str, kind: bytes, linkname: str = "", size: int = 0) -> tarfile.TarInfo:
    """An entry of another type: a link (SYMTYPE, LNKTYPE), a device (CHRTYPE), a FIFO."""
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = kind, linkname, size
    return info


def build(
    files: Mapping[str, str | bytes] = PROJECT,
    *,
    extra: Iterable[tarfile.TarInfo] = (),
    top: str | None = TOP,
) -> bytes:
    """A gzipped tar of ``files`` under ``top`` (with GitHub's pax header), then ``extra``
    entries written as they are (their names unprefixed)."""
    out = io.BytesIO()
    with tarfile.open(
        fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT, pax_headers={"comment": SHA}
    ) as tar:
        if top is not None:
            folder = tarfile.TarInfo(f"{top}/")
            folder.type, folder.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(folder)
        for name, content in files.items():
            data = content.encode() if isinstance(content, str) else content
            info, body = _file(f"{top}/{name}" if top else name, data)
            tar.addfile(info, io.BytesIO(body))
        for info in extra:
            tar.addfile(info, io.BytesIO(b"\0" * info.size) if info.isfile() else None)
    return out.getvalue()


def bomb(files: int, size: int) -> bytes:
    """``files`` files of ``size`` zero bytes each: compresses to almost nothing."""
    zeros = b"\0" * size
    return build({f"f{i}.bin": zeros for i in range(files)})


def header(name: str, kind: bytes, size: int) -> bytes:
    """One raw ustar header block of ``kind`` saying ``size`` bytes follow (what a hostile
    archive claims, whatever it then holds)."""
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, size
    return info.tobuf(format=tarfile.USTAR_FORMAT)


def extended(kind: bytes, payload: bytes) -> bytes:
    """An extended header (PAX ``x``, GNU long name ``L``) holding ``payload``, padded."""
    return header("././@LongLink", kind, len(payload)) + payload + b"\0" * (-len(payload) % 512)


def raw(*blocks: bytes) -> bytes:
    """Raw tar blocks, the end-of-archive marker appended, gzipped (level 1: big payloads
    of one byte repeated pack fast and small)."""
    return gzip.compress(b"".join(blocks) + b"\0" * 1024, compresslevel=1)


def member(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE) -> bytes:
    """An entry (a regular file unless ``kind`` says otherwise), as raw blocks."""
    info = tarfile.TarInfo(name)
    info.size, info.type = len(data), kind
    return info.tobuf(format=tarfile.USTAR_FORMAT) + data + b"\0" * (-len(data) % 512)


def grinding(entries: int) -> bytes:
    """``entries`` files, each behind a PAX header of digits just under the header cap:
    every one costs this Python's quadratic PAX parser a while, so the archive keeps an
    extractor busy far longer than any test waits."""
    digits = b"9" * (MAX_HEADER_BYTES - 512)
    return raw(
        member(TOP, kind=tarfile.DIRTYPE),
        *(extended(tarfile.XHDTYPE, digits) + member(f"{TOP}/f{i}") for i in range(entries)),
    )
