"""The next calls a localSearchCode answer suggests: the next page, reading a hit, seeing
more of a crowded file, what the token budget left out, and ways out of an empty search."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from octo.core.formats import compact_json
from octo.core.paging import page_hints
from octo.local.models import MODE_PRESETS
from octo.local.models import LocalSearchCodeQuery
from octo.local.models import LocalSearchCodeResult
from octo.local.next_calls import has_regex_syntax
from octo.local.next_calls import read_params
from octo.local.page_fit import PageFit


def _repeat(query: LocalSearchCodeQuery) -> dict[str, Any]:
    """The query's own parameters, as the caller would write them again: defaults, context
    fields and what its mode already sets are left out."""
    preset = MODE_PRESETS[query.mode] if query.mode else {}
    return {k: v for k, v in query.params().items() if k not in preset or preset[k] != v}


def search_hints(
    query: LocalSearchCodeQuery, result: LocalSearchCodeResult, cwd: Path
) -> list[str]:
    """Hints for a page of results (``cwd``: the searched directory)."""
    repeat = _repeat(query)
    pages = page_hints(
        "localSearchCode",
        repeat,
        "filePageNumber",
        result.pagination,
        result.stats.filesWithMatches,
    )
    if not result.files:
        return pages or _empty_search_hints(query, result, repeat)
    hints = pages
    first = result.files[0]
    if query.filesOnly:
        lines = {k: v for k, v in repeat.items() if k != "filesOnly"}
        if lines.get("mode") == "discovery":
            del lines["mode"]
        hints.append(
            "See the matching lines of these files: localSearchCode " + compact_json(lines)
        )
    read = read_params(cwd, first.path)
    read["matchString"] = query.pattern
    if not query.fixedString and has_regex_syntax(query.pattern):
        read["matchStringIsRegex"] = True
    if not query.smartCase or query.pattern != query.pattern.lower():
        read["matchStringCaseSensitive"] = True
    hints.append("Read around a hit: localGetFileContent " + compact_json(read))
    crowded = next(
        (
            f
            for f in result.files
            if f.pagination is not None and f.pagination.matchesOnPage == query.matchesPerPage
        ),
        None,
    )
    if crowded is None:
        return hints
    shown = f"{crowded.path} has {crowded.matchCount} matching lines, {query.matchesPerPage} shown"
    if query.matchesPerPage < 100:
        more = {**repeat, "path": str(cwd / crowded.path)}
        more.pop("filePageNumber", None)
        more["matchesPerPage"] = min(100, crowded.matchCount)
        hints.append(f"{shown}; see more: localSearchCode {compact_json(more)}")
    else:
        match = {k: v for k, v in read.items() if k.startswith("matchString")}
        every = {**read_params(cwd, crowded.path), **match}
        hints.append(f"{shown}; read them all (paged): localGetFileContent {compact_json(every)}")
    return hints


def budget_hints(
    query: LocalSearchCodeQuery, fit: PageFit, cwd: Path, max_tokens: int
) -> tuple[list[str], str | None]:
    """Hints that continue a page the token budget cut, and the first continuation."""
    if fit.cut is None:
        return [], None
    cut_file = fit.files[fit.cut]
    context = query.contextLines or 0
    read = read_params(cwd, cut_file.path)
    read["startLine"] = max(1, fit.unshown_lines[0] - context)
    read["endLine"] = fit.unshown_lines[-1] + context
    continuation = "localGetFileContent " + compact_json(read)
    where = f" after line {fit.cut_after_line}" if fit.cut_after_line else ""
    hints = [
        f"The token budget ({max_tokens} tokens) cut the matches in {cut_file.path}{where}: "
        f"read them with {continuation}"
    ]
    later = fit.files[fit.cut + 1 :]
    if later:
        one = {k: v for k, v in _repeat(query).items() if k != "filePageNumber"}
        one["path"] = str(cwd / later[0].path)
        hints.append(
            f"{len(later)} later file(s) on this page show matchCount only (lower contextLines,"
            f" matchesPerPage or filesPerPage to fit more); search them one at a time: "
            f"localSearchCode {compact_json(one)}"
        )
    return hints, continuation


def _empty_search_hints(
    query: LocalSearchCodeQuery, result: LocalSearchCodeResult, repeat: dict[str, Any]
) -> list[str]:
    hints: list[str] = []
    if result.stats.filesSearched == 0:
        hints.append("No file passed the filters: check path, type, include and exclude.")
    dropped = [name for name in ("type", "include", "exclude") if name in repeat]
    if dropped:
        hints.append(
            "Drop a filter ("
            + ", ".join(dropped)
            + "): localSearchCode "
            + compact_json({k: v for k, v in repeat.items() if k not in dropped})
        )
    # Lower-casing \W or \S would change what the regex means.
    if (query.pattern != query.pattern.lower() or not query.smartCase) and (
        query.fixedString or not re.search(r"\\[A-Z]", query.pattern)
    ):
        ignore_case = {**repeat, "pattern": query.pattern.lower()}
        ignore_case.pop("smartCase", None)
        hints.append("Ignore case: localSearchCode " + compact_json(ignore_case))
    if not query.fixedString and has_regex_syntax(query.pattern):
        hints.append(
            "The pattern is a regex; search its text literally: localSearchCode "
            + compact_json({**repeat, "fixedString": True})
        )
    skipped = {"hidden": True} if not query.hidden else {}
    if not query.noIgnore:
        skipped["noIgnore"] = True
    if skipped:
        hints.append(
            "Dot-files and .gitignored files were skipped; include them: localSearchCode "
            + compact_json({**repeat, **skipped})
        )
    return hints
