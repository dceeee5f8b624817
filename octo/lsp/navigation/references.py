"""lspFindReferences: every use of the symbol, paged, with the code around each."""

from __future__ import annotations

from lsprotocol import types as lsp

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.budget import page_of
from octo.lsp.models import FindReferencesQuery
from octo.lsp.models import FindReferencesResult
from octo.lsp.navigation.locations import code_location
from octo.lsp.navigation.locations import cut_places
from octo.lsp.navigation.locations import places_of
from octo.lsp.navigation.locations import see_files
from octo.lsp.navigation.locations import withheld_hints
from octo.lsp.navigation.locations import without_repeated_lines
from octo.lsp.navigation.next_calls import reference_hints
from octo.lsp.navigation.target import Target
from octo.lsp.navigation.target import answer
from octo.lsp.navigation.target import ask
from octo.lsp.navigation.target import navigate
from octo.lsp.navigation.target import require


async def find_references(
    ctx: QueryContext, query: FindReferencesQuery
) -> Answer[FindReferencesResult]:
    """References to the symbol, paged."""

    async def run(target: Target, _last: bool) -> Answer[FindReferencesResult]:
        require(target.slot, "referencesProvider", "find references")
        params = target.params(context={"includeDeclaration": query.includeDeclaration})
        sent = await ask(target.slot, lsp.TEXT_DOCUMENT_REFERENCES, params)
        places = places_of(sent)
        cut = cut_places(sent, target.slot.server_id, "references")
        chosen, pagination = page_of(places, query.referencesPerPage, query.page)
        seen = await see_files(ctx.paths, [place.path for place in chosen], query)
        result = FindReferencesResult(
            resolved=target.resolved,
            server=target.slot.server_id,
            references=without_repeated_lines(
                [code_location(seen[p.path], p.range, query.contextLines) for p in chosen]
            ),
            totalReferences=len(places),
            pagination=pagination,
        )
        # A use other than the queried place itself, in a file the caller can read.
        use = next(
            (
                (seen[p.path], p.range.start.line)
                for p in chosen
                if not (seen[p.path].external or seen[p.path].withheld)
                and (p.path, p.range.start.line) != (target.path, target.resolved.line)
            ),
            None,
        )
        hints = reference_hints(
            query, pagination, len(places), use, target.resolved.line, target.resolved.text
        )
        hints = [*cut, *hints, *withheld_hints(query, seen.values())]
        return answer(target, result, hints, partial=bool(cut))

    return await navigate(ctx, query, run)
