"""Result envelopes: one per query, gathered into one bulk response per call."""

from __future__ import annotations

from enum import StrEnum
from typing import Any
from typing import Generic
from typing import TypeVar

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import field_serializer

from octo.core.errors import ErrorCode
from octo.core.queries import optional

DataT = TypeVar("DataT", bound=BaseModel)


class QueryStatus(StrEnum):
    SUCCESS = "success"
    EMPTY = "empty"
    ERROR = "error"


class ErrorInfo(BaseModel):
    """What went wrong with one query."""

    code: ErrorCode
    message: str
    resetAt: str | None = optional("ISO time when an exhausted rate limit resets.")

    @field_serializer("code")
    def _plain_code(self, code: ErrorCode) -> str:
        # model_dump() gives plain data (the code's string), as the wire form does.
        return code.value


class ResultEnvelope(BaseModel, Generic[DataT]):
    """The answer to one query of a bulk call."""

    model_config = ConfigDict(extra="forbid")

    queryIndex: int = Field(description="Position of the query in the call, from 0.")
    status: QueryStatus
    data: DataT | None = None
    error: ErrorInfo | None = None
    hints: list[str] = Field(default_factory=list, description="Concrete next steps.")
    cached: bool | None = optional("True when served from the cache.")
    partial: bool | None = optional(
        "True when a limit cut the answer short; the hints say how to get the rest."
    )
    mainResearchGoal: str | None = None
    researchGoal: str | None = None
    reasoning: str | None = None

    @field_serializer("status")
    def _plain_status(self, status: QueryStatus) -> str:
        # model_dump() gives plain data ("success"), not the enum member.
        return status.value


class BulkResponse(BaseModel, Generic[DataT]):
    """The answer to a call: one envelope per query, in query order."""

    results: list[ResultEnvelope[DataT]]

    @property
    def all_failed(self) -> bool:
        return bool(self.results) and all(r.status is QueryStatus.ERROR for r in self.results)

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready form: unset optional fields are left out to save tokens."""
        return self.model_dump(mode="json", exclude_none=True)

    def to_compact_json(self) -> str:
        return self.model_dump_json(exclude_none=True)


#: The envelopes of every call, held here: pydantic keeps a generic's parametrised class
#: weakly, so unheld the garbage collector takes it and the next call builds it again
#: (about a millisecond each, most of a quick query's time).
_HELD = (ResultEnvelope[Any], BulkResponse[Any])
