"""How octo's pygls client talks to a server: replies stay plain JSON, and the server's own
requests (configuration, progress tokens, capability registration) get an answer."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from lsprotocol import types as lsp
from pygls.protocol import JsonRPCResponseMessage
from pygls.protocol import LanguageServerProtocol
from pygls.protocol import default_converter

from octo.core import VERSION
from octo.lsp.servers.wire.documents import PublishedDiagnostics
from octo.lsp.servers.wire.framing import CappedLanguageClient
from octo.lsp.servers.wire.progress import ProgressTracker

if TYPE_CHECKING:
    from cattrs import Converter

#: Requests whose params go out as plain JSON: call- and type-hierarchy items go back to the
#: server exactly as they came (``data`` included).
NAVIGATION_METHODS = frozenset(
    {
        lsp.TEXT_DOCUMENT_DEFINITION,
        lsp.TEXT_DOCUMENT_DECLARATION,
        lsp.TEXT_DOCUMENT_TYPE_DEFINITION,
        lsp.TEXT_DOCUMENT_IMPLEMENTATION,
        lsp.TEXT_DOCUMENT_HOVER,
        lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
        lsp.WORKSPACE_SYMBOL,
        lsp.TEXT_DOCUMENT_DIAGNOSTIC,
        lsp.TEXT_DOCUMENT_PREPARE_TYPE_HIERARCHY,
        lsp.TYPE_HIERARCHY_SUPERTYPES,
        lsp.TYPE_HIERARCHY_SUBTYPES,
        lsp.TEXT_DOCUMENT_REFERENCES,
        lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY,
        lsp.CALL_HIERARCHY_INCOMING_CALLS,
        lsp.CALL_HIERARCHY_OUTGOING_CALLS,
    }
)

#: Server notifications and requests octo has nothing to say to.
_IGNORED = (
    lsp.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
    lsp.WORKSPACE_CODE_LENS_REFRESH,
    lsp.WORKSPACE_INLAY_HINT_REFRESH,
    lsp.WORKSPACE_INLINE_VALUE_REFRESH,
    lsp.WORKSPACE_DIAGNOSTIC_REFRESH,
    lsp.WINDOW_SHOW_MESSAGE,
    lsp.TELEMETRY_EVENT,
    lsp.LOG_TRACE,
    "$/typescriptVersion",
)


class _RawResultProtocol(LanguageServerProtocol):
    """Keeps response results as plain JSON instead of structuring them with cattrs.

    Structuring replies buys nothing here (we normalise them ourselves) and some
    cattrs releases fail on valid replies (a notebookSelector with ``cells`` in
    the initialize result), after which pygls drops the reply and the request
    hangs forever.
    """

    # pygls wraps these in lru_cache; plain overrides are what we want here.
    def get_result_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        return None

    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        return None if method in NAVIGATION_METHODS else super().get_message_type(method)


def _converter() -> Converter:
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    # Results stay plain JSON: pygls would turn untyped results into namedtuples.
    converter.register_structure_hook(JsonRPCResponseMessage, lambda obj, cls: cls(**obj))
    return converter


def language_client(
    root: Path,
    progress: ProgressTracker,
    published: PublishedDiagnostics,
    sections: Mapping[str, Any] | None = None,
) -> CappedLanguageClient:
    """A pygls client for a server on workspace ``root`` that feeds ``progress`` and keeps
    the diagnostics it publishes in ``published``; the server's messages are read within octo's size limit (octo.lsp.servers.wire.framing).
    ``sections``: octo's answer to ``workspace/configuration`` by section (others: none)."""
    known = dict(sections or {})
    client = CappedLanguageClient(
        "octo", VERSION, protocol_cls=_RawResultProtocol, converter_factory=_converter
    )
    folders = [lsp.WorkspaceFolder(uri=root.as_uri(), name=root.name)]
    answers: dict[str, Callable[[Any], Any]] = {
        lsp.WORKSPACE_CONFIGURATION: lambda params: [
            known.get(i.section or "") for i in params.items
        ],
        lsp.WINDOW_WORK_DONE_PROGRESS_CREATE: lambda params: None,
        lsp.CLIENT_REGISTER_CAPABILITY: lambda params: None,
        lsp.CLIENT_UNREGISTER_CAPABILITY: lambda params: None,
        lsp.WORKSPACE_WORKSPACE_FOLDERS: lambda params: folders,
        lsp.WINDOW_SHOW_MESSAGE_REQUEST: lambda params: None,
        lsp.WORKSPACE_APPLY_EDIT: lambda params: lsp.ApplyWorkspaceEditResult(applied=False),
        # pygls tags each handler with attributes, which bound methods cannot carry.
        lsp.PROGRESS: lambda params: progress.on_progress(params),
        lsp.WINDOW_LOG_MESSAGE: lambda params: progress.on_log(params),
        lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: lambda params: published.on_publish(params),
    }
    for method in _IGNORED:
        answers[method] = lambda params: None
    for method, answer in answers.items():
        client.feature(method)(answer)
    return client
