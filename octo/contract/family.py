"""A family's tools from their two halves: the code (models, handler, limits) bound in the
family's ``specs.py``, and the words in its ``tools.toml``: per tool, what tools/list carries
(title, description, example) and its longer reference (how it works in full, use cases,
related tools, errors, a realistic answer: the sections of docs/tools.md), one table a tool.

Prose and examples are data, so they live in a data file where they read as prose; the
loader checks that every tool has both halves, so a tool is still defined exactly once.
Descriptions may use ``${name}`` for a sentence the family's ``[fragments]`` table holds
once (the safety rules every local tool repeats, say).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from importlib.resources import files
from string import Template
from typing import Any

from octo.contract.place_answers import in_places
from octo.contract.spec import Handler
from octo.contract.spec import ToolCategory
from octo.contract.spec import ToolDocs
from octo.contract.spec import ToolSpec
from octo.contract.spec import lazy
from octo.contract.spec import resolve
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult


@dataclass(frozen=True)
class Binding:
    """The code half of a tool: its models, its handler and limits.

    ``handler`` names the function that answers one query (``"package.module:function"``,
    imported on the first call so listing tools loads no backend). A tool whose query may
    name several places (paths, repositories) says so with ``places``: the reference of its
    :class:`~octo.contract.place_answers.SeveralPlaces`; the handler then answers each place.
    """

    query_model: type[ToolQuery]
    result_model: type[ToolResult]
    handler: str
    max_queries: int
    timeout: float | None = None
    read_only: bool = True
    places: str | None = None


def family_tools(
    package: str, category: ToolCategory, bindings: Mapping[str, Binding]
) -> list[ToolSpec]:
    """The specs of ``package``'s tools, in the order of ``bindings``.

    Raises ValueError when a tool has code but no words in ``tools.toml`` or the reverse:
    a family that loads at all is complete.
    """
    texts = _toml(package, "tools.toml")
    fragments: dict[str, str] = texts.pop("fragments", {})
    if set(texts) != set(bindings):
        raise ValueError(
            f"{package}: tools.toml and specs.py name different tools: "
            f"{sorted(set(texts) ^ set(bindings))}"
        )
    return [
        _spec(name, category, binding, texts[name], fragments) for name, binding in bindings.items()
    ]


def _toml(package: str, name: str) -> dict[str, Any]:
    resource = files(package).joinpath(name)
    if not resource.is_file():
        return {}
    return tomllib.loads(resource.read_text(encoding="utf-8"))


def _spec(
    name: str,
    category: ToolCategory,
    binding: Binding,
    words: Mapping[str, Any],
    fragments: Mapping[str, str],
) -> ToolSpec:
    description = " ".join(Template(words["description"]).substitute(fragments).split())
    return ToolSpec(
        name=name,
        title=words["title"],
        category=category,
        description=description,
        query_model=binding.query_model,
        result_model=binding.result_model,
        handler=_handler(binding),
        max_queries=binding.max_queries,
        example=dict(words.get("example", {})),
        timeout=binding.timeout,
        read_only=binding.read_only,
        handler_reference=binding.handler,
        places_reference=binding.places,
        docs=ToolDocs(
            use_cases=tuple(words.get("use_cases", ())),
            details=" ".join(words.get("details", "").split()),
            response=dict(words.get("response", {})),
            errors=dict(words.get("errors", {})),
            related=tuple(words.get("related", ())),
        ),
    )


def _handler(binding: Binding) -> Handler:
    """The binding's handler; over several places when the binding declares them."""
    single = lazy(binding.handler)
    if binding.places is None:
        return single
    return in_places(single, partial(resolve, binding.places), binding.result_model)
