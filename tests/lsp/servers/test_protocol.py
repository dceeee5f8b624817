"""The cattrs guard: server replies stay plain JSON, whatever cattrs release is installed.

cattrs 25+ cannot structure a notebook selector that names cells but no notebook (pylsp,
ty, pyrefly and zuban send one in their initialize reply); a stock pygls client then logs
"Unable to deserialize message", drops the reply and waits forever.
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from packaging.version import Version
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

from octo.lsp.servers.wire.documents import PublishedDiagnostics
from octo.lsp.servers.wire.progress import ProgressTracker
from octo.lsp.servers.wire.protocol import language_client

CAPABILITIES = {
    "notebookDocumentSync": {"notebookSelector": [{"cells": [{"language": "python"}]}]},
    "definitionProvider": True,
    "callHierarchyProvider": True,
}
REPLY = {"jsonrpc": "2.0", "id": "1", "result": {"capabilities": CAPABILITIES}}


def _receive(client: LanguageClient, message: dict[str, Any]) -> Any:
    """Parse ``message`` as pygls does when it arrives as the answer to initialize."""
    protocol = client.protocol
    protocol._result_types[message["id"]] = protocol.get_result_type(lsp.INITIALIZE)
    return json.loads(json.dumps(message), object_hook=protocol.structure_message)


def test_octos_client_keeps_the_initialize_reply_as_json() -> None:
    client = language_client(Path("/"), ProgressTracker(), PublishedDiagnostics())
    assert _receive(client, REPLY).result == REPLY["result"]


def test_the_stock_client_fails_on_it_with_this_cattrs() -> None:
    """Why the guard exists. Should a cattrs release parse it again, keep the guard for older ones."""
    if Version(version("cattrs")) < Version("25"):
        pytest.skip("this cattrs release parses the selector")
    with pytest.raises(JsonRpcException):
        _receive(LanguageClient("stock", "0"), REPLY)
