"""Render docs/tools.md from the registry (``octo docs``); a test keeps the file in step."""

from __future__ import annotations

import json
import re
from typing import Any

from octo.contract import ToolSpec
from octo.core.errors import ErrorCode
from octo.core.queries import ToolQuery
from octo.registry import all_tools

_CONTEXT_FIELDS = frozenset(ToolQuery.model_fields)
# Nested models deeper than this show as "{...}" in response shapes (trees can recurse).
_SHAPE_DEPTH = 4

_HEADER = """\
# Tools

<!-- Generated from the registry by `octo docs`; edit the tool definitions, not this file. -->

Every tool takes one argument, `queries`: a list of 1 to *max queries* query objects that run
concurrently. Every query also accepts the research-context fields `mainResearchGoal`,
`researchGoal` and `reasoning` (optional strings, echoed back in its result).

The answer is `{{"results": [...]}}` with one envelope per query, in query order:

| field | meaning |
|---|---|
| `queryIndex` | position of the query in the call, from 0 |
| `status` | `success`, `empty` (ran fine, found nothing) or `error` |
| `data` | the tool's result (below), absent on error |
| `error` | `{{"code", "message"}}` (and `resetAt` for rate limits) when `status` is `error` |
| `hints` | concrete next steps: the next page's parameters, a narrower filter, a better tool |
| `cached` | `true` when the answer came from the cache |

Error codes: {codes}. A query that breaks its tool's rules fails alone with `VALIDATION_ERROR`;
more queries than a tool allows fail the whole call. Over MCP, `isError` is true only when every
query failed.

## Where octo differs from the specification

octo takes its tools' contract from the API reference it was built from, and differs from it
on purpose in three places only:

- **The error object.** A failed query carries `error: {{"code", "message"}}` (and `resetAt`
  for rate limits) where the reference has `error` as a string beside `code`: one object a
  client can branch on by its code.
- **The `empty` status.** A query that ran fine and found nothing answers `empty`, not
  `success` with an empty list, so an empty result never reads as a result. A page past the
  last one is `empty` too, in every tool that pages, with the call for the last page in its
  hints.
- **1-based LSP lines.** Every line in an LSP answer (`range.start.line`, `resolved.line`) is
  1-based, like `lineHint` and every other tool's line numbers, so it can be given straight
  back as a `lineHint` or a `startLine`; characters stay 0-based UTF-16 code units, as in
  LSP. Each place has its `file://` `uri` and, beside it, its `path` relative to its root.
"""


def summary(spec: ToolSpec) -> str:
    """The first sentence of a tool's description, whole."""
    text = " ".join(spec.description.split())
    return re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        resolved: dict[str, Any] = defs.get(ref.rsplit("/", 1)[-1], {})
        return resolved
    return schema


