"""lspHover: a symbol's type signature and documentation, as its server renders them."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

from lsprotocol import types as lsp

from octo.contract import Answer
from octo.contract import QueryContext
from octo.lsp.guards.outside_roots import dropped
from octo.lsp.models import HoverQuery
from octo.lsp.models import HoverResult
from octo.lsp.navigation.locations import places_of
from octo.lsp.navigation.locations import range_of
from octo.lsp.navigation.locations import see_files
from octo.lsp.navigation.next_calls import short_name
from octo.lsp.navigation.next_calls import symbol_call
from octo.lsp.navigation.target import Target
from octo.lsp.navigation.target import answer
from octo.lsp.navigation.target import ask
from octo.lsp.navigation.target import navigate
from octo.lsp.navigation.target import require

#: A fenced code block of markdown (its text is code: entities there are the code's own).
_FENCED = re.compile(r"(```.*?```)", re.DOTALL)


def _plain_entities(markdown: str) -> str:
    """``markdown`` with HTML entities written as the characters they stand for outside code
    blocks (servers write ``&nbsp;`` and ``&lt;`` for a renderer; a model reads characters)."""
    parts = _FENCED.split(markdown)
    return "".join(part if part.startswith("```") else html.unescape(part) for part in parts)


def hover_text(contents: Any) -> str:
    """Hover contents (MarkupContent, MarkedString or a list of them) as one markdown text."""
    return _plain_entities(_joined(contents))


def _joined(contents: Any) -> str:
    if isinstance(contents, str):
        return contents
    if isinstance(contents, list):
        return "\n\n".join(part for part in map(_joined, contents) if part)
    if isinstance(contents, Mapping):
        value = contents.get("value")
        if not isinstance(value, str):
            return ""
        language = contents.get("language")
        # A MarkedString with a language is a code block; MarkupContent is text as is.
        return f"```{language}\n{value}\n```" if isinstance(language, str) else value
    return ""


def cut_markdown(text: str, limit: int) -> tuple[str, bool]:
    """``text`` within ``limit`` characters, cut at a line end where one is near, with an
    open code fence closed so the rest still renders."""
    if len(text) <= limit:
        return text, False
    cut = text[:limit]
    line_end = cut.rfind("\n")
    if line_end > limit // 2:
        cut = cut[:line_end]
    if cut.count("```") % 2:
        cut += "\n```"
    return cut + "\n...", True


async def _defined_outside(ctx: QueryContext, target: Target) -> bool:
    """Whether the symbol is defined in a file outside the allowed roots: its hover
    would quote them (a constant's value, a signature's defaults, a docstring). The files
    inside that define it have their secret values made known to the call, since the hover
    quotes them without their names (another module's ``Literal["..."]``)."""
    if not target.slot.live_client().supports("definitionProvider"):
        return False
    before = dropped()
    defined = await ask(target.slot, lsp.TEXT_DOCUMENT_DEFINITION, target.params())
    if dropped() > before:
        return True
    # Read to learn their values, never shown: a credential file's values are hidden too.
    await see_files(ctx.paths, [place.path for place in places_of(defined)], None)
    return False


#: Characters of a hover answer besides its text (the server, position, tokens block).
_FRAME_CHARS = 600


async def hover(ctx: QueryContext, query: HoverQuery) -> Answer[HoverResult]:
    """The hover text of the symbol at uri near lineHint."""

    async def run(target: Target, _last: bool) -> Answer[HoverResult]:
        require(target.slot, "hoverProvider", "hover")
        sent = await ask(target.slot, lsp.TEXT_DOCUMENT_HOVER, target.params())
        contents = sent.get("contents") if isinstance(sent, Mapping) else None
        # A hover with something to show is checked: it may quote an outside file.
        outside = bool(hover_text(contents).strip()) and await _defined_outside(ctx, target)
        if outside:
            contents = None
        # Cut before the dispatcher redacts it: the values of the file asked about and of the
        # files it imports are known to the call, so a piece of one at the cut is hidden too.
        text = hover_text(contents).strip()
        config = ctx.config
        # The whole answer fits the token budget: the text gets what its frame leaves, less a
        # fifth for JSON's escapes.
        room = (config.max_tokens * config.chars_per_token - _FRAME_CHARS) * 4 // 5
        limit = max(0, min(query.maxChars, room))
        markdown, truncated = cut_markdown(text, limit)
        where = sent.get("range") if isinstance(sent, Mapping) else None
        result = HoverResult(
            resolved=target.resolved,
            server=target.slot.server_id,
            markdown=markdown or None,
            truncated=truncated,
            range=range_of(where) if where else None,
        )
        name, line = short_name(query), target.resolved.line
        hints = [f"Where it is defined: {symbol_call('lspGotoDefinition', query.uri, name, line)}"]
        if truncated:
            hints.append(
                f"The text was cut at {limit} characters; "
                + ("raise maxChars." if limit == query.maxChars else "that is the token budget.")
            )
        if outside:
            hints.insert(
                0, f"'{name}' is defined outside the allowed roots: its hover is left out."
            )
        elif not markdown:
            hints.insert(0, f"{target.slot.server_id} has nothing to show for '{name}' here.")
        return answer(target, result, hints)

    return await navigate(ctx, query, run)
