"""Query and result models of the LSP tools that start at a symbol or a file.

Lines are 1-based everywhere (``lineHint`` and every ``range``), so an answer's
line can be fed straight back as a ``lineHint`` or to localGetFileContent;
characters are 0-based UTF-16 code units, as in LSP.

A place is said once, compactly: its ``path`` (relative to its allowed root, which every
tool takes back as is; absolute for a file outside the roots, flagged ``external``, which a
client opens by that path) and the ``line`` and ``character`` where it starts. No
``file://`` URI is repeated beside the path, and no end of a range is given where the start
line is what a model reads next (a reference, a call site, a function's name).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated
from typing import ClassVar
from typing import Literal

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import field_validator

from octo.core.budget import Pagination
from octo.core.budget import TokenInfo
from octo.core.formats import compact_json
from octo.core.queries import PageNumber
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.core.queries import optional
from octo.core.secrets.sensitive import HIDDEN_DESCRIPTION
from octo.core.secrets.sensitive import SENSITIVE_DESCRIPTION
from octo.core.secrets.sensitive import Withheld

#: What lspGotoDefinition looks for.
DefinitionKind = Literal["definition", "typeDefinition", "implementation", "declaration"]


#: A line of a file as every LSP answer gives it (servers count from 0, octo from 1).
Line = Annotated[int, Field(description="1-based line.")]
#: A column of a line as LSP counts it.
Character = Annotated[int, Field(description="0-based column in UTF-16 code units.")]


class FileQuery(ToolQuery):
    """A query about one file: where it is, and the opt-ins its reading may need."""

    #: The tool that takes this query (named in hints that repeat it).
    tool: ClassVar[str] = ""

    uri: str = Field(
        min_length=1,
        description="File: absolute or root-relative path, or file:// URI.",
    )
    hidden: bool = Field(default=False, description=HIDDEN_DESCRIPTION)
    includeSensitive: bool = Field(default=False, description=SENSITIVE_DESCRIPTION)

    def with_opt_ins(self, needed: Iterable[Withheld]) -> str:
        """This query as a call again, with the opt-ins ``needed`` set."""
        flags = {"hidden": "hidden", "sensitive": "includeSensitive"}
        again = {**self.params(), **{flags[reason]: True for reason in needed}}
        return f"{self.tool} {compact_json(again)}"


class SymbolQuery(FileQuery):
    """Where the symbol is: a file and a name near a line."""

    symbolName: str = Field(
        min_length=1,
        max_length=255,
        description="As written in the file (whole word; of a.b, b).",
    )
    lineHint: int = Field(ge=1, description="Its 1-based line; +-5 lines are tried next.")
    orderHint: int = Field(default=0, ge=0, description="Its nth occurrence on that line, from 0.")

    @field_validator("symbolName")
    @classmethod
    def _has_a_name(cls, symbol: str) -> str:
        # The part after the last dot is what is looked up: "." or "a." would look up nothing.
        if not symbol.rsplit(".", 1)[-1].strip():
            raise ValueError(
                "symbolName needs a name after its last '.', e.g. 'load_config' or 'config.load'"
            )
        return symbol


class GotoDefinitionQuery(SymbolQuery):
    """One lspGotoDefinition query."""

    tool: ClassVar[str] = "lspGotoDefinition"

    kind: DefinitionKind = Field(
        default="definition",
        description="typeDefinition: where its type is defined; implementation: what implements"
        " it (an interface, protocol or abstract method).",
    )
    contextLines: int = Field(default=5, ge=0, le=20, description="Lines around each definition.")


class FindReferencesQuery(SymbolQuery):
    """One lspFindReferences query."""

    tool: ClassVar[str] = "lspFindReferences"

    includeDeclaration: bool = Field(default=True, description="List the declaration too.")
    contextLines: int = Field(default=2, ge=0, le=10, description="Lines around each reference.")
    referencesPerPage: int = Field(default=20, ge=1, le=50, description="References per page.")
    page: PageNumber = 1


class CallHierarchyQuery(SymbolQuery):
    """One lspCallHierarchy query."""

    tool: ClassVar[str] = "lspCallHierarchy"

    direction: Literal["incoming", "outgoing"] = Field(
        description="incoming: who calls the function; outgoing: what the function calls."
    )
    depth: int = Field(default=1, ge=1, le=3, description="Levels of calls to follow.")
    contextLines: int = Field(default=2, ge=0, le=10, description="Lines around each call site.")
    callsPerPage: int = Field(default=15, ge=1, le=30, description="Calls per page.")
    page: PageNumber = 1


_CONTEXT = "Lines of code around content; left out when there are none (contextLines 0, file edge)."
_PATH = "The file's path relative to its allowed root (absolute when external)."
_WITHHELD = (
    "Set when the file is hidden or a credential file and the query did not opt in (hidden,"
    " includeSensitive): its code is left out; the hints give the call with the opt-in."
)


class Position(BaseModel):
    line: Line
    character: Character


class Range(BaseModel):
    start: Position
    end: Position


class ResolvedSymbol(BaseModel):
    """Where octo found the symbol it asked the server about."""

    line: int = Field(description="1-based line the symbol was found on.")
    character: int = Field(description="0-based UTF-16 column of its first character.")
    lineOffset: int = Field(description="Found line minus lineHint (0 when the hint was exact).")
    text: str = Field(description="That line of code.")


class CodeLocation(BaseModel):
    """A place in the code with the lines around it."""

    path: str = Field(description=_PATH)
    line: Line
    character: Character
    content: str | None = optional("That line (left out for external and withheld files).")
    contextBefore: list[str] = Field(
        default_factory=list, description=_CONTEXT, exclude_if=lambda v: not v
    )
    contextAfter: list[str] = Field(
        default_factory=list, description=_CONTEXT, exclude_if=lambda v: not v
    )
    external: bool | None = optional("True for a file outside the allowed roots (not read).")
    withheld: Withheld | None = optional(_WITHHELD)


class ServerAnswer(ToolResult):
    """What every LSP answer holds: the server that answered, and whether it is whole."""

    server: str = Field(description="The language server that answered.")
    partial: bool | None = optional(
        "True when the answer may be incomplete: the server was still indexing, or"
        " a limit or a failed request left calls out (call hierarchy); the hints say which."
    )
    tokens: TokenInfo | None = None


class NavigationResult(ServerAnswer):
    """An answer about a symbol: where it was found, and the server that answered."""

    resolved: ResolvedSymbol


class GotoDefinitionResult(NavigationResult):
    items_field: ClassVar[str] = "definitions"

    definitions: list[CodeLocation]


class FindReferencesResult(NavigationResult):
    """One page of the references; a page past the last one is empty (its hint names the
    last page)."""

    items_field: ClassVar[str] = "references"

    references: list[CodeLocation]
    totalReferences: int
    pagination: Pagination


class CallEnd(BaseModel):
    """A function at one end of a call."""

    name: str
    path: str = Field(description=_PATH)
    line: int = Field(description="1-based line of the function's name.")
    character: Character
    external: bool | None = None
    withheld: Withheld | None = optional(_WITHHELD)


class Call(BaseModel):
    """``from`` calls ``to`` at ``callSites`` (places in ``from``'s file). The end that is
    the asked function (the answer's ``item``) is left out: it is said once, in ``item``."""

    from_: CallEnd | None = Field(
        default=None, alias="from", description="The caller; left out when it is item."
    )
    to: CallEnd | None = optional("The callee; left out when it is item.")
    callSites: list[Position] = Field(description="Where the calls start, in the caller's file.")
    content: str | None = optional(
        "The line of the first call site (left out for external and withheld files)."
    )
    contextBefore: list[str] = Field(
        default_factory=list, description=_CONTEXT, exclude_if=lambda v: not v
    )
    contextAfter: list[str] = Field(
        default_factory=list, description=_CONTEXT, exclude_if=lambda v: not v
    )
    depth: int = Field(description="1 for direct calls, 2-3 for calls of those.")

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


class CallHierarchyResult(NavigationResult):
    budget_items: ClassVar[tuple[str, ...] | None] = ("calls",)

    item: CallEnd = Field(description="The function the hierarchy starts from.")
    calls: list[Call]
    totalCalls: int
    pagination: Pagination

    def is_empty(self) -> bool:
        # No calls found by an expansion a limit cut short says nothing of whether there are any;
        # a page past the last one is empty, with the way to the last page in a hint.
        return not self.calls and not self.partial


class HoverQuery(SymbolQuery):
    """One lspHover query."""

    tool: ClassVar[str] = "lspHover"

    maxChars: int = Field(
        default=4000, ge=200, le=20000, description="Longest hover text returned (markdown)."
    )


class HoverResult(NavigationResult):
    items_field: ClassVar[str] = "markdown"

    markdown: str | None = Field(
        description="The symbol's signature and documentation as the server renders them."
    )
    truncated: bool = Field(default=False, description="True when markdown was cut to maxChars.")
    range: Range | None = optional("What the hover is about, if said.")


class TypeHierarchyQuery(SymbolQuery):
    """One lspTypeHierarchy query."""

    tool: ClassVar[str] = "lspTypeHierarchy"

    direction: Literal["supertypes", "subtypes", "both"] = Field(
        default="both", description="supertypes: what it extends; subtypes: what extends it."
    )
    depth: int = Field(default=1, ge=1, le=3, description="Levels to follow (1-3).")


class TypeNode(BaseModel):
    """A class or interface in the hierarchy, and the one it was reached from."""

    name: str
    kind: str = Field(description="LSP symbol kind (class, interface, struct...).")
    detail: str | None = None
    path: str = Field(description=_PATH)
    line: int = Field(description="1-based line of its name.")
    character: Character
    depth: int = Field(description="1 for direct super/subtypes, 2-3 beyond.")
    of: str = Field(description="The type it is a super- or subtype of.")
    external: bool | None = None
    withheld: Withheld | None = optional(_WITHHELD)


class TypeHierarchyResult(NavigationResult):
    #: Over the budget, subtypes are cut first, then supertypes.
    budget_items: ClassVar[tuple[str, ...] | None] = ("supertypes", "subtypes")

    item: TypeNode = Field(description="The type the hierarchy starts from (depth 0).")
    supertypes: list[TypeNode]
    subtypes: list[TypeNode]

    def is_empty(self) -> bool:
        return not self.supertypes and not self.subtypes
