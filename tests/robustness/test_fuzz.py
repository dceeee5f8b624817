"""Robustness: bad input gets a clear per-query error while the call's other queries succeed.

Every registry tool gets calls whose queries are its example mutated, objects built from its
fields with hostile values, and non-objects, with one valid query among them. Nothing may
escape as an exception (but CallError for a malformed call), no answer may be an
INTERNAL_ERROR, leak the token, or hold a path or content from outside the allowed root.
Remote hosts point at a closed local port and no language server can start, so every call
stays on this machine and fast.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from anyio.from_thread import BlockingPortal
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError

from octo import Config
from octo import Gateway
from octo.contract import ToolCategory
from octo.contract import ToolSpec
from octo.core.envelope import BulkResponse
from octo.core.envelope import QueryStatus
from octo.core.errors import CallError
from octo.core.errors import ErrorCode
from octo.core.queries import CONTEXT_FIELDS
from octo.faces.mcp.server import build_server
from octo.lsp.servers.table.commands import DEFAULT_ORDER
from octo.registry import all_tools
from tests.git_repos import Repo

# Every tool fuzzed with hypothesis: tens of seconds.
pytestmark = pytest.mark.slow

TOKEN = "test-token-not-real"
#: Content of a file outside the allowed root, reachable only through symlinks inside it.
OUTSIDE_MARKER = "OUTSIDE-THE-ROOT-7f3a"
#: Port 9 (discard) is closed here: a connection is refused at once, nothing leaves the host.
CLOSED = "http://127.0.0.1:9"

SPECS = all_tools()
FUZZ_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

APP_PY = '''"""The example application the tools' examples point at."""

import json


DEFAULTS = {"debug": False}


def read(path):
    return open(path).read()


def load_config(path):
    return {**DEFAULTS, **json.loads(read(path))}


def main():
    return load_config("config.json")
