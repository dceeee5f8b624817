"""Query mending: one raw query validated against its tool's model, and on failure a
per-query VALIDATION_ERROR whose message names each fault and whose hint is the caller's own
query mended (bounds, misspelt fields, other tools' names for fields, the fix a model names for
a conflict), else the tool's example."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import pydantic

from octo.contract.spec import ToolSpec
from octo.core.errors import QueryValidationError
from octo.core.formats import compact_json
from octo.core.queries import CONTEXT_FIELDS
from octo.core.queries import ToolQuery
from octo.core.queries import is_text


def _close_field(model: type[ToolQuery], name: str) -> str | None:
    """The model's field most like the unknown ``name`` (a typo), if any is close."""
    close = difflib.get_close_matches(name, list(model.model_fields), n=1, cutoff=0.75)
    return close[0] if close else None


def _meant(model: type[ToolQuery], name: str) -> str | None:
    """What the unknown field ``name`` most likely means: another tool's name for a field
    (with the value a flag stands for), or the closest field name."""
    alias = model.field_aliases.get(name)
    if alias is None:
        return _close_field(model, name)
    return alias.field if alias.value is None else f"{alias.field}: {compact_json(alias.value)}"


def _renamed(model: type[ToolQuery], name: str, value: Any) -> tuple[str, Any] | None:
    """The field and value the unknown field ``name`` given ``value`` becomes, if any."""
    alias = model.field_aliases.get(name)
    if alias is None:
        close = _close_field(model, name)
        return None if close is None else (close, value)
    if alias.value is None:
        return alias.field, value
    return (alias.field, alias.value) if value is True else None


def _describe_validation_error(model: type[ToolQuery], exc: pydantic.ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) if is_text(str(p)) else ascii(p) for p in err["loc"]) or "query"
        message = err["msg"].removeprefix("Value error, ")
        got = "" if err["type"] == "missing" or not err["loc"] else f" (got {err['input']!r}"
        if got and err["type"] == "extra_forbidden" and (meant := _meant(model, where)):
            got += f", did you mean {meant}?"
        parts.append(f"{where}: {message}{got}{')' if got else ''}")
    return "; ".join(parts)


def _mend(
    model: type[ToolQuery], query: Mapping[str, Any], errors: Sequence[Any]
) -> dict[str, Any] | None:
    """``query`` with each of ``errors`` mended, or None when one cannot be."""
    fixed = dict(query)
    for err in errors:
        mend = (err.get("ctx") or {}).get("mend")
        if isinstance(mend, Mapping):  # the model says how (see octo.core.queries.mendable)
            for name, value in mend.items():
                if value is None:
                    fixed.pop(name, None)
                else:
                    fixed[name] = value
            continue
        if len(err["loc"]) != 1:
            return None
        if err["type"] == "missing":
            continue  # mended only by a misspelt field's rename; else validation fails below
        name = str(err["loc"][0])
        bounds = err.get("ctx") or {}
        if err["type"] == "less_than_equal":
            fixed[name] = bounds["le"]
        elif err["type"] == "greater_than_equal":
            fixed[name] = bounds["ge"]
        else:
            value = fixed.pop(name, None)
            renamed = _renamed(model, name, value) if err["type"] == "extra_forbidden" else None
            if renamed is not None and renamed[0] not in fixed:
                fixed[renamed[0]] = renamed[1]
    return fixed


def _corrected(
    model: type[ToolQuery], raw: Mapping[str, Any], exc: pydantic.ValidationError
) -> dict[str, Any] | None:
    """``raw`` with its faults mended, when each is mendable and the result is valid.

    A number out of range takes the nearest bound; a misspelt field, or another tool's
    name for one (the model's ``field_aliases``), its right name; a rule across fields
    the fix the model names (``mendable``); another unknown or malformed optional field
    is dropped. Mending one fault may reveal the next (a renamed field that excludes
    another), so it goes a few rounds. Required fields with no value are left to the
    example.
    """
    fixed: dict[str, Any] | None = {
        key: value for key, value in raw.items() if key not in CONTEXT_FIELDS
    }
    errors = exc.errors(include_url=False)
    for _ in range(3):
        fixed = _mend(model, fixed or {}, errors)
        if fixed is None:
            return None
        try:
            model.model_validate(fixed)
        except pydantic.ValidationError as again:
            errors = again.errors(include_url=False)
            continue
        return fixed
    return None


def validate_query(spec: ToolSpec, raw: Mapping[str, Any] | ToolQuery) -> ToolQuery:
    """Validate one raw query against the tool's model; a failure is that query's VALIDATION_ERROR.

    Its hint is the caller's query mended (see :func:`_corrected`), else the tool's example.
    """
    example = f"Valid example: {compact_json(spec.example)}"
    if isinstance(raw, spec.query_model):
        return raw
    if isinstance(raw, pydantic.BaseModel):
        raw = raw.model_dump(exclude_unset=True)
    if not isinstance(raw, Mapping):
        raise QueryValidationError(
            f"Each query must be an object, got {type(raw).__name__}", hints=[example]
        )
    try:
        return spec.query_model.model_validate(raw)
    except pydantic.ValidationError as exc:
        fixed = _corrected(spec.query_model, raw, exc)
        hint = example
        if fixed is not None:
            hint = f"Valid form of this query: {spec.name} {compact_json(fixed)}"
        raise QueryValidationError(
            _describe_validation_error(spec.query_model, exc), hints=[hint]
        ) from None