def _type_name(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A short type for the parameter table: ``integer``, ``string[]``, ``"a" | "b"``."""
    if "$ref" in schema:
        target = _resolve(schema, defs)
        return _type_name(target, defs) if "enum" in target else str(target.get("title", "object"))
    if "enum" in schema:
        return " | ".join(json.dumps(value) for value in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        names = [_type_name(option, defs) for option in options if option.get("type") != "null"]
        return " | ".join(dict.fromkeys(names))
    kind = schema.get("type")
    if kind == "array":
        item = _type_name(schema.get("items", {}), defs)
        return f"({item})[]" if " | " in item else f"{item}[]"
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind if k != "null")
    return str(kind or "any")


#: Schema keywords shown in the parameter table, with how each reads.
_LIMITS = (
    ("exclusiveMinimum", "> {}"),
    ("minLength", "min length {}"),
    ("maxLength", "max length {}"),
    ("minItems", "min items {}"),
    ("maxItems", "max items {}"),
    ("pattern", "pattern `{}`"),
)


def _constraints(schema: dict[str, Any]) -> list[str]:
    """Ranges and lengths of a property (looking inside ``anyOf`` for nullable ones)."""
    parts = []
    for option in [schema, *(schema.get("anyOf") or [])]:
        low, high = option.get("minimum"), option.get("maximum")
        if low is not None and high is not None:
            parts.append(f"range {low}-{high}")
        elif low is not None:
            parts.append(f"min {low}")
        elif high is not None:
            parts.append(f"max {high}")
        parts += [text.format(option[key]) for key, text in _LIMITS if option.get(key) is not None]
    return parts


def _parameter_table(spec: ToolSpec) -> list[str]:
    schema = spec.query_model.model_json_schema()
    defs = schema.get("$defs", {})
    required = set(schema.get("required", []))
    rows = [
        "| name | type | required | default | description |",
        "|---|---|---|---|---|",
    ]
    for name, prop in schema.get("properties", {}).items():
        if name in _CONTEXT_FIELDS:
            continue
        default = f"`{json.dumps(prop['default'])}`" if "default" in prop else ""
        if default == "`null`":
            default = ""
        constraints = _constraints(prop)
        description = prop.get("description", "")
        if constraints:
            description = f"{description} ({', '.join(constraints)})".strip()
        rows.append(
            f"| `{name}` | `{_cell(_type_name(prop, defs))}` | {'yes' if name in required else 'no'} "
            f"| {_cell(default)} | {_cell(description)} |"
        )
    return rows


def _shape(schema: dict[str, Any], defs: dict[str, Any], depth: int) -> Any:
    """A placeholder value of the schema's shape: each leaf names its type."""
    schema = _resolve(schema, defs)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        concrete = [o for o in options if o.get("type") != "null"]
        return _shape(concrete[0], defs, depth) if concrete else None
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        if depth >= _SHAPE_DEPTH:
            return {"...": "..."}
        properties = schema.get("properties", {})
        values = schema.get("additionalProperties")
        if not properties and isinstance(values, dict):
            return {"<string>": _shape(values, defs, depth + 1)}
        if not properties:
            return {}
        return {key: _shape(value, defs, depth + 1) for key, value in properties.items()}
    if kind == "array":
        return [_shape(schema.get("items", {}), defs, depth + 1)]
    return f"<{kind or 'any'}>"


def _response_shape(spec: ToolSpec) -> dict[str, Any]:
    schema = spec.result_model.model_json_schema()
    data = _shape(schema, schema.get("$defs", {}), 0)
    return {
        "results": [{"queryIndex": 0, "status": "success", "data": data, "hints": ["<string>"]}]
    }


def _queries_per_call(spec: ToolSpec) -> str:
    if spec.max_queries == 1:
        return "one query per call"
    return f"up to {spec.max_queries} queries per call"


def _anchor(name: str) -> str:
    return f"[{name}](#{name.lower()})"


def _json_block(value: Any) -> list[str]:
    return ["```json", json.dumps(value, indent=2, ensure_ascii=False), "```"]


def _realistic_response(spec: ToolSpec) -> dict[str, Any]:
    """The reference's example answer, in the order and form the wire has (its data goes
    through the result model, which also checks it)."""
    response = spec.docs.response
    data = spec.result_model.model_validate(response["data"]).model_dump(
        mode="json", exclude_none=True
    )
    envelope = {"queryIndex": 0, "status": response["status"], "data": data}
    return {"results": [{**envelope, "hints": list(response.get("hints", []))}]}


def _tool_section(spec: ToolSpec) -> list[str]:
    """A tool's reference in spec 000's order: summary, use cases, parameters, returns, an
    example request with a realistic response, common errors, related tools."""
    docs = spec.docs
    reach = "reaches remote services" if spec.open_world else "local only"
    access = "read-only" if spec.read_only else "changes state"
    lines = [
        f"## {spec.name}",
        "",
        f"**{spec.title}**: category `{spec.category.value}`, {_queries_per_call(spec)}, "
        f"{access}, {reach}. Library: `gw.{spec.python_name}([...])`.",
        "",
        spec.description.strip(),
        "",
    ]
    if docs.details:
        lines += [docs.details, ""]
    if docs.use_cases:
        lines += ["### Use cases", "", *(f"- {case}" for case in docs.use_cases), ""]
    table = _parameter_table(spec)
    if len(table) == 2:
        table = ["None: the query is `{}`."]
    lines += ["### Parameters", "", *table, ""]
    lines += [
        "### Returns",
        "",
        "Response shape (each leaf names its type; optional fields are left out when unset):",
        "",
        *_json_block(_response_shape(spec)),
        "",
        "### Example",
        "",
        "Request:",
        "",
        *_json_block({"queries": [spec.example]}),
        "",
    ]
    if docs.response:
        lines += ["Response:", "", *_json_block(_realistic_response(spec)), ""]
    lines += [
        "CLI: `octo call "
        + spec.name
        + " --query '"
        + json.dumps(spec.example, ensure_ascii=False)
        + "'`",
        "",
    ]
    if docs.errors:
        lines += ["### Common errors", "", "| code | when |", "|---|---|"]
        lines += [f"| `{code}` | {_cell(when)} |" for code, when in docs.errors.items()]
        lines.append("")
    if docs.related:
        lines += ["### Related tools", ""]
        by_name = {other.name: other for other in all_tools()}
        lines += [
            f"- {_anchor(name)}: {summary(by_name[name])}" if name in by_name else f"- {name}"
            for name in docs.related
        ]
        lines.append("")
    return lines


def tool_reference(spec: ToolSpec) -> str:
    """One tool's full reference, as docs/tools.md holds it (the MCP resource
    octo://tools/{name})."""
    return "\n".join(_tool_section(spec)).rstrip("\n") + "\n"


def _languages_section() -> list[str]:
    """Which languages answer which LSP operation, from the built-in server table."""
    from octo.lsp.outline.tree_outline import outline_languages
    from octo.lsp.servers.inventory import languages_markdown
    from octo.lsp.servers.table.commands import builtin_table

    return [
        "## Languages",
        "",
        "The lsp* tools ask a language's servers in order (the next when one times out or lacks"
        " the operation; an operation no server offers answers `LSP_NOT_AVAILABLE` naming the"
        " other configured servers). The built-in table is below; a servers file"
        " (`OCTO_LSP_SERVERS_FILE`, `[[servers]]` entries) adds languages or replaces a server"
        " by name, and `octo lsp` shows which are installed. Without a server,"
        " lspDocumentSymbols answers a syntax-tree outline where the last column says so.",
        "",
        *languages_markdown(builtin_table(), outline_languages()),
        "",
    ]


#: README's table of languages sits between these lines (`octo docs` writes it).
LANGUAGES_START = "<!-- languages: written by `octo docs` from the built-in server table -->"
LANGUAGES_END = "<!-- end of languages -->"


def readme_with_languages(readme: str) -> str:
    """``readme`` with its table of languages written anew (README's copy of docs/tools.md's)."""
    from octo.lsp.outline.tree_outline import outline_languages
    from octo.lsp.servers.inventory import languages_markdown
    from octo.lsp.servers.table.commands import builtin_table

    head, rest = readme.split(LANGUAGES_START + "\n", 1)
    _, tail = rest.split(LANGUAGES_END, 1)
    table = "\n".join(languages_markdown(builtin_table(), outline_languages()))
    return f"{head}{LANGUAGES_START}\n{table}\n{LANGUAGES_END}{tail}"


def render_tools_markdown() -> str:
    """The full text of docs/tools.md for the tools registered now."""
    specs = all_tools()
    codes = ", ".join(f"`{code.value}`" for code in ErrorCode)
    lines = [_HEADER.format(codes=codes), *_languages_section(), "## Contents", ""]
    lines.extend(
        f"- {_anchor(spec.name)} ({spec.category.value}, max {spec.max_queries}): " + summary(spec)
        for spec in specs
    )
    lines.append("")
    for spec in specs:
        lines.extend(_tool_section(spec))
    return "\n".join(lines).rstrip("\n") + "\n"
