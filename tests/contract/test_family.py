"""Every tool's binding names real code: its handler is the function that answers (not a
wrapper), its places are a SeveralPlaces, and every tools.toml names only bound tools."""

from __future__ import annotations

import inspect
import tomllib
from pathlib import Path

import pytest

from octo.contract import ToolSpec
from octo.contract.place_answers import SeveralPlaces
from octo.contract.spec import resolve
from octo.registry import all_tools

OCTO = Path(__file__).resolve().parents[2] / "octo"


@pytest.mark.parametrize("spec", all_tools(), ids=lambda spec: spec.name)
def test_the_handler_named_in_the_spec_is_the_function_itself(spec: ToolSpec) -> None:
    module, _, name = spec.handler_reference.partition(":")
    handler = resolve(spec.handler_reference)
    assert inspect.iscoroutinefunction(handler)
    assert (handler.__module__, handler.__qualname__) == (module, name)
    if spec.places_reference is not None:
        assert isinstance(resolve(spec.places_reference), SeveralPlaces)


def test_every_tool_of_every_tools_toml_is_bound() -> None:
    bound = {spec.name for spec in all_tools()}
    listed: set[str] = set()
    for words in OCTO.rglob("tools.toml"):
        tools = set(tomllib.loads(words.read_text(encoding="utf-8"))) - {"fragments"}
        assert tools <= bound, f"{words}: {sorted(tools - bound)} have no binding"
        listed |= tools
    assert listed == bound


def test_query_models_have_names_of_their_own() -> None:
    names = [
        f"{spec.query_model.__module__}.{spec.query_model.__qualname__}" for spec in all_tools()
    ]
    bases = {
        f"{base.__module__}.{base.__qualname__}"
        for spec in all_tools()
        for base in spec.query_model.__mro__[1:]
    }
    assert not set(names) & bases, "a derived query model has its base's qualified name"
