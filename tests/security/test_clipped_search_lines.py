"""A search line longer than the clip is cut unredacted (the dispatcher redacts answers) and
never leaves a piece of a secret: a detector's secret is kept whole in the window, a value the
call knows from elsewhere is hidden from 8 characters of it on at the clip's edge, a private
key's body lines shown without their BEGIN line are hidden whole, and the handles of clipped
lines hold the lines as shown."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from octo.core.config import Config
from octo.core.files.confined import open_confined
from octo.core.handles import Origin
from octo.core.secrets.redaction import call_secrets
from octo.core.secrets.redaction import redact
from octo.core.secrets.redaction import redacted
from octo.faces.library import Gateway
from octo.local.matched_lines import MAX_LINE_CHARS
from octo.local.search.long_lines import LONGEST_EVENT
from octo.local.search.models import LocalSearchCodeQuery
from octo.local.search.page_sources import learn_key_bodies
from octo.local.search.page_sources import open_page
from octo.local.search.rg_output import MatchingFile
from octo.local.search.rg_output import PageScan
from octo.transports.capped_lines import capped_lines
from octo.transports.ripgrep import rg_binary
from tests.security.planted import PLANTED
from tests.security.planted import Planted
from tests.security.planted import private_key

#: A password one file assigns and another writes bare (built at run time).
VALUE = "Zq8x" + "LmW3pRt7" + "vYk2Hs9D"
#: Characters of a long line's preview.
PREVIEW = 240
#: Characters of a secret that may show: fewer than a learned value's cut piece hidden.
SHOWN_AT_MOST = 7


def _pieces(value: str, length: int) -> set[str]:
    return {value[at : at + length] for at in range(len(value) - length + 1)}


def _leaked(value: str, sent: str, length: int = SHOWN_AT_MOST + 1) -> list[str]:
    """The pieces of ``value`` of ``length`` characters that ``sent`` shows (markers aside:
    a kind's name may be a piece)."""
    shown = re.sub(r"\[REDACTED:[^\]]*\]", "", sent)
    return sorted(piece for piece in _pieces(value, length) if piece in shown)


async def _chunks(data: bytes) -> AsyncIterator[bytes]:
    for at in range(0, len(data), 65536):
        yield data[at : at + 65536]


async def _finished_scan(folder: Path, pattern: str, **fields: Any) -> str:
    """The search lines of file ``f.txt`` as the handler keeps them (real rg's JSON read by
    the page scan), then redacted as the dispatcher's finishing stage does, as sent."""
    query = LocalSearchCodeQuery(pattern=pattern, path=".", **fields)
    args = ["--json", "--fixed-strings", f"--before-context={query.context_before}"]
    done = await anyio.run_process([rg_binary(), *args, "--", pattern, "f.txt"], cwd=folder)
    page = [MatchingFile(b"f.txt", 1)]
    with call_secrets(), open_confined(folder, folder, ".", directory=True) as directory:
        scan = PageScan(query, page, 10)
        async for line in capped_lines(_chunks(done.stdout), LONGEST_EVENT):
            scan.feed(line)
        with await open_page(directory, page) as sources:
            await learn_key_bodies(scan, sources)
        return json.dumps([f.model_dump() for f in redacted(scan.files())])


def _across_a_cut(planted: Planted, kept: int) -> list[str]:
    """Lines where a cut falls ``kept`` characters into ``planted``'s value, whose secret a
    detector finds in the whole line: the window's end cut (the secret mid-line), and its
    start cut (the secret at the line's start, the match further on)."""
    text = planted.text.rstrip("\r")
    value_at = planted.line.index("{}")
    head = "needle " + "x" * (MAX_LINE_CHARS - kept - value_at - 8) + " "
    focus = value_at + len(planted.value) - kept + MAX_LINE_CHARS // 4
    lines = [
        head + text + " " + "y" * 400,
        text + " " + "x" * (focus - len(text) - 2) + " needle " + "y" * 400,
    ]
    return [line for line in lines if planted.value not in redact(line)]


@pytest.mark.parametrize("planted", PLANTED, ids=lambda p: p.name)
@pytest.mark.parametrize("kept", [1, 6, 12])
async def test_a_secret_across_the_clip_point_is_hidden_whole(
    tmp_path: Path, planted: Planted, kept: int
) -> None:
    """A cut of the line falls ``kept`` characters into the secret's value: the window takes
    the whole secret, and the finishing stage hides it."""
    lines = _across_a_cut(planted, kept)
    if not lines:
        # Found on a line of its own only (a YAML key): no line long enough to cut holds it.
        assert planted.value not in redact(planted.text)
    for line in lines:
        (tmp_path / "f.txt").write_text(line + "\n")
        sent = await _finished_scan(tmp_path, "needle")
        assert " chars]" in sent  # clipped
        assert _leaked(planted.value, sent, 6) == []


@pytest.mark.parametrize("planted", PLANTED, ids=lambda p: p.name)
async def test_a_secret_across_the_clip_of_a_context_line_is_hidden_whole(
    tmp_path: Path, planted: Planted
) -> None:
    """The same cut on a context line (cut from its start, 300 characters on)."""
    for line in _across_a_cut(planted, 6)[:1]:
        (tmp_path / "f.txt").write_text(line.replace("needle", "before") + "\nhit\n")
        sent = await _finished_scan(tmp_path, "hit", contextBefore=1)
        assert " chars]" in sent  # clipped
        assert _leaked(planted.value, sent, 6) == []


@pytest.mark.parametrize("planted", PLANTED[:8], ids=lambda p: p.name)
async def test_a_secret_across_a_long_line_preview_is_hidden_whole(
    tmp_path: Path, planted: Planted
) -> None:
    """A line too long to read whole is shown by a preview of its start: the preview's end
    never cuts a secret short of what a detector knows."""
    before = planted.line.index("{}")
    line = "needle " + "x" * (PREVIEW - 12 - 8 - before) + " " + planted.text.rstrip("\r") + " "
    assert line.index(planted.value) == PREVIEW - 12
    (tmp_path / "f.txt").write_text(line + "z" * (LONGEST_EVENT + 10) + "\n")
    sent = await _finished_scan(tmp_path, "needle")
    assert "a line of about" in sent
    assert _leaked(planted.value, sent, 6) == []


async def test_key_body_lines_before_a_match_are_hidden_whole(tmp_path: Path) -> None:
    """The last body lines of a key (the shortest last) as context of a file searched as it
    is, their BEGIN line out of view: hidden whole as the file tells, each one a marker."""
    text, body = private_key("RSA PRIVATE KEY")
    (tmp_path / "f.txt").write_text(text + "needle\n")
    sent = await _finished_scan(tmp_path, "needle", contextBefore=3)
    assert [line for line in body if line in sent] == []
    assert sent.count("[REDACTED:private-key]") == 2


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    return root


def _sent(response: Any) -> str:
    return str(response.to_compact_json())


async def _search_and_handles(root: Path, query: dict[str, Any]) -> tuple[str, list[str]]:
    """One search's answer as sent, and each clipped line's handle read in a later call."""
    async with Gateway(roots=[root]) as gateway:
        response = await gateway.call("localSearchCode", [{"path": ".", **query}])
        row = response.results[0]
        assert row.status == "success" and row.data is not None, row
        handles = [
            match.contentHandle
            for file in row.data.files
            for match in file.matches or ()
            if match.contentHandle
        ]
        assert handles, "no line was clipped"
        pages = [await gateway.call("getCachedContent", [{"handle": h}]) for h in handles]
    return _sent(response), [_sent(page) for page in pages]


@pytest.mark.parametrize("edge", ["end", "start"])
@pytest.mark.parametrize("kept", [8, 12, 19])
async def test_a_value_known_to_the_call_cut_by_the_clip_is_never_shown_in_part(
    tree: Path, edge: str, kept: int
) -> None:
    """A password assigned in one file and written bare in a long line of another, the clip
    cutting it: the piece the clip leaves is hidden with the answer, and the clipped line's
    handle, read in another call that never met the value, holds none of it."""
    (tree / "config.py").write_text(f'needle = 1\nDB_PASSWORD = "{VALUE}"\n')
    if edge == "end":
        line = "needle " + "x" * (MAX_LINE_CHARS - kept - 8) + " " + VALUE + " " + "y" * 900
        assert line.index(VALUE) + kept == MAX_LINE_CHARS
    else:
        # The window starts 75 characters before the match.
        start = 1000 - MAX_LINE_CHARS // 4
        line = "x" * (start - len(VALUE) + kept - 1) + " " + VALUE + "y" * (999 - start - kept)
        line += " needle " + "z" * 900
        assert line.index("needle") == 1000 and line.index(VALUE) + len(VALUE) - kept == start
    (tree / "bundle.js").write_text(line + "\n")
    sent, pages = await _search_and_handles(tree, {"pattern": "needle"})
    assert "[..." in sent and "[REDACTED:" in sent
    assert _leaked(VALUE, sent) == []
    for page in pages:
        assert _leaked(VALUE, page) == []


async def test_the_handle_of_a_clipped_line_after_a_key_holds_no_body_line(tree: Path) -> None:
    """A long matching line right after a private key, its context reaching into the key's
    body: the clipped line's handle holds the lines as shown, read in another call."""
    text, body = private_key("OPENSSH PRIVATE KEY")
    (tree / "f.txt").write_text(text + "needle " + "x" * 500 + "\n")
    sent, pages = await _search_and_handles(tree, {"pattern": "needle", "contextBefore": 3})
    for page in [sent, *pages]:
        assert [line for line in body if line in page] == []
    assert all("[REDACTED:private-key]" in page for page in pages)


async def test_a_handle_page_inside_a_key_or_after_a_password_hides_them(tree: Path) -> None:
    """A handle's content (a diff, a log) paged by getCachedContent: a page that starts inside
    a private key, or shows a password whose name is on an earlier page, hides them."""
    text, body = private_key("RSA PRIVATE KEY")
    filler = "".join(f"line {n} " + "x" * 60 + "\n" for n in range(60))
    content = f'DB_PASSWORD = "{VALUE}"\n{filler}{text}{filler}dsn = "{VALUE}"\n'
    async with Gateway(Config(roots=(tree,), max_tokens=250), roots=[tree]) as gateway:
        origin = Origin("localGitHistory", {}, (str(tree),), gateway.runtime.identity)
        handle = await gateway.runtime.handles.put(content, origin)
        sent: list[str] = []
        for number in range(1, 60):
            page = await gateway.call("getCachedContent", [{"handle": handle, "page": number}])
            sent.append(_sent(page))
            if '"hasMore":false' in sent[-1]:
                break
    split = [shown for shown in sent if "BEGIN RSA" not in shown and "private-key]" in shown]
    assert split, "no page starts inside the key"
    for shown in sent:
        assert [line for line in body if line in shown] == []
        assert _leaked(VALUE, shown) == []
