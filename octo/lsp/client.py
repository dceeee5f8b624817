"""One language-server process and the pygls client that talks to it.

The client answers the server's own requests (configuration, progress tokens,
capability registration), tracks ``$/progress`` to know when the server is
still indexing, keeps the tail of its stderr for crash reports, bounds every
request with a timeout followed by ``$/cancelRequest``, and stops the server
as shutdown -> exit -> bounded wait -> process-group kill.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ctypes
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcMethodNotFound
from pygls.lsp.client import LanguageClient
from pygls.protocol import JsonRPCResponseMessage, LanguageServerProtocol, default_converter

from octo.core.errors import LspNotAvailableError, OctoError, QueryTimeoutError
from octo.core.version import VERSION as __version__
from octo.lsp import reaper

if TYPE_CHECKING:
    from cattrs import Converter

_CONTENT_MODIFIED = -32801

NAVIGATION_METHODS = frozenset(
    {
        lsp.TEXT_DOCUMENT_DEFINITION,
        lsp.TEXT_DOCUMENT_DECLARATION,
        lsp.TEXT_DOCUMENT_REFERENCES,
        lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY,
        lsp.CALL_HIERARCHY_INCOMING_CALLS,
        lsp.CALL_HIERARCHY_OUTGOING_CALLS,
    }
)
_STDERR_LINES = 50
_OPEN_DOCUMENTS = 64


class ServerCrashedError(LspNotAvailableError):
    """The server process exited; the message carries the tail of its stderr."""


class UnsupportedOperationError(LspNotAvailableError):
    """The server does not offer the operation (capability missing or MethodNotFound)."""


class RequestTimeoutError(QueryTimeoutError):
    """A request got no answer in time; it was cancelled on the server."""


class MalformedReplyError(OctoError):
    """The server answered with something that is not the LSP shape asked for."""


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
        # Navigation requests carry plain JSON params: call-hierarchy items go back to
        # the server exactly as it sent them (``data`` included).
        return None if method in NAVIGATION_METHODS else super().get_message_type(method)


def _converter() -> Converter:
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    # Results stay plain JSON: pygls would turn untyped results into namedtuples.
    converter.register_structure_hook(JsonRPCResponseMessage, lambda obj, cls: cls(**obj))
    return converter


class ProgressTracker:
    """Is the server still indexing? Open ``$/progress`` tokens, or (for servers that
    report no progress while finding the workspace's files) no ``loaded_log`` message yet."""

    def __init__(self, loaded_log: str | None = None) -> None:
        self.open_tokens: set[str] = set()
        self.ever_began = False
        self.last_change = time.monotonic()
        self._loaded_log = re.compile(loaded_log) if loaded_log else None
        self.loaded = loaded_log is None

    @property
    def busy(self) -> bool:
        return bool(self.open_tokens) or not self.loaded

    def on_log(self, params: lsp.LogMessageParams) -> None:
        if not self.loaded and self._loaded_log and self._loaded_log.search(params.message):
            self.loaded = True
            self.last_change = time.monotonic()

    def on_progress(self, params: lsp.ProgressParams) -> None:
        value = params.value if isinstance(params.value, Mapping) else {}
        kind = value.get("kind")
        token = str(params.token)
        if kind == "begin":
            self.open_tokens.add(token)
            self.ever_began = True
        elif kind == "end":
            self.open_tokens.discard(token)
        self.last_change = time.monotonic()

    async def settle(self, cap: float, *, first_begin: float = 0.5, quiet: float = 0.2) -> None:
        """Wait until indexing looks done: no begin within ``first_begin`` s, or all tokens
        ended ``quiet`` s ago; never longer than ``cap`` s."""
        start = time.monotonic()
        while (now := time.monotonic()) - start < cap:
            if not self.busy:
                if self.ever_began and now - self.last_change >= quiet:
                    return
                if not self.ever_began and now - start >= first_begin:
                    return
            await anyio.sleep(0.02)


def _stderr_pipe(ring: collections.deque[str]) -> tuple[int, threading.Thread]:
    """A pipe whose read end a daemon thread drains into ``ring``; returns the write end.

    A thread rather than a task: it needs no task group to outlive the query that
    started the server, and it ends by itself at EOF when the process group dies.
    """
    read_fd, write_fd = os.pipe()

    def drain() -> None:
        with os.fdopen(read_fd, "rb") as stream:
            for raw in stream:
                ring.append(raw.decode("utf-8", "replace").rstrip())

    thread = threading.Thread(target=drain, name="octo-lsp-stderr", daemon=True)
    thread.start()
    return write_fd, thread


def _child_setup(stderr_fd: int) -> Callable[[], None]:
    """Runs in the forked child: stderr into our pipe, die with the parent (Linux)."""
    prctl = ctypes.CDLL(None).prctl if sys.platform == "linux" else None

    def setup() -> None:
        os.dup2(stderr_fd, 2)
        if prctl is not None:
            prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

    return setup


async def _exited(process: asyncio.subprocess.Process, seconds: float) -> bool:
    """Whether ``process`` exits within ``seconds``.

    Polls the return code rather than ``process.wait()``, which also waits for the pipes
    to close: a child of the server holding them would make an exited server look hung.
    """
    for _ in range(max(1, round(seconds / 0.02))):
        if process.returncode is not None:
            return True
        await anyio.sleep(0.02)
    return process.returncode is not None


class LspClient:
    """A started language server. Create with :meth:`start`; always :meth:`aclose`."""

    def __init__(self, server_id: str, root: Path, loaded_log: str | None = None) -> None:
        self.server_id = server_id
        self.root = root
        self.progress = ProgressTracker(loaded_log)
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self.capabilities: dict[str, Any] = {}
        self._stderr_drain: threading.Thread | None = None
        self._documents: collections.OrderedDict[Path, tuple[int, int, int]] = (
            collections.OrderedDict()
        )
        self._client = LanguageClient(
            "octo", __version__, protocol_cls=_RawResultProtocol, converter_factory=_converter
        )
        self._register_handlers()

    @property
    def pid(self) -> int | None:
        process = self._client._server
        return process.pid if process is not None else None

    @property
    def alive(self) -> bool:
        process = self._client._server
        return process is not None and process.returncode is None and not self._client.stopped

    def _register_handlers(self) -> None:
        client = self._client
        folders = [lsp.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)]
        answers: dict[str, Callable[[Any], Any]] = {
            lsp.WORKSPACE_CONFIGURATION: lambda params: [None for _ in params.items],
            lsp.WINDOW_WORK_DONE_PROGRESS_CREATE: lambda params: None,
            lsp.CLIENT_REGISTER_CAPABILITY: lambda params: None,
            lsp.CLIENT_UNREGISTER_CAPABILITY: lambda params: None,
            lsp.WORKSPACE_WORKSPACE_FOLDERS: lambda params: folders,
            lsp.WINDOW_SHOW_MESSAGE_REQUEST: lambda params: None,
            lsp.WORKSPACE_APPLY_EDIT: lambda params: lsp.ApplyWorkspaceEditResult(applied=False),
            lsp.PROGRESS: lambda params: self.progress.on_progress(params),
            lsp.WINDOW_LOG_MESSAGE: lambda params: self.progress.on_log(params),
        }
        for method in (
            lsp.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
            lsp.WORKSPACE_CODE_LENS_REFRESH,
            lsp.WORKSPACE_INLAY_HINT_REFRESH,
            lsp.WORKSPACE_INLINE_VALUE_REFRESH,
            lsp.WORKSPACE_DIAGNOSTIC_REFRESH,
            lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
            lsp.WINDOW_SHOW_MESSAGE,
            lsp.TELEMETRY_EVENT,
            lsp.LOG_TRACE,
            "$/typescriptVersion",
        ):
            answers[method] = lambda params: None
        for method, answer in answers.items():
            client.feature(method)(answer)

    @classmethod
    async def start(
        cls,
        server_id: str,
        argv: tuple[str, ...],
        root: Path,
        env: Mapping[str, str],
        *,
        init_timeout: float,
        loaded_log: str | None = None,
    ) -> LspClient:
        """Spawn the server in its own process group and run the initialize handshake."""
        self = cls(server_id, root, loaded_log)
        stderr_fd, self._stderr_drain = _stderr_pipe(self.stderr_tail)
        try:
            await self._client.start_io(
                *argv,
                cwd=str(root),
                env=dict(env),
                start_new_session=True,
                preexec_fn=_child_setup(stderr_fd),
                pass_fds=(stderr_fd,),
            )
        except OSError as exc:
            raise LspNotAvailableError(
                f"Cannot start {server_id} ({argv[0]}): {exc}",
                hints=["Check that the server is installed and executable."],
            ) from None
        finally:
            os.close(stderr_fd)
        reaper.track(self.pid)
        try:
            await self._initialize(init_timeout)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self.aclose()
            raise
        return self

    async def _initialize(self, seconds: float) -> None:
        uri = self.root.as_uri()
        params = lsp.InitializeParams(
            process_id=os.getpid(),
            root_uri=uri,
            root_path=str(self.root),
            workspace_folders=[lsp.WorkspaceFolder(uri=uri, name=self.root.name)],
            client_info=lsp.ClientInfo(name="octo", version=__version__),
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
                ),
            ),
        )
        result = await self.request(lsp.INITIALIZE, params, seconds)
        if not isinstance(result, Mapping) or not isinstance(result.get("capabilities"), Mapping):
            raise MalformedReplyError(f"{self.server_id} answered initialize without capabilities")
        self.capabilities = dict(result["capabilities"])
        self._client.protocol.notify(lsp.INITIALIZED, lsp.InitializedParams())
        # pyright stays silent until it has been told about (empty) settings.
        self._client.protocol.notify(
            lsp.WORKSPACE_DID_CHANGE_CONFIGURATION, lsp.DidChangeConfigurationParams(settings={})
        )

    def supports(self, capability: str) -> bool:
        """True when the server advertised ``capability`` (e.g. ``callHierarchyProvider``)."""
        value = self.capabilities.get(capability)
        return value is not None and value is not False

    def crash_error(self) -> ServerCrashedError:
        if self._stderr_drain is not None:
            # The last words of a dying server may still be in the pipe; EOF comes at once
            # unless a child of the server holds stderr open, so the wait is short either way.
            self._stderr_drain.join(timeout=0.2)
        process = self._client._server
        code = process.returncode if process is not None else None
        tail = [line for line in self.stderr_tail if line.strip()][-8:]
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
                raise OctoError(f"{self.server_id} failed on {method}: {exc}") from None
        raise AssertionError("unreachable")

    async def _request_once(self, method: str, params: Any, seconds: float) -> Any:
        if not self.alive:
            raise self.crash_error()
        protocol = self._client.protocol
        msg_id = os.urandom(8).hex()
        try:
            future = protocol.send_request_async(method, params, msg_id=msg_id)
        except (RuntimeError, OSError):
            raise self.crash_error() from None
        try:
            with anyio.fail_after(seconds):
                return await future
        except TimeoutError:
            self._cancel(msg_id)
            raise RequestTimeoutError(
                f"{self.server_id} did not answer {method} within {seconds:g} s",
                hints=["The server may still be indexing; retry in a few seconds."],
            ) from None
        except anyio.get_cancelled_exc_class():
            self._cancel(msg_id)
            raise
        except RuntimeError:
            # pygls fails pending requests with RuntimeError when the process exits.
            raise self.crash_error() from None

    def _cancel(self, msg_id: str) -> None:
        # Whatever a cancelled request returns later (some servers send a partial list) is dropped.
        self._client.protocol._request_futures.pop(msg_id, None)
        if self.alive:
            with contextlib.suppress(RuntimeError, OSError):
                self._client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id=msg_id))

    def notify(self, method: str, params: Any) -> None:
        if not self.alive:
            raise self.crash_error()
        try:
            self._client.protocol.notify(method, params)
        except (RuntimeError, OSError):
            raise self.crash_error() from None

    def sync_document(self, path: Path, text: str, language_id: str) -> bool:
        """Open ``path`` on the server, or send its new text if it changed on disk.

        Returns True when the document was opened for the first time.
        """
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        uri = path.as_uri()
        known = self._documents.get(path)
        if known is not None:
            self._documents.move_to_end(path)
            if known[:2] == stamp:
                return False
            version = known[2] + 1
            self.notify(
                lsp.TEXT_DOCUMENT_DID_CHANGE,
                lsp.DidChangeTextDocumentParams(
                    text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
                ),
            )
            self._documents[path] = (*stamp, version)
            return False
        self.notify(
            lsp.TEXT_DOCUMENT_DID_OPEN,
            lsp.DidOpenTextDocumentParams(
                text_document=lsp.TextDocumentItem(
                    uri=uri, language_id=language_id, version=1, text=text
                )
            ),
        )
        self._documents[path] = (*stamp, 1)
        while len(self._documents) > _OPEN_DOCUMENTS:
            oldest, _ = self._documents.popitem(last=False)
            self.notify(
                lsp.TEXT_DOCUMENT_DID_CLOSE,
                lsp.DidCloseTextDocumentParams(
                    text_document=lsp.TextDocumentIdentifier(uri=oldest.as_uri())
                ),
            )
        return True

    async def aclose(self) -> None:
        """shutdown -> exit -> 1 s -> SIGTERM the group -> 1 s -> SIGKILL the group.

        A server that never finished initialize or does not answer shutdown within 1.5 s
        is killed at once, so closing stays within the 2 s an MCP client grants octo to
        exit after it closes octo's stdin.
        """
        with anyio.CancelScope(shield=True):
            process = self._client._server
            polite = False
            if self.alive and self.capabilities:
                try:
                    await self._request_once(lsp.SHUTDOWN, None, 1.5)
                    self._client.protocol.notify(lsp.EXIT, None)
                    polite = True
                except (OctoError, RuntimeError, OSError):
                    pass
            if process is not None:
                steps: tuple[tuple[int | None, float], ...] = (
                    ((None, 1.0), (signal.SIGTERM, 1.0), (signal.SIGKILL, 5.0))
                    if polite
                    else ((signal.SIGKILL, 5.0),)
                )
                for sig, grace in steps:
                    if sig is not None:
                        reaper.kill_group(process.pid, sig)
                    if await _exited(process, grace):
                        break
                # Children of the server (tsserver under typescript-language-server) share its group.
                reaper.kill_group(process.pid, signal.SIGKILL)
                reaper.untrack(process.pid)
            with anyio.move_on_after(5.0):
                await self._client.stop()  # type: ignore[no-untyped-call]
