"""A secret's value is hidden wherever it travels in a call's answers, not only beside its
name: the same planted values (a Python module, a .env, a JSON config) asked through every
tool that can show them, structural captures, hover and diagnostics of real language
servers (ty, basedpyright), search context lines and file content."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from octo.core.config import Config
from octo.core.errors import LspNotAvailableError
from octo.core.secrets.redaction import call_secrets
from octo.core.secrets.redaction import learn
from octo.core.secrets.redaction import redacted
from octo.faces.library import Gateway
from octo.lsp.servers.table.commands import find_servers
from tests.lsp.conftest import lsp_env
from tests.security.planted import _chars

#: Values built from pieces (no scanner takes this file for a leak), a "-" and "/" in some.
VALUES = {
    "db": "Pw7" + _chars("db-password", 17),
    "api": _chars("api-key", 14) + "-x9Q",
    "service": "sv_" + _chars("service-token", 24),
    "secret": _chars("secret-key", 12) + "/" + _chars("secret-key2", 8),
    "signing": _chars("signing", 22),
    "env_api": _chars("env-api", 20) + "-",
    "env_deploy": _chars("env-deploy", 26),
    "json_db": "Jd4" + _chars("json-db", 18),
    "json_token": _chars("json-token", 30),
}

SETTINGS = f'''import os
from dataclasses import dataclass, field

DB_PASSWORD: str = "{VALUES["db"]}"
API_KEY = "{VALUES["api"]}"
os.environ["SERVICE_TOKEN"] = "{VALUES["service"]}"
SECRET = os.getenv("SECRET_KEY", "{VALUES["secret"]}")


@dataclass
class Settings:
    signing_key: str = field(default="{VALUES["signing"]}")


def connect(user: str) -> int:
    dsn = "{VALUES["db"]}"
    fallback = "{VALUES["api"]}"
    return len(dsn) + len(user) + len(fallback)


WRONG: int = API_KEY
WORSE = DB_PASSWORD + 1
'''

#: A module that uses the settings' values: its hovers quote them from settings.py.
APP = """import settings
from settings import Settings, connect


def open_db() -> int:
    return len(settings.API_KEY) + len(settings.DB_PASSWORD) + connect("me")


def sign() -> str:
    return Settings().signing_key


def local() -> int:
    key = settings.API_KEY
    return len(key)


MISTYPED: int = settings.API_KEY
"""
DOTENV = f"API_KEY={VALUES['env_api']} # production\nexport DEPLOY_TOKEN={VALUES['env_deploy']}\n"
CONFIG = json.dumps(
    {
        "database": {"password": VALUES["json_db"]},
        "service": {"token": VALUES["json_token"]},
        "notes": [VALUES["json_db"], VALUES["json_token"]],
    },
    indent=2,
)


def _leaks(answer: Any) -> list[str]:
    wire = answer.to_compact_json()
    return [name for name, value in VALUES.items() if value in wire or value[:10] in wire]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "settings.py").write_text(SETTINGS)
    (tmp_path / ".env").write_text(DOTENV)
    (tmp_path / "config.json").write_text(CONFIG)
    return tmp_path


def _line(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if needle in line)


SENSITIVE = {"includeSensitive": True, "hidden": True}
LOCAL_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("localSearchStructure", {"path": "settings.py", "language": "python", "pattern": "$N = $V"}),
    (
        "localSearchStructure",
        {"path": "settings.py", "language": "python", "rule": {"kind": "string_content"}},
    ),
    (
        "localSearchStructure",
        {"path": "settings.py", "language": "python", "rule": {"kind": "string"}},
    ),
    (
        "localSearchStructure",
        {"path": "config.json", "language": "json", "rule": {"kind": "string_content"}},
    ),
    (
        "localSearchStructure",
        {
            "path": "config.json",
            "language": "json",
            "rule": {"kind": "pair", "has": {"field": "value", "pattern": "$V"}},
        },
    ),
    (
        "localSearchCode",
        {"pattern": "len(dsn)", "path": ".", "fixedString": True, "contextLines": 3},
    ),
    ("localSearchCode", {"pattern": "notes", "path": "config.json", "contextLines": 4}),
    ("localGetFileContent", {"path": "settings.py", "fullContent": True}),
    ("localGetFileContent", {"path": "settings.py", "matchString": "fallback"}),
    ("localGetFileContent", {"path": "config.json", "fullContent": True}),
    ("localGetFileContent", {"path": ".env", "fullContent": True, **SENSITIVE}),
    ("localSearchCode", {"pattern": "=", "path": ".env", **SENSITIVE}),
]


@pytest.mark.parametrize(("tool", "query"), LOCAL_CALLS, ids=lambda v: str(v)[:60])
async def test_local_tools_hide_a_planted_value_wherever_it_appears(
    tree: Path, tool: str, query: dict[str, Any]
) -> None:
    async with Gateway(roots=[tree]) as gateway:
        response = await gateway.call(tool, [query])
    row = response.results[0]
    assert row.status == "success", row
    assert _leaks(response) == []


@pytest.mark.parametrize(
    ("tool", "queries"),
    [
        ("localGetFileContent", [{"path": "settings.py"}, {"path": "usage.txt"}]),
        (
            "localSearchCode",
            [
                {"pattern": "DB_PASSWORD", "path": "settings.py"},
                {"pattern": "call it", "path": "usage.txt"},
            ],
        ),
        ("localSearchCode", [{"pattern": "DB_PASSWORD|call it", "path": "."}]),
    ],
    ids=["read", "search-two-queries", "search-one-query"],
)
async def test_a_value_found_by_one_query_is_hidden_in_the_others(
    tree: Path, tool: str, queries: list[dict[str, Any]]
) -> None:
    """A file no detector marks holds a value another file of the call assigns: the call
    knows it, also when the assigning file's redaction comes from a cache (asked twice)."""
    (tree / "usage.txt").write_text(f"call it with {VALUES['db']} here\n")
    async with Gateway(roots=[tree]) as gateway:
        for _ in range(2):
            response = await gateway.call(tool, queries)
            assert [row.status for row in response.results] == ["success"] * len(queries)
            assert _leaks(response) == []


