"""One running language server, and the requests octo sends it.

Every request is bounded by a timeout followed by ``$/cancelRequest``; a JSON-RPC error
reply, a crash and a malformed reply each become an LSP_NOT_AVAILABLE error naming the
server. Stopping is shutdown -> exit -> bounded wait -> process-group kill.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import anyio
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.exceptions import JsonRpcMethodNotFound

from octo.core import VERSION
from octo.core.errors import LspNotAvailableError
from octo.core.errors import OctoError
from octo.core.errors import QueryTimeoutError
from octo.lsp.servers.wire.documents import OpenDocuments
from octo.lsp.servers.wire.documents import PublishedDiagnostics
from octo.lsp.servers.wire.documents import Source
from octo.lsp.servers.wire.process import StderrTail
from octo.lsp.servers.wire.process import end_group
from octo.lsp.servers.wire.process import spawn
from octo.lsp.servers.wire.progress import ProgressTracker
from octo.lsp.servers.wire.protocol import language_client

if TYPE_CHECKING:
    from octo.contract.runtime import Runtime

_CONTENT_MODIFIED = -32801
#: Initialization options of a server on an untrusted workspace (a clone): rust-analyzer
#: runs no build script (build.rs) and expands no procedural macro (both run the clone's
#: code); other servers ignore options they do not know.
UNTRUSTED_OPTIONS = {"cargo": {"buildScripts": {"enable": False}}, "procMacro": {"enable": False}}


class ServerCrashedError(LspNotAvailableError):
    """The server process exited; the message carries the tail of its stderr."""


class ServerStoppedError(LspNotAvailableError):
    """octo stopped the server (idle, making room, hung) while a request was waiting."""


class UnsupportedOperationError(LspNotAvailableError):
    """The server does not offer the operation (capability missing or MethodNotFound)."""


class OversizedMessageError(ServerCrashedError):
    """The server sent a message over octo's size limit; octo stopped it (a crash to the
    pool: it starts again on the next query)."""


class RequestFailedError(LspNotAvailableError):
    """The server answered a request with a JSON-RPC error."""


class MalformedReplyError(LspNotAvailableError):
    """The server answered with something that is not the LSP shape asked for."""


class RequestTimeoutError(QueryTimeoutError):
    """A request got no answer in time; it was cancelled on the server."""


class LspClient:
    """A started language server. Create with :meth:`start`; always :meth:`aclose`."""

    def __init__(
        self,
        server_id: str,
        root: Path,
        loaded_log: str | None = None,
        sections: Mapping[str, Any] | None = None,
    ) -> None:
        self.server_id = server_id
        self.root = root
        #: The configured settings by section, sent once initialized.
        self.settings: Mapping[str, Any] = {}
        self.progress = ProgressTracker(loaded_log)
        self.stderr = StderrTail()
        self.capabilities: dict[str, Any] = {}
        self.documents = OpenDocuments(self.notify)
        self.published = PublishedDiagnostics()
        self._client = language_client(root, self.progress, self.published, sections)
        self._process: asyncio.subprocess.Process | None = None
        self._stopped_because: str | None = None
        self._closed = anyio.Event()
        self._closing = False

    @property
    def alive(self) -> bool:
        process = self._process
        return process is not None and process.returncode is None and not self._client.stopped

    @property
    def pid(self) -> int | None:
        """The server's process id (its session's id too), once spawned."""
        return self._process.pid if self._process is not None else None

    @classmethod
    async def start(
        cls,
        server_id: str,
        argv: tuple[str, ...],
        root: Path,
        env: Mapping[str, str],
        *,
        init_timeout: float,
        runtime: Runtime,
        loaded_log: str | None = None,
        untrusted: bool = False,
        sections: Mapping[str, Any] | None = None,
        settings: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> LspClient:
        """Spawn the server in its own process group, drain its stderr in the runtime's
        task group, and run the initialize handshake (``untrusted``: a workspace whose
        build scripts and macros must not run; ``sections``: octo's settings by section,
        sent as initialization options and as the answer to ``workspace/configuration``;
        ``settings`` and ``options``: the server's configured settings by section and
        initialization options, under octo's own)."""
        self = cls(server_id, root, loaded_log, {**(settings or {}), **(sections or {})})
        self.settings = dict(settings or {})
        try:
            self._process = await spawn(self._client, argv, root, env)
        except OSError as exc:
            raise LspNotAvailableError(
                f"Cannot start {server_id} ({argv[0]}): {exc}",
                hints=["Check that the server is installed and executable."],
            ) from None
        try:
            stderr = self._process.stderr
            assert stderr is not None  # pygls pipes it
            runtime.start_background(self.stderr.drain, stderr, name=f"{server_id} stderr")
            own: Mapping[str, Any] = next(iter((sections or {}).values()), {})
            chosen = {**(options or {}), **(UNTRUSTED_OPTIONS if untrusted else {}), **own}
            await self._initialize(init_timeout, chosen or None)
        except BaseException:
            await self.aclose()
            raise
        return self

    async def _initialize(self, seconds: float, options: Mapping[str, Any] | None) -> None:
        uri = self.root.as_uri()
        params = lsp.InitializeParams(
            initialization_options=options,
            process_id=os.getpid(),
            root_uri=uri,
            root_path=str(self.root),
            workspace_folders=[lsp.WorkspaceFolder(uri=uri, name=self.root.name)],
            client_info=lsp.ClientInfo(name="octo", version=VERSION),
            capabilities=lsp.ClientCapabilities(
                general=lsp.GeneralClientCapabilities(
                    position_encodings=[lsp.PositionEncodingKind.Utf16]
                ),
                window=lsp.WindowClientCapabilities(work_done_progress=True),
                workspace=lsp.WorkspaceClientCapabilities(
                    configuration=True, workspace_folders=True
                ),
                text_document=lsp.TextDocumentClientCapabilities(
                    synchronization=lsp.TextDocumentSyncClientCapabilities(),
                    definition=lsp.DefinitionClientCapabilities(link_support=True),
                    declaration=lsp.DeclarationClientCapabilities(link_support=True),
                    references=lsp.ReferenceClientCapabilities(),
                    call_hierarchy=lsp.CallHierarchyClientCapabilities(),
                    type_definition=lsp.TypeDefinitionClientCapabilities(link_support=True),
                    implementation=lsp.ImplementationClientCapabilities(link_support=True),
                    hover=lsp.HoverClientCapabilities(
                        content_format=[lsp.MarkupKind.Markdown, lsp.MarkupKind.PlainText]
                    ),
                    document_symbol=lsp.DocumentSymbolClientCapabilities(
                        hierarchical_document_symbol_support=True
                    ),
                    type_hierarchy=lsp.TypeHierarchyClientCapabilities(),
                    diagnostic=lsp.DiagnosticClientCapabilities(),
                    publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(),
                ),
            ),
        )
        result = await self.request(lsp.INITIALIZE, params, seconds)
        if not isinstance(result, Mapping) or not isinstance(result.get("capabilities"), Mapping):
            raise MalformedReplyError(f"{self.server_id} answered initialize without capabilities")
        self.capabilities = dict(result["capabilities"])
        await self.notify(lsp.INITIALIZED, lsp.InitializedParams())
        # pyright stays silent until it has been told about (empty) settings.
        await self.notify(
            lsp.WORKSPACE_DID_CHANGE_CONFIGURATION,
            lsp.DidChangeConfigurationParams(settings=dict(self.settings)),
        )

    def supports(self, capability: str) -> bool:
        """True when the server advertised ``capability`` (e.g. ``callHierarchyProvider``)."""
        value = self.capabilities.get(capability)
        return value is not None and value is not False

    async def exit_error(self) -> LspNotAvailableError:
        """Why the server is gone: stopped by octo, or crashed (with its last stderr lines)."""
        if self._stopped_because is not None:
            return ServerStoppedError(
                f"{self.server_id} was stopped ({self._stopped_because}) before it answered",
                hints=["Retry: octo starts the server again on the next query."],
            )
        if self._client.refused is not None:
            return OversizedMessageError(
                f"{self.server_id} sent {self._client.refused}; octo stopped it",
                hints=[
                    "Ask for less at once (a more specific symbol); octo starts the server "
                    "again on the next query.",
                ],
            )
        tail = await self.stderr.last_words(8)
        code = self._process.returncode if self._process is not None else None
        return ServerCrashedError(
            f"{self.server_id} exited (code {code})"
            + (": " + " | ".join(tail) if tail else " without output on stderr"),
            hints=["octo restarts the server on the next query (with backoff)."],
        )

    async def request(self, method: str, params: Any, seconds: float) -> Any:
        """Send one request and return its JSON result.

        After ``seconds`` without an answer the request is cancelled on the server.
        """
        for attempt in range(3):
            try:
                return await self._request_once(method, params, seconds)
            except JsonRpcException as exc:
                if exc.code == _CONTENT_MODIFIED and attempt < 2:
                    await anyio.sleep(0.2)
                    continue
                if isinstance(exc, JsonRpcMethodNotFound):
                    raise UnsupportedOperationError(
                        f"{self.server_id} does not implement {method}",
                        hints=[
                            "Use another server for this language (OCTO_LSP_<LANGUAGE>_SERVERS)."
                        ],
                    ) from None
                raise RequestFailedError(
                    f"{self.server_id} failed on {method}: {exc}",
                    hints=[
                        "Retry; if it fails again, choose another server with "
                        "OCTO_LSP_<LANGUAGE>_SERVERS."
                    ],
                ) from None
        raise AssertionError("unreachable")

    async def _request_once(self, method: str, params: Any, seconds: float) -> Any:
        if not self.alive:
            raise await self.exit_error()
        protocol = self._client.protocol
        msg_id = os.urandom(8).hex()
        try:
            future = protocol.send_request_async(method, params, msg_id=msg_id)
        except (RuntimeError, OSError):
            raise await self.exit_error() from None
        try:
            with anyio.fail_after(seconds):
                return await future
        except TimeoutError:
            self._cancel(msg_id)
            raise RequestTimeoutError(
                f"{self.server_id} did not answer {method} within {seconds:.3g} s",
                hints=["The server may still be indexing; retry in a few seconds."],
            ) from None
        except anyio.get_cancelled_exc_class():
            self._cancel(msg_id)
            raise
        except RuntimeError:
            # pygls fails pending requests with RuntimeError when the process exits.
            raise await self.exit_error() from None

    def _cancel(self, msg_id: str) -> None:
        # Whatever a cancelled request returns later (some servers send a partial list) is dropped.
        self._client.protocol._request_futures.pop(msg_id, None)
        if self.alive:
            with contextlib.suppress(RuntimeError, OSError):
                self._client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id=msg_id))

    async def notify(self, method: str, params: Any) -> None:
        """Send a notification; a server that is gone raises its exit error."""
        if not self.alive:
            raise await self.exit_error()
        try:
            self._client.protocol.notify(method, params)
        except (RuntimeError, OSError):
            raise await self.exit_error() from None

    async def open_document(self, source: Source, language_id: str) -> None:
        """Make the server see ``source`` as it is on disk now."""
        await self.documents.sync(source, language_id)

    async def aclose(self, reason: str | None = None) -> None:
        """shutdown -> exit -> 1 s -> SIGTERM the group -> 1 s -> SIGKILL the group.

        ``reason`` (idle, making room...) is what waiting requests are told. A server
        that never finished initialize or does not answer shutdown within 1.5 s is killed
        at once, so closing stays within the 2 s an MCP client grants octo to exit after
        it closes octo's stdin. Closing twice waits for the first close.
        """
        with anyio.CancelScope(shield=True):
            if self._closing:
                await self._closed.wait()
                return
            self._closing = True
            if self._stopped_because is None and reason is not None:
                self._stopped_because = reason
            try:
                await self._stop()
            finally:
                self._closed.set()

    async def _stop(self) -> None:
        process = self._process
        polite = False
        if self.alive and self.capabilities:
            try:
                await self._request_once(lsp.SHUTDOWN, None, 1.5)
                self._client.protocol.notify(lsp.EXIT, None)
                polite = True
            except (OctoError, RuntimeError, OSError):
                pass
        if process is not None:
            await end_group(process, polite=polite)
        with anyio.move_on_after(5.0):
            await self._client.stop()  # type: ignore[no-untyped-call]
        self._client.close_pipes()
        await anyio.lowlevel.checkpoint()  # the pipes close on the loop's next turn
