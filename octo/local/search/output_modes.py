"""The cheap answers to a search, from its counting pass: totalOnly (how many?), countOnly
(where?) and summary (a taste of the top files).

Their status comes from the counts, not from the files shown: a count answer is empty
only when nothing matched. totalOnly carries the stats alone, and a hint only when no file
was searched at all, so the whole envelope stays a few hundred bytes.
"""

from __future__ import annotations

from pathlib import Path

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import page_of
from octo.core.budget import with_tokens
from octo.core.config import Config
from octo.core.formats import compact_json
from octo.local.search.hints import NO_FILE_SEARCHED
from octo.local.search.hints import empty_search_hints
from octo.local.search.hints import page_turn
from octo.local.search.hints import read_hit
from octo.local.search.hints import repeat_params
from octo.local.search.models import COUNT_PAGE_FILES
from octo.local.search.models import SUMMARY_FILES
from octo.local.search.models import SUMMARY_MATCHES
from octo.local.search.models import LocalSearchCodeResult
from octo.local.search.models import SearchFields
from octo.local.search.models import SearchFile
from octo.local.search.passes import Counted
from octo.local.search.passes import SearchScope
from octo.local.search.passes import page_matches
from octo.local.search.rg_output import MatchingFile


async def answer_counts(
    ctx: QueryContext, query: SearchFields, scope: SearchScope, counted: Counted, tool: str
) -> Answer[LocalSearchCodeResult]:
    """The answer in ``query``'s outputMode (totalOnly, countOnly or summary); countOnly's and
    summary's answer measured (the dispatcher cuts it to the token budget)."""
    config = ctx.config
    cwd = scope.cwd
    if query.outputMode == "totalOnly":
        answer = Answer(LocalSearchCodeResult(stats=counted.stats()).status_from_stats())
        if counted.files_searched == 0:
            answer.hint(NO_FILE_SEARCHED)
        return answer
    ranked = sorted(counted.files, key=_most_matches_first)
    if query.outputMode == "countOnly":
        result, hints = _count_page(query, cwd, counted, ranked, tool)
    else:
        result, hints = await _summary(config, query, scope, counted, ranked, tool)
    if not counted.files:
        one_file = scope.file is not None
        hints = empty_search_hints(query, result, repeat_params(query), tool, one_file=one_file)
    more = result.pagination is not None and result.pagination.hasMore
    result = with_tokens(
        result,
        config,
        next_step=f"countPageNumber={query.countPageNumber + 1}" if more else None,
    )
    # A count page past the last one holds no file: empty, like every page past the end.
    # Over the budget as a whole, the dispatcher's finishing stage cuts it.
    return Answer(result, hints)


def _most_matches_first(entry: MatchingFile) -> tuple[int, bytes]:
    return -entry.matched_lines, entry.sort_key


def _count_page(
    query: SearchFields, cwd: Path, counted: Counted, ranked: list[MatchingFile], tool: str
) -> tuple[LocalSearchCodeResult, list[str]]:
    page, pagination = page_of(ranked, COUNT_PAGE_FILES, query.countPageNumber)
    result = LocalSearchCodeResult(
        root=str(cwd),
        files=[SearchFile(path=entry.path, matchCount=entry.matched_lines) for entry in page],
        stats=counted.stats(),
        pagination=pagination,
    )
    repeat = repeat_params(query)
    if not page and ranked:
        return result, empty_search_hints(query, result, repeat, tool)
    hints = page_turn(query, result, repeat, tool)
    if page:
        summary = {k: v for k, v in repeat.items() if k != "countPageNumber"}
        summary["outputMode"] = "summary"
        hints.append(f"Sample matches of the top files: {tool} {compact_json(summary)}")
    return result, hints


async def _summary(
    config: Config,
    query: SearchFields,
    scope: SearchScope,
    counted: Counted,
    ranked: list[MatchingFile],
    tool: str,
) -> tuple[LocalSearchCodeResult, list[str]]:
    cwd = scope.cwd
    top = ranked[:SUMMARY_FILES]
    sampled = await page_matches(config, query, scope, top, SUMMARY_MATCHES)
    result = LocalSearchCodeResult(
        root=str(cwd),
        # matchCount says how many more each file holds; no per-file page to turn.
        files=[file.model_copy(update={"pagination": None}) for file in sampled],
        otherFiles=len(ranked) - len(top),
        stats=counted.stats(),
    )
    repeat = {k: v for k, v in repeat_params(query).items() if k != "outputMode"}
    hints = []
    if result.otherFiles:
        every = {**repeat, "outputMode": "countOnly"}
        hints.append(f"Every matching file with its count: {tool} {compact_json(every)}")
    if top:
        hints.append(f"Matching lines, file by file: {tool} {compact_json(repeat)}")
        read = read_hit(query, cwd, top[0].path)
        hints.append("Read around a hit: localGetFileContent " + compact_json(read))
    return result, hints