def test_a_value_is_hidden_quoted_escaped_and_cut() -> None:
    value = VALUES["db"]
    odd = 'q"w\\e' + VALUES["signing"]
    with call_secrets():
        learn(f'DB_PASSWORD = "{value}"\nAPI_SECRET = "{json.dumps(odd)[1:-1]}"\n')
        texts = [
            f'Literal["{value}"]',
            json.dumps({"default": odd}),
            repr(odd),
            f"the hover was cut here: {value[:9]}...",
            f"{value[-9:]} and the rest of a page",
            f"x = '{value[:12]}\n```\n...",
        ]
        out = redacted(texts)
    assert all(value[:8] not in text and value[-8:] not in text for text in out), out
    assert all(odd[5:13] not in text for text in out), out
    # Outside a call, or for an unknown value, nothing changes.
    assert redacted(texts) == texts


def _server(name: str) -> None:
    try:
        found = find_servers("python", lsp_env(OCTO_LSP_PYTHON_SERVERS=name))[0].server_id
    except LspNotAvailableError:
        found = None
    if found != name:
        pytest.skip(f"{name} is not installed")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module", params=["ty", "basedpyright"])
async def lsp_gateway(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Gateway]:
    _server(request.param)
    root = tmp_path_factory.mktemp(f"values-{request.param}")
    (root / "pyproject.toml").touch()
    (root / "settings.py").write_text(SETTINGS)
    (root / "app.py").write_text(APP)
    env = lsp_env(OCTO_LSP_PYTHON_SERVERS=request.param)
    async with Gateway(Config.from_env(env), roots=[root]) as gateway:
        yield gateway


@pytest.mark.slow
@pytest.mark.parametrize(
    ("symbol", "needle"),
    [
        ("API_KEY", "WRONG: int = API_KEY"),
        ("DB_PASSWORD", "WORSE = DB_PASSWORD"),
        ("dsn", "return len(dsn)"),
        ("fallback", "len(fallback)"),
        ("signing_key", "signing_key: str"),
    ],
)
async def test_hover_hides_the_values_of_its_file(
    lsp_gateway: Gateway, symbol: str, needle: str
) -> None:
    query = {"uri": "settings.py", "symbolName": symbol, "lineHint": _line(SETTINGS, needle)}
    response = await lsp_gateway.call("lspHover", [query])
    row = response.to_wire()["results"][0]
    assert row["status"] in ("success", "empty"), row
    assert _leaks(response) == []


@pytest.mark.slow
@pytest.mark.parametrize("symbol", ["API_KEY", "DB_PASSWORD", "signing_key"])
async def test_hover_hides_the_values_of_the_module_it_quotes(
    lsp_gateway: Gateway, symbol: str
) -> None:
    """A hover in app.py quotes settings.py's constants (``Literal["..."]``, a field's
    default): the values of the file that defines the symbol are known to the call."""
    line = next(n for n, text in enumerate(APP.splitlines(), start=1) if symbol in text)
    query = {"uri": "app.py", "symbolName": symbol, "lineHint": line}
    response = await lsp_gateway.call("lspHover", [query])
    row = response.to_wire()["results"][0]
    assert row["status"] in ("success", "empty"), row
    assert _leaks(response) == []


@pytest.mark.slow
async def test_an_inferred_type_and_a_diagnostic_hide_another_module_s_values(
    lsp_gateway: Gateway,
) -> None:
    """A local variable's inferred type and a diagnostic of app.py quote settings.py's
    constant, a file the answer neither reads nor names: the workspace's values are known."""
    line = next(n for n, text in enumerate(APP.splitlines(), start=1) if "len(key)" in text)
    hover = await lsp_gateway.call(
        "lspHover", [{"uri": "app.py", "symbolName": "key", "lineHint": line}]
    )
    diagnostics = await lsp_gateway.call("lspDiagnostics", [{"uri": "app.py"}])
    assert _leaks(hover) == [] and _leaks(diagnostics) == []


@pytest.mark.slow
async def test_diagnostics_hide_the_values_they_quote(lsp_gateway: Gateway) -> None:
    response = await lsp_gateway.call("lspDiagnostics", [{"uri": "settings.py"}])
    row = response.to_wire()["results"][0]
    assert row["status"] == "success", row
    messages = [d["message"] for d in row["data"]["diagnostics"]]
    assert any("[REDACTED:" in message for message in messages), messages
    assert _leaks(response) == []
