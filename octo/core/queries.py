"""What every tool takes and gives: ``ToolQuery`` (the base of every query model) and
``ToolResult``; ``mendable``, ``FieldAlias``: how a query that fails validation is mended."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated
from typing import Any
from typing import ClassVar

from pydantic import AfterValidator
from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import field_validator
from pydantic_core import PydanticCustomError

#: The research-context fields every query may carry; echoed back, never part of the answer.
CONTEXT_FIELDS = frozenset({"mainResearchGoal", "researchGoal", "reasoning"})


def optional(description: str, **constraints: Any) -> Any:
    """A field that is None unless given, with its words for tools/list; ``constraints``
    (ge, le, min_length...) as :func:`pydantic.Field` takes them."""
    return Field(default=None, description=description, **constraints)


#: Fields several tools' models hold alike, so the same words give the same schema.
PageNumber = Annotated[int, Field(ge=1)]
FileSize = Annotated[int, Field(description="File size in bytes.")]
BudgetHandle = Annotated[
    str | None, Field(description="Cut to the token budget: getCachedContent gives all of it.")
]


class BlameRange(BaseModel):
    """Lines of a file last changed by one commit: a blame's item, of a host's file
    (githubGetFileBlame) or, as :class:`BlameHunkItem`, a checkout's."""

    startLine: int
    endLine: int
    sha: str
    author: str
    date: str
    summary: str


class BlameHunkItem(BlameRange):
    """Lines last changed by one commit, and where they stood in it: a hunk of ``git blame``
    (localGitBlame's item; traceLine's lines of a checkout)."""

    originalLine: int
    originalPath: str
    lines: list[str]


def matching(pattern: str, problem: str) -> AfterValidator:
    """A check that a text matches ``pattern`` whole; else a ValueError saying ``problem``
    (its ``{value}`` is the text given)."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            raise ValueError(problem.format(value=as_written(value)))
        return value

    return AfterValidator(check)


def as_written(value: str) -> str:
    """``value`` fit for a message: a lone surrogate (JSON carries one, UTF-8 cannot) is
    written as its escape, so the error that names it can be sent."""
    return value.encode("utf-8", "backslashreplace").decode("utf-8")


def is_text(value: str) -> bool:
    """False when ``value`` holds a lone surrogate: JSON can carry one ("\\ud800"), but no
    UTF-8 answer, file name, command line or URL can."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple | set | frozenset):
        return [text for item in value for text in _strings(item)]
    return []


@dataclass(frozen=True)
class FieldAlias:
    """Another tool's name for one of a query's fields (``total_only`` for
    ``outputMode: "totalOnly"``, ``fixed_strings`` for ``fixedString``).

    ``value`` is what a true flag under the other name stands for; None: the value given
    under the other name carries over as it is.
    """

    field: str
    value: Any = None


def mendable(message: str, **mend: Any) -> PydanticCustomError:
    """A validation error (raise it from a validator) whose query the dispatcher can mend:
    ``mend`` maps fields to the values that resolve it, None to drop the field."""
    return PydanticCustomError("mendable", message, {"mend": mend})


class ToolQuery(BaseModel):
    """Base of every query model: the research-context fields, echoed back per result."""

    model_config = ConfigDict(extra="forbid")

    #: Names other tools give this model's fields: a query using one still fails
    #: validation (nothing is guessed silently), and its hint is the query mended.
    field_aliases: ClassVar[Mapping[str, FieldAlias]] = {}
    #: The fields tools/list describes in full besides the research context (None: all);
    #: the others are published by shape only, their words said by another tool.
    described_here: ClassVar[frozenset[str] | None] = None

    # Their names say what they hold: no words in tools/list (29 tools publish them).
    mainResearchGoal: str | None = None
    researchGoal: str | None = None
    reasoning: str | None = None

    @field_validator("*", mode="after")
    @classmethod
    def _unicode_text(cls, value: Any) -> Any:
        if not all(is_text(text) for text in _strings(value)):
            raise ValueError("holds a lone surrogate (\\ud800-\\udfff), which is not Unicode text")
        return value

    def cache_key(self) -> str:
        """Normalised form of everything that changes the answer (context fields excluded)."""
        return self.model_dump_json(exclude=set(CONTEXT_FIELDS), exclude_none=True)

    def params(self) -> dict[str, Any]:
        """The parameters that differ from their defaults, JSON-ready, context fields left out:
        the base of a follow-up query in a hint."""
        params: dict[str, Any] = self.model_dump(
            mode="json", exclude_defaults=True, exclude=set(CONTEXT_FIELDS)
        )
        return params


@dataclass(frozen=True)
class PageFields:
    """The query fields that page a result's items: the page's number and the items a page
    holds (``filePageNumber``, ``filesPerPage``)."""

    page: str
    per_page: str


class ToolResult(BaseModel):
    """Base of every result model."""

    #: The field listing what the query found: the answer is empty when it holds nothing
    #: (None: a result that is never empty by that test, or says so itself).
    items_field: ClassVar[str | None] = None
    #: The lists the dispatcher's finishing stage may cut to the token budget, the last
    #: first (None: ``items_field``, when it is a list).
    budget_items: ClassVar[tuple[str, ...] | None] = None
    #: The query fields that page ``items_field`` (None: the query pages none of them); an
    #: answer of several places splits and ranks its page by them.
    page_fields: ClassVar[PageFields | None] = None
    #: The field saying where the page sits (``currentPage``, ``hasMore``, ``totalPages``).
    pagination_field: ClassVar[str] = "pagination"

    @classmethod
    def paged_by(cls, query: ToolQuery) -> PageFields | None:
        """The query fields that page the items of ``query``'s answer: ``page_fields``, unless
        the query's options page them another way."""
        return cls.page_fields

    def cut_lists(self) -> tuple[str, ...]:
        """The lists this answer, too large for its budget, gives up items from, the last
        first."""
        if self.budget_items is not None:
            return self.budget_items
        return () if self.items_field is None else (self.items_field,)

    def is_empty(self) -> bool:
        """True when the query ran fine but found nothing; the envelope status becomes empty."""
        return self.items_field is not None and not getattr(self, self.items_field)
