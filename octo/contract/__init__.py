"""The contract between the dispatcher and the tool families: a tool's spec, the context a
handler gets, the answer it returns, and the runtime that owns shared resources."""

from octo.contract.context import Answer
from octo.contract.context import ProgressReporter
from octo.contract.context import QueryContext
from octo.contract.runtime import Backend
from octo.contract.runtime import Runtime
from octo.contract.spec import Handler
from octo.contract.spec import ToolCategory
from octo.contract.spec import ToolSpec
from octo.contract.spec import WarmUp
from octo.contract.spec import lazy
from octo.contract.spec import lazy_warm_up

__all__ = [
    "Answer",
    "Backend",
    "Handler",
    "ProgressReporter",
    "QueryContext",
    "Runtime",
    "ToolCategory",
    "ToolSpec",
    "WarmUp",
    "lazy",
    "lazy_warm_up",
]