'''


def build_tree(base: Path) -> Path:
    """The allowed root (with the files the tools' examples name) and a secret beside it."""
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{OUTSIDE_MARKER}\n")
    root = base / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(APP_PY)
    (root / "src" / "util.py").write_text("from app import load_config\n\nload_config('x')\n")
    (root / "src" / "index.ts").write_text("export const answer: number = 42;\n")
    (root / "pyproject.toml").write_text('[project]\nname = "example"\n')
    (root / "README.md").write_text("# example\n\nCalls load_config.\n")
    (root / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    (root / "escape").symlink_to(outside, target_is_directory=True)
    (root / "secret-link.txt").symlink_to(outside / "secret.txt")
    (root / "loop").symlink_to(root / "loop")
    # Names an answer must carry intact: not UTF-8, a line break, a leading dash.
    (root / os.fsdecode(b"latin-\xe9.py")).write_bytes(b"def load_config(): pass\n")
    (root / "two\nlines.py").write_text("def load_config(): pass\n")
    (root / "-rf.py").write_text("def load_config(): pass\n")
    (root / "binary.bin").write_bytes(bytes(range(256)) * 4)
    # A checkout, so the history tools' examples have history to read.
    Repo(root).commit("the example project")
    return root


def fuzz_env(base: Path) -> dict[str, str]:
    """An environment whose remote hosts refuse connections and whose LSP finds no server."""
    no_servers = base / "no-servers"
    no_servers.mkdir()
    home = base / "home"
    home.mkdir()
    return {
        "PATH": os.defpath,
        "HOME": str(home),
        "GITHUB_API_URL": f"{CLOSED}/",
        "GITLAB_HOST": CLOSED,
        "OCTO_NPM_REGISTRY": f"{CLOSED}/",
        "OCTO_PYPI_INDEX": f"{CLOSED}/simple/",
        "GITHUB_TOKEN": TOKEN,
        "OCTO_LSP_PATH": str(no_servers),
        **{f"OCTO_LSP_{family.upper()}_SERVERS": "not-installed" for family in DEFAULT_ORDER},
    }


@dataclass
class Harness:
    """One gateway on one event loop, shared by every generated call of the module."""

    portal: BlockingPortal
    gateway: Gateway
    root: Path
    env: dict[str, str]

    def call(self, tool: str, queries: Any) -> BulkResponse[Any]:
        response: BulkResponse[Any] = self.portal.call(self.gateway.call, tool, queries)
        return response


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    base = tmp_path_factory.mktemp("fuzz")
    root = build_tree(base)
    env = fuzz_env(base)
    with start_blocking_portal(backend="asyncio") as portal:
        gateway = Gateway(config=Config.from_env(env), roots=[root])
        try:
            yield Harness(portal, gateway, root.resolve(), env)
        finally:
            portal.call(gateway.aclose)


# --- what to generate --------------------------------------------------------------------


def hostile_strings(root: Path) -> list[str]:
    return [
        "",
        " ",
        "\x00",
        "src/\x00app.py",
        "\n",
        "a\nb\r\n",
        "..",
        "../..",
        "../outside/secret.txt",
        "escape/secret.txt",
        "secret-link.txt",
        "loop",
        "loop/inner.py",
        ".env",
        "/etc/passwd",
        "file:///etc",
        "file:///etc/passwd",
        f"file://{root}/src/app.py",
        str(root),
        str(root / "src" / "app.py"),
        str(root.parent / "outside"),
        "~",
        "~nosuchuser-octo/x",
        "/",
        ".",
        "src",
        "src/app.py",
        "src/index.ts",
        "README.md",
        "NaN",
        "nan",
        "-inf",
        "1e999",
        "-1",
        "0",
        "99999999999999999999",
        "*",
        "**/*",
        "[",
        "(?P<",
        "\\",
        "%00",
        "${HOME}",
        "$(id)",
        "; rm -rf /",
        "-rf",
        "--files",
        "\ud800",
        "é",
        "🐙" * 40,
        "\u202e",
        "a" * 300,
        "a/" * 3000,
        "x" * 200_000,
        "load_config",
        "def load_config",
    ]


def example_strings() -> list[str]:
    return [value for spec in SPECS for value in spec.example.values() if isinstance(value, str)]


def bound_numbers(node: Mapping[str, Any]) -> list[Any]:
    """Each bound of a number's schema, and the numbers just past it."""
    found: list[Any] = [0, -1, 1, 2**31, 2**63, -(2**63), 10**30]
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if isinstance(bound := node.get(key), int | float):
            found.extend([bound - 1, bound, bound + 1])
    return found


def anything(root: Path) -> st.SearchStrategy[Any]:
    """A value of a random type: hostile strings, huge numbers, NaN, nested lists and dicts."""
    hostile = st.sampled_from(hostile_strings(root) + example_strings())
    leaves = st.one_of(
        hostile,
        hostile,
        st.text(max_size=20),
        st.integers(),
        st.sampled_from(bound_numbers({})),
        st.floats(),
        st.booleans(),
        st.none(),
    )
    return st.recursive(
        leaves,
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=8), children, max_size=3)
        ),
        max_leaves=6,
    )


def typed(node: Mapping[str, Any], defs: Mapping[str, Any], root: Path) -> st.SearchStrategy[Any]:
    """Values of the type a field's schema asks for, hostile within it, to get past validation."""
    if "$ref" in node:
        return typed(defs[node["$ref"].rsplit("/", 1)[-1]], defs, root)
    if "anyOf" in node:
        return st.one_of([typed(option, defs, root) for option in node["anyOf"]])
    hostile = st.sampled_from(hostile_strings(root) + example_strings())
    if "enum" in node:
        return st.sampled_from(node["enum"]) | hostile
    kind = node.get("type")
    if kind == "string":
        return hostile
    if kind in ("integer", "number"):
        low, high = node.get("minimum", -3), node.get("maximum", 300)
        near = st.sampled_from(bound_numbers(node)) | st.integers(int(low), int(high))
        return near | st.floats() if kind == "number" else near
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = typed(node.get("items", {}), defs, root)
        return st.lists(items, max_size=int(node.get("maxItems", 5)) + 1)
    return anything(root)


def fuzzed_queries(root: Path, spec: ToolSpec) -> st.SearchStrategy[Any]:
    """The example mutated, objects built from the fields, and non-objects.

    Most values have the field's own type (hostile within it), so that queries get past
    validation into the providers; the rest are of any type.
    """
    schema = spec.query_model.model_json_schema()
    defs = schema.get("$defs", {})
    per_field = {name: typed(node, defs, root) for name, node in schema["properties"].items()}
    fields = sorted(per_field)
    any_value = anything(root)
    typed_values = st.sampled_from(fields).flatmap(
        lambda name: st.tuples(st.just(name), per_field[name])
    )
    wild_values = st.sampled_from(fields).flatmap(
        lambda name: st.tuples(st.just(name), per_field[name] | any_value)
    )
    example_keys = sorted(spec.example)

    def mutate(change: tuple[set[str], dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
        dropped, replaced, added = change
        query = {k: v for k, v in copy.deepcopy(spec.example).items() if k not in dropped}
        return {**query, **replaced, **added}

    # The example with a field or two changed within their types: mostly valid, so
    # these reach the providers.
    retyped = st.lists(typed_values, min_size=1, max_size=2).map(
        lambda changes: {**copy.deepcopy(spec.example), **dict(changes)}
    )
    mangled = st.tuples(
        st.sets(st.sampled_from(example_keys), max_size=2),
        st.lists(wild_values, max_size=3).map(dict),
        st.dictionaries(st.text(max_size=12), any_value, max_size=1),
    ).map(mutate)
    typed_object = st.lists(typed_values, max_size=6).map(dict)
    untyped_object = st.dictionaries(st.sampled_from(fields), any_value, max_size=6)
    not_objects = any_value.filter(lambda value: not isinstance(value, dict))
    return st.one_of(retyped, retyped, retyped, mangled, typed_object, untyped_object, not_objects)


@st.composite
def calls(draw: st.DrawFn, root: Path, spec: ToolSpec) -> tuple[list[Any], int]:
    """1..max_queries queries: the fuzzed ones with the tool's valid example among them."""
    fuzzed = draw(st.lists(fuzzed_queries(root, spec), max_size=spec.max_queries - 1))
    position = draw(st.integers(0, len(fuzzed)))
    return [*fuzzed[:position], copy.deepcopy(spec.example), *fuzzed[position:]], position


# --- what must hold ----------------------------------------------------------------------


def _inside(root: Path, path: str, base: Path) -> bool:
    full = Path(os.path.normpath(base / path))
    return full == root or full.is_relative_to(root)


def answered_paths(spec: ToolSpec, data: Mapping[str, Any], root: Path) -> list[tuple[str, Path]]:
    """Each local path of an answer with the directory it is relative to."""
    if spec.name == "localSearchCode":
        base = Path(data["root"])
        return [(data["root"], root), *((f["path"], base) for f in data["files"])]
    if spec.name == "localGetFileContent":
        return [(data["path"], root)]
    if spec.name == "localViewStructure":
        base = Path(data["path"])
        return [(data["path"], root), *((e["name"], base) for e in data["entries"])]
    if spec.name == "localFindFiles":
        base = Path(data["path"])
        return [(data["path"], root), *((f["path"], base) for f in data["files"])]
    found: list[tuple[str, Path]] = []

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for key, value in node.items():
                if key == "uri" and isinstance(value, str):
                    found.append((value, root))
                else:
                    walk(value)

    if spec.category is ToolCategory.LSP:
        walk(data)
    return found


def faults(
    harness: Harness,
    spec: ToolSpec,
    queries: list[Any],
    valid: int | None,
    response: BulkResponse[Any],
) -> list[str]:
    """What is wrong with the answer to a call of ``queries`` (the valid one at ``valid``, if
    the call has one)."""
    if [r.queryIndex for r in response.results] != list(range(len(queries))):
        return [f"{spec.name}: {len(response.results)} envelopes for {len(queries)} queries"]
    try:
        wire = response.to_compact_json()
    except ValueError as exc:
        return [f"{spec.name} {repr(queries)[:300]}: the answer is not JSON: {exc}"]
    found = []
    if TOKEN in wire:
        found.append(f"{spec.name} {repr(queries)[:300]}: the token leaked")
    if OUTSIDE_MARKER in wire:
        found.append(f"{spec.name} {repr(queries)[:300]}: a file outside the root was read")
    for raw, envelope in zip(queries, response.results, strict=True):
        shown = f"{spec.name} {repr(raw)[:200]}"
        if envelope.status is not QueryStatus.ERROR and envelope.data is not None:
            data = envelope.data.model_dump(mode="json")
            found.extend(
                f"{shown}: answered {path}, outside the root"
                for path, base in answered_paths(spec, data, harness.root)
                if not _inside(harness.root, path, base)
            )
            continue
        error = envelope.error
        assert error is not None
        if error.code is ErrorCode.INTERNAL_ERROR:
            found.append(f"{shown}: {error.message[:300]}")
        elif not error.message.strip():
            found.append(f"{shown}: {error.code} with an empty message")
        elif not envelope.hints:
            found.append(f"{shown}: {error.code} without a hint ({error.message[:200]})")
        elif error.code is ErrorCode.VALIDATION_ERROR and isinstance(raw, dict):
            names = {*spec.query_model.model_fields, *map(str, raw)}
            if not any(name in error.message for name in names):
                found.append(f"{shown}: names no field: {error.message[:200]}")
    if valid is None:
        return found
    answer = response.results[valid]
    if spec.category is ToolCategory.LOCAL and answer.status is QueryStatus.ERROR:
        found.append(f"{spec.name}: the valid query failed: {answer.error}")
    if answer.error is not None and answer.error.code is ErrorCode.VALIDATION_ERROR:
        found.append(f"{spec.name}: the valid query failed validation: {answer.error}")
    return found


def substitutions(spec: ToolSpec, root: Path) -> list[dict[str, Any]]:
    """The example with each hostile string in each of its text fields, in turn."""
    schema = spec.query_model.model_json_schema()
    queries = []
    for name, node in schema["properties"].items():
        options = node.get("anyOf", [node])
        kinds = {option.get("type") for option in options}
        if name in CONTEXT_FIELDS or not kinds & {"string", "array"}:
            continue
        for text in hostile_strings(root):
            value = [text] if "string" not in kinds else text
            queries.append({**copy.deepcopy(spec.example), name: value})
    # The echoed research-context fields, once per tool.
    queries.extend({**spec.example, "mainResearchGoal": text} for text in hostile_strings(root))
    return queries


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_each_hostile_string_in_each_text_field(harness: Harness, spec: ToolSpec) -> None:
    queries = substitutions(spec, harness.root)
    size = spec.max_queries - 1
    found: list[str] = []
    if size == 0:  # one query a call: the example alone, then each substitution alone
        batches = [([spec.example], 0), *(([query], None) for query in queries)]
    else:
        batches = [
            ([copy.deepcopy(spec.example), *queries[start : start + size]], 0)
            for start in range(0, len(queries), size)
        ]
    for call, valid in batches:
        found.extend(faults(harness, spec, call, valid, harness.call(spec.name, call)))
    assert not found, "\n".join(found)


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_fuzzed_queries_fail_alone(harness: Harness, spec: ToolSpec) -> None:
    @FUZZ_SETTINGS
    @given(call=calls(harness.root, spec))
    def run(call: tuple[list[Any], int]) -> None:
        queries, valid = call
        found = faults(harness, spec, queries, valid, harness.call(spec.name, queries))
        assert not found, "\n".join(found)

    run()


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_malformed_calls_are_call_errors_with_hints(harness: Harness, spec: ToolSpec) -> None:
    too_many = st.integers(spec.max_queries + 1, spec.max_queries + 3).map(
        lambda n: [copy.deepcopy(spec.example)] * n
    )
    not_lists = anything(harness.root).filter(lambda value: not isinstance(value, list))

    @settings(FUZZ_SETTINGS, max_examples=15)
    @given(queries=st.one_of(st.just([]), too_many, not_lists))
    def run(queries: Any) -> None:
        with pytest.raises(CallError) as raised:
            harness.call(spec.name, queries)
        assert raised.value.message.strip()
        assert raised.value.hints

    run()


# --- the MCP face ------------------------------------------------------------------------


def _text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


# The client is made to send a list as arguments; pydantic warns while serialising it.
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
async def test_mcp_server_survives_the_nastiest_calls(tmp_path: Path) -> None:
    root = build_tree(tmp_path)
    server = build_server(Config.from_env({**fuzz_env(tmp_path), "OCTO_ROOTS": str(root)}))
    good = {"path": ".", "name": "*.py"}
    nasty: list[Any] = [
        {"queries": "src/app.py"},
        {"queries": [good] * 6},
        {"queries": [good, 7, None, "x", [good]]},
        {"queries": [{"path": "x" * 1_000_000, "name": "y" * 1_000_000}]},
        {"queries": [good], "extra": {"deep": [1, 2, 3]}},
    ]
    async with Client(server) as client:
        with pytest.raises(MCPError):
            await client.session.send_request(
                types.CallToolRequest(
                    params=types.CallToolRequestParams.model_construct(
                        name="localFindFiles", arguments=["not", "an", "object"]
                    )
                ),
                types.CallToolResult,
            )
        for arguments in nasty:
            result = await client.call_tool("localFindFiles", arguments)
            assert _text(result).strip()
            assert TOKEN not in _text(result)
        mixed = await client.call_tool("localFindFiles", nasty[2])
        assert mixed.structured_content is not None
        statuses = [row["status"] for row in mixed.structured_content["results"]]
        assert statuses == ["success", "error", "error", "error", "error"]
        alive = await client.call_tool("localFindFiles", {"queries": [good]})
        assert alive.is_error is False
        assert alive.structured_content is not None
        [row] = alive.structured_content["results"]
        assert {f["path"] for f in row["data"]["files"]} >= {"src/app.py", "src/util.py"}
