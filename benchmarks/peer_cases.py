"""The twelve local tasks and three LSP questions bench_peer.py asks of octo and of its peer,
each as both spell it, with a check that both answered the same (files, counts, lines covered)
where the answers are comparable."""

from __future__ import annotations

import os
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The Python standard library: a large tree (with its site-packages) every machine has.
STDLIB = Path(sysconfig.get_paths()["stdlib"])
RARE_PATTERN = "class ThreadPoolExecutor"
COMMON_PATTERN = "def __init__"
FEW_FILES_PATTERN = "import heapq"  # about fifteen files: one page on both sides
WIDE_DIR = STDLIB / "test"  # a whole tree of about 3,700 files
WIDE_FILES_PATTERN = "import unittest"  # several hundred of them: many pages on both sides
REGEX_PATTERN = r"class \w+Error\("
READ_FILE = STDLIB / "contextlib.py"  # ~800 lines
SMALL_FILE = STDLIB / "json" / "tool.py"  # ~80 lines
READ_MATCH = "class ExitStack"
STRUCTURE_DIR = STDLIB / "asyncio"  # ~35 entries: more than one first page on both sides
NESTED_DIR = STDLIB / "email"  # one sub-directory (mime/)
FIND_NAME = "thread*.py"  # a handful of files, all on the first page

Json = dict[str, Any]
Args = Json


@dataclass(frozen=True)
class Case:
    """One query asked of both servers: octo's call, the peer's call per tool family."""

    label: str
    octo_tool: str
    octo_query: Args
    # (tool, query) on a peer that has split local tools (localSearchCode, ...), and on one
    # with a single discriminated localSearch tool (operation text/files/tree).
    peer_split: tuple[str, Args]
    peer_unified: tuple[str, Args]
    check: Callable[[Json, Json], list[str]] | None = None
    #: The answer is a list of files: its tokens per listed file are printed.
    lists_files: bool = False


# --- reading answers -------------------------------------------------------------------------


def first_row(structured: Json | None) -> Json:
    """The first result row's data (both servers answer ``{"results": [{..., "data": {}}]}``)."""
    if not structured or not structured.get("results"):
        return {}
    data: Json = structured["results"][0].get("data") or {}
    return data


def _absolute(base: str, path: str) -> str:
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(base, path))


def _octo_paths(structured: Json | None, base_key: str) -> set[str]:
    data = first_row(structured)
    return {_absolute(data.get(base_key, ""), f["path"]) for f in data.get("files", [])}


def _peer_paths(structured: Json | None) -> set[str]:
    base = (structured or {}).get("base", "")
    return {_absolute(base, f["path"]) for f in first_row(structured).get("files", [])}


def _disagree(what: str, octo: object, peer: object) -> list[str]:
    return [] if octo == peer else [f"{what}: octo {octo} vs peer {peer}"]


def _same_files(octo: Json, peer: Json, base_key: str) -> list[str]:
    octo_files, peer_files = _octo_paths(octo, base_key), _peer_paths(peer)
    if octo_files == peer_files:
        return []
    only_octo, only_peer = sorted(octo_files - peer_files), sorted(peer_files - octo_files)
    return [f"files: only octo {only_octo}, only peer {only_peer}"]


def _check_search_totals(octo: Json, peer: Json) -> list[str]:
    octo_stats, peer_stats = first_row(octo).get("stats", {}), first_row(peer).get("stats", {})
    return _disagree(
        "files with matches", octo_stats.get("filesWithMatches"), peer_stats.get("filesMatched")
    ) + _disagree(
        "total matches", octo_stats.get("totalMatches"), peer_stats.get("totalOccurrences")
    )


def _check_search_files(octo: Json, peer: Json) -> list[str]:
    return _check_search_totals(octo, peer) + _same_files(octo, peer, "root")


def _check_read(octo: Json, peer: Json) -> list[str]:
    octo_data, peer_data = first_row(octo), first_row(peer)
    problems = _disagree("total lines", octo_data.get("totalLines"), peer_data.get("totalLines"))
    octo_end = octo_data.get("endLine", octo_data.get("totalLines"))
    peer_end = peer_data.get("endLine", peer_data.get("totalLines"))
    if octo_end != peer_end:
        problems.append(
            f"coverage: octo lines {octo_data.get('startLine', 1)}-{octo_end}, "
            f"peer lines {peer_data.get('startLine', 1)}-{peer_end} "
            f"(view {peer_data.get('contentView', 'none')}, "
            f"{peer_data.get('returnedChars')} of {peer_data.get('sourceChars')} source chars)"
        )
    return problems


def _check_match_lines(octo: Json, peer: Json) -> list[str]:
    octo_lines = first_row(octo).get("matchedLines", [])
    return _disagree("matched lines", octo_lines, first_row(peer).get("matchedLines"))


def _check_structure(octo: Json, peer: Json) -> list[str]:
    summary = first_row(octo).get("summary", {})
    octo_total = summary.get("totalFiles", 0) + summary.get("totalDirs", 0)
    peer_total = first_row(peer).get("pagination", {}).get("totalEntries")
    return _disagree("entries", octo_total, peer_total)


def _check_find(octo: Json, peer: Json) -> list[str]:
    problems = _disagree(
        "files found",
        first_row(octo).get("totalCount"),
        first_row(peer).get("pagination", {}).get("totalFiles"),
    )
    return problems + _same_files(octo, peer, "path")


def _check_file_list(octo: Json, peer: Json) -> list[str]:
    return _same_files(octo, peer, "root")


