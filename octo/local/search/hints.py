"""The next calls a search answer suggests: the next page, reading a hit, seeing more of a
crowded file, what the token budget left out, and ways out of an empty search.

Hints continue with the tool that answered (localSearchCode or localFindAndSearchCode);
those that narrow to one file go to localSearchCode, with the search fields only."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from octo.core.budget import page_hints
from octo.core.formats import compact_json
from octo.local.checked_paths import has_regex_syntax
from octo.local.checked_paths import is_intended_regex
from octo.local.checked_paths import read_params
from octo.local.search.models import MODE_PRESETS
from octo.local.search.models import LocalSearchCodeResult
from octo.local.search.models import SearchFields
from octo.local.search.page_fit import PageFit

#: The fields that shape a page of lines, which the count modes refuse.
_LINE_FIELDS = frozenset(
    {"filesOnly", "matchesPerPage", "filesPerPage", "filePageNumber", "columns", "outputMode"}
    | {"contextLines", "contextBefore", "contextAfter", "mode"}
)


def repeat_params(query: SearchFields) -> dict[str, Any]:
    """The query's own parameters, as the caller would write them again: defaults, context
    fields and what its mode already sets are left out."""
    preset = MODE_PRESETS[query.mode] if query.mode else {}
    return {k: v for k, v in query.params().items() if k not in preset or preset[k] != v}


def one_file_search(query: SearchFields, path: Path) -> dict[str, Any]:
    """localSearchCode's parameters that search ``path`` alone as ``query`` searches (its
    search fields only, without page numbers)."""
    own = {
        k: v
        for k, v in repeat_params(query).items()
        if k in SearchFields.model_fields and k not in ("filePageNumber", "countPageNumber")
    }
    return {**own, "path": str(path)}


def read_hit(query: SearchFields, cwd: Path, rel: str) -> dict[str, Any]:
    """localGetFileContent's parameters that show ``query``'s matches in ``rel``."""
    read = read_params(cwd, rel)
    read["matchString"] = query.pattern
    if not query.fixedString and has_regex_syntax(query.pattern):
        read["matchStringIsRegex"] = True
    if query.caseInsensitive:
        return read
    if not query.smartCase or query.pattern != query.pattern.lower():
        read["matchStringCaseSensitive"] = True
    return read


def page_turn(
    query: SearchFields, result: LocalSearchCodeResult, repeat: dict[str, Any], tool: str
) -> list[str]:
    """The call for the next page of files, or for the last one when the query asked past
    it (countOnly pages by countPageNumber, groupByFile by filePageNumber)."""
    if result.pagination is None:
        return []
    field = "countPageNumber" if query.outputMode == "countOnly" else "filePageNumber"
    return page_hints(tool, repeat, field, result.pagination, result.stats.filesWithMatches)


def search_hints(
    query: SearchFields,
    result: LocalSearchCodeResult,
    cwd: Path,
    tool: str,
    *,
    one_file: bool = False,
) -> list[str]:
    """Hints for a page of results (``cwd``: the searched directory; ``one_file``: the
    query named a single file)."""
    repeat = repeat_params(query)
    if not result.files:
        return empty_search_hints(query, result, repeat, tool, one_file=one_file)
    hints = page_turn(query, result, repeat, tool)
    first = result.files[0]
    if query.filesOnly:
        lines = {k: v for k, v in repeat.items() if k != "filesOnly"}
        if lines.get("mode") == "discovery":
            del lines["mode"]
        hints.append(f"See the matching lines of these files: {tool} " + compact_json(lines))
    read = read_hit(query, cwd, first.path)
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
    count = crowded.matchCount or 0
    shown = f"{crowded.path} has {count} matching lines, {query.matchesPerPage} shown"
    if query.matchesPerPage < 100:
        more = one_file_search(query, cwd / crowded.path)
        more["matchesPerPage"] = min(100, count)
        hints.append(f"{shown}; see more: localSearchCode {compact_json(more)}")
    else:
        match = {k: v for k, v in read.items() if k.startswith("matchString")}
        every = {**read_params(cwd, crowded.path), **match}
        hints.append(f"{shown}; read them all (paged): localGetFileContent {compact_json(every)}")
    return hints


def budget_hints(
    query: SearchFields, fit: PageFit, cwd: Path, max_tokens: int, tool: str
) -> tuple[list[str], str | None]:
    """Hints that continue a page the token budget cut, and the first continuation. The
    cheaper output modes come first: they often answer without the lines at all."""
    if fit.cut is None:
        return [], None
    cheaper = {k: v for k, v in repeat_params(query).items() if k not in _LINE_FIELDS}
    hints = [
        'Over the token budget: see where the matches are first, with outputMode "summary" '
        "(the top files, sample lines) or countOnly (files with counts): "
        f"{tool} {compact_json({**cheaper, 'outputMode': 'countOnly'})}"
    ]
    cut_file = fit.files[fit.cut]
    read = read_params(cwd, cut_file.path)
    read["startLine"] = max(1, fit.unshown_lines[0] - query.context_before)
    read["endLine"] = fit.unshown_lines[-1] + query.context_after
    continuation = "localGetFileContent " + compact_json(read)
    where = f" after line {fit.cut_after_line}" if fit.cut_after_line else ""
    hints += [
        f"The token budget ({max_tokens} tokens) cut the matches in {cut_file.path}{where}: "
        f"read them with {continuation}"
    ]
    later = fit.files[fit.cut + 1 :]
    if later:
        one = one_file_search(query, cwd / later[0].path)
        hints.append(
            f"{len(later)} later file(s) on this page show matchCount only (lower contextLines,"
            f" matchesPerPage or filesPerPage to fit more); search them one at a time: "
            f"localSearchCode {compact_json(one)}"
        )
    return hints, continuation


#: What a search that read no file at all needs said.
NO_FILE_SEARCHED = "No file passed the filters: check path, type, include and exclude."


def empty_search_hints(
    query: SearchFields,
    result: LocalSearchCodeResult,
    repeat: dict[str, Any],
    tool: str,
    *,
    one_file: bool = False,
) -> list[str]:
    """Hints for an answer without files: the way to the last page, or ways out of a search
    that matched nothing (a single named file skips no dot-file nor ignored file)."""
    if result.stats.filesWithMatches:
        return page_turn(query, result, repeat, tool)
    hints: list[str] = []
    if result.stats.filesSearched == 0:
        hints.append(NO_FILE_SEARCHED)
    dropped = [name for name in ("type", "include", "exclude") if name in repeat]
    if dropped:
        hints.append(
            f"Drop a filter ({', '.join(dropped)}): {tool} "
            + compact_json({k: v for k, v in repeat.items() if k not in dropped})
        )
    # Lower-casing \W or \S would change what the regex means.
    if (
        not query.caseInsensitive
        and (query.pattern != query.pattern.lower() or not query.smartCase)
        and (query.fixedString or not re.search(r"\\[A-Z]", query.pattern))
    ):
        ignore_case = {**repeat, "pattern": query.pattern.lower()}
        ignore_case.pop("smartCase", None)
        hints.append(f"Ignore case: {tool} " + compact_json(ignore_case))
    if (
        not query.fixedString
        and has_regex_syntax(query.pattern)
        and not is_intended_regex(query.pattern)
    ):
        hints.append(
            f"The pattern is a regex; search its text literally: {tool} "
            + compact_json({**repeat, "fixedString": True})
        )
    if one_file:
        return hints
    skipped = {"hidden": True} if not query.hidden else {}
    if not query.noIgnore:
        skipped["noIgnore"] = True
    if skipped:
        hints.append(
            f"Dot-files and .gitignored files were skipped; include them: {tool} "
            + compact_json({**repeat, **skipped})
        )
    return hints