def _check_file_count(octo: Json, peer: Json) -> list[str]:
    """Pages of many files differ in order and size: the files matching are compared by
    number (octo's stats, the peer's pagination total when it gives one)."""
    octo_files = (first_row(octo).get("stats") or {}).get("filesWithMatches")
    peer_total = (first_row(peer).get("pagination") or {}).get("totalFiles")
    return [] if peer_total is None else _disagree("files with matches", octo_files, peer_total)


def _search(
    label: str,
    octo: Args,
    peer: Args,
    check: Callable[[Json, Json], list[str]],
    lists_files: bool = False,
) -> Case:
    """A search: ``octo`` in localSearchCode's words, ``peer`` in the peer's text search."""
    return Case(
        label,
        "localSearchCode",
        octo,
        ("localSearchCode", peer),
        ("localSearch", {"operation": "text", **peer}),
        check,
        lists_files,
    )


def _read(label: str, query: Args, check: Callable[[Json, Json], list[str]]) -> Case:
    """A read, spelled alike on both sides."""
    return Case(
        label,
        "localGetFileContent",
        query,
        ("localGetFileContent", query),
        ("localGetFileContent", query),
        check,
    )


def _structure(label: str, path: str, depth: int) -> Case:
    return Case(
        label,
        "localViewStructure",
        {"path": path, "depth": depth},
        ("localViewStructure", {"path": path, "maxDepth": depth}),
        ("localSearch", {"operation": "tree", "path": path, "maxDepth": depth}),
        _check_structure,
    )


def _lsp(label: str, octo_tool: str, query: Args, peer_type: str) -> Case:
    """An LSP question about READ_FILE: the peer asks lspGetSemantics with its type."""
    place = {"uri": str(READ_FILE), **query}
    # The peer's type says the direction (callers, callees).
    asked = {key: value for key, value in place.items() if key != "direction"}
    peer = ("lspGetSemantics", {**asked, "type": peer_type})
    return Case(label, octo_tool, place, peer, peer)


def cases() -> list[Case]:
    """The local tasks and LSP questions, each as both servers spell it."""
    stdlib, read_file, small_file = str(STDLIB), str(READ_FILE), str(SMALL_FILE)
    return [
        _search(
            f"search rare {RARE_PATTERN!r}",
            {"pattern": RARE_PATTERN, "path": stdlib},
            {"searchText": RARE_PATTERN, "path": stdlib},
            _check_search_files,
        ),
        _search(
            f"search common {COMMON_PATTERN!r}",
            {"pattern": COMMON_PATTERN, "path": stdlib},
            {"searchText": COMMON_PATTERN, "path": stdlib},
            _check_search_totals,
        ),
        _search(
            f"files only {FEW_FILES_PATTERN!r}",
            {"pattern": FEW_FILES_PATTERN, "path": stdlib, "filesOnly": True, "filesPerPage": 20},
            {"searchText": FEW_FILES_PATTERN, "path": stdlib, "resultView": "files"},
            _check_file_list,
            lists_files=True,
        ),
        _search(
            f"files only {WIDE_FILES_PATTERN!r} in {WIDE_DIR.name}/ (whole tree)",
            {"pattern": WIDE_FILES_PATTERN, "path": str(WIDE_DIR), "filesOnly": True},
            {"searchText": WIDE_FILES_PATTERN, "path": str(WIDE_DIR), "resultView": "files"},
            _check_file_count,
        ),
        _search(
            f"counts per file {FEW_FILES_PATTERN!r}",
            {"pattern": FEW_FILES_PATTERN, "path": stdlib, "outputMode": "countOnly"},
            {"searchText": FEW_FILES_PATTERN, "path": stdlib, "resultView": "countMatches"},
            _check_search_totals,
        ),
        _search(
            f"regex {REGEX_PATTERN!r} in {NESTED_DIR.name}/",
            {"pattern": REGEX_PATTERN, "path": str(NESTED_DIR)},
            {"searchText": REGEX_PATTERN, "path": str(NESTED_DIR)},
            _check_search_files,
        ),
        _read(f"read {READ_FILE.name} (defaults)", {"path": read_file}, _check_read),
        _read(
            f"read {SMALL_FILE.parent.name}/{SMALL_FILE.name} whole",
            {"path": small_file, "fullContent": True},
            _check_read,
        ),
        _read(
            f"read {READ_FILE.name} lines 100-160",
            {"path": read_file, "startLine": 100, "endLine": 160},
            _check_read,
        ),
        _read(
            f"read {READ_FILE.name} matchString {READ_MATCH!r}",
            {"path": read_file, "matchString": READ_MATCH},
            _check_match_lines,
        ),
        _structure(f"structure {STRUCTURE_DIR.name}/ depth 1", str(STRUCTURE_DIR), 1),
        _structure(f"structure {NESTED_DIR.name}/ depth 2", str(NESTED_DIR), 2),
        Case(
            f"find files {FIND_NAME!r}",
            "localFindFiles",
            {"path": stdlib, "name": FIND_NAME},
            ("localFindFiles", {"path": stdlib, "names": [FIND_NAME]}),
            ("localSearch", {"operation": "files", "path": stdlib, "names": [FIND_NAME]}),
            _check_find,
            lists_files=True,
        ),
        # Where LSP answers spend tokens: places, call edges (issue 38).
        _lsp(
            "definition of _BaseExitStack",
            "lspGotoDefinition",
            {"symbolName": "_BaseExitStack", "lineHint": 544},
            "definition",
        ),
        _lsp(
            "references of _push_exit_callback",
            "lspFindReferences",
            {"symbolName": "_push_exit_callback", "lineHint": 539},
            "references",
        ),
        _lsp(
            "callers of _push_exit_callback",
            "lspCallHierarchy",
            {"symbolName": "_push_exit_callback", "lineHint": 539, "direction": "incoming"},
            "callers",
        ),
    ]
