"""Run the queries of one call concurrently and turn every outcome into an envelope.

The dispatcher knows tools only through their :class:`~octo.contract.ToolSpec`: it
validates each query against the spec's model, runs the handler under the query's
deadline, and maps whatever happens (an answer, an :class:`OctoError`, a bug) to that
query's envelope. It never imports the list of tools.

The answers of one call share one token budget (``OCTO_MAX_CALL_TOKENS``): each query gets
its share before it runs (the call's budget over its queries, when that is below
``OCTO_MAX_TOKENS``) as its own token budget, so no query runs twice; an answer that used
its share says how to continue.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import replace
from typing import Any

import anyio
import pydantic

from octo.contract import Answer
from octo.contract import ProgressReporter
from octo.contract import QueryContext
from octo.contract import Runtime
from octo.contract import ToolSpec
from octo.contract.budget_cut import within_budget
from octo.contract.query_mending import validate_query
from octo.core.budget import TokenInfo
from octo.core.budget import estimate_tokens
from octo.core.concurrency import Admission
from octo.core.concurrency import map_ordered
from octo.core.config import Config
from octo.core.envelope import BulkResponse
from octo.core.envelope import ErrorInfo
from octo.core.envelope import QueryStatus
from octo.core.envelope import ResultEnvelope
from octo.core.errors import BusyError
from octo.core.errors import CallError
from octo.core.errors import ErrorCode
from octo.core.errors import OctoError
from octo.core.errors import QueryTimeoutError
from octo.core.errors import RateLimitError
from octo.core.files.paths import PathPolicy
from octo.core.formats import compact_json
from octo.core.formats import iso_utc
from octo.core.queries import CONTEXT_FIELDS
from octo.core.queries import ToolQuery
from octo.core.queries import ToolResult
from octo.core.queries import is_text
from octo.core.secrets.redaction import call_secrets
from octo.core.secrets.redaction import known_hidden
from octo.core.secrets.redaction import redacted

logger = logging.getLogger("octo")


def _first_failure(group: BaseExceptionGroup[Any]) -> BaseException:
    """The error a task group's failure stands for: its first OctoError or timeout, else the
    first error of any kind (nested groups are searched depth first)."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        current = pending.pop(0)
        if isinstance(current, BaseExceptionGroup):
            pending[:0] = list(current.exceptions)
        else:
            leaves.append(current)
    known = [e for e in leaves if isinstance(e, OctoError | TimeoutError)]
    return (known or leaves or [group])[0]


def error_info(exc: BaseException) -> tuple[ErrorInfo, list[str]]:
    """The one mapping from exceptions to envelope errors."""
    if isinstance(exc, BaseExceptionGroup):
        exc = _first_failure(exc)
    if isinstance(exc, OctoError):
        reset = None
        if isinstance(exc, RateLimitError) and exc.reset_at is not None:
            reset = iso_utc(exc.reset_at)
        return ErrorInfo(code=exc.code, message=exc.message, resetAt=reset), list(exc.hints)
    if isinstance(exc, TimeoutError):
        return ErrorInfo(code=ErrorCode.TIMEOUT, message="The query timed out"), [
            "Narrow the query (a sub-path, a file type, fewer results) and retry."
        ]
    logger.exception("query failed unexpectedly", exc_info=exc)
    return ErrorInfo(code=ErrorCode.INTERNAL_ERROR, message=f"{type(exc).__name__}: {exc}"), [
        "This is a bug in octo; the other queries of the call are unaffected."
    ]


def _context_echo(raw: Any) -> dict[str, Any]:
    source = raw.model_dump() if isinstance(raw, pydantic.BaseModel) else raw
    if not isinstance(source, Mapping):
        return {}
    return {
        key: source[key]
        for key in sorted(CONTEXT_FIELDS)
        if isinstance(source.get(key), str) and is_text(source[key])
    }


async def _run_query(
    spec: ToolSpec, ctx: QueryContext, index: int, raw: Any, share: int | None = None
) -> ResultEnvelope[Any]:
    """One query's envelope (redacted with the call's others, see :func:`dispatch`).
    ``share``: the query's part of the call's token budget, when the call's budget is
    tighter than a query's own."""
    if share is None:
        return (await _envelope(spec, ctx, index, raw))[0]
    config = ctx.config
    hint = (
        f"This call's answers share a budget of {config.max_call_tokens} tokens "
        f"(OCTO_MAX_CALL_TOKENS): this one was cut to its share, about {share} tokens. "
        "Continue with the hints above, or ask for it in a call of its own."
    )
    # Answers carry more than their content (paths, stats, hints): a tenth is left for it.
    room = share * 9 // 10 - estimate_tokens(len(hint), config.chars_per_token)
    envelope, data_chars = await _envelope(spec, ctx.with_token_budget(max(1, room)), index, raw)
    if (
        envelope.status != QueryStatus.ERROR
        and _tokens(envelope, data_chars, config) >= room * 9 // 10
    ):
        envelope.hints.append(hint)
    return envelope


async def _envelope(
    spec: ToolSpec, ctx: QueryContext, index: int, raw: Any
) -> tuple[ResultEnvelope[Any], int | None]:
    """One query's envelope, and the characters of its data as sent when a tokens block
    measured them on the way (so nothing serialises the answer again to size it)."""
    echo = _context_echo(raw)
    timeout = _timeout(spec, ctx.runtime)
    try:
        query = validate_query(spec, raw)
        try:
            with anyio.fail_after(timeout):
                answer, data_chars = await _finished(
                    spec, ctx, query, await spec.handler(ctx, query)
                )
        except TimeoutError:
            raise QueryTimeoutError(
                f"{spec.name} did not finish within {math.ceil(timeout)} s",
                hints=["Narrow the query (a sub-path, a file type, fewer results) and retry."],
            ) from None
    except Exception as exc:  # noqa: BLE001 - every failure becomes this query's envelope
        info, hints = error_info(exc)
        failed = ResultEnvelope[Any](
            queryIndex=index, status=QueryStatus.ERROR, error=info, hints=hints, **echo
        )
        return failed, None
    data = answer.result
    status = QueryStatus.EMPTY if data.is_empty() else QueryStatus.SUCCESS
    envelope = ResultEnvelope[Any](
        queryIndex=index,
        status=status,
        data=data,
        hints=answer.hints,
        cached=True if answer.cached else None,
        partial=True if answer.partial else None,
        **echo,
    )
    return envelope, data_chars


def _refused(index: int, raw: Any, exc: OctoError) -> ResultEnvelope[Any]:
    """The envelope of a query that never ran (its call was refused), redacted."""
    info, hints = error_info(exc)
    echo = _context_echo(raw)
    return redacted(
        ResultEnvelope[Any](
            queryIndex=index, status=QueryStatus.ERROR, error=info, hints=hints, **echo
        )
    )


async def _finished(
    spec: ToolSpec, ctx: QueryContext, query: ToolQuery, answer: Answer[Any]
) -> tuple[Answer[Any], int | None]:
    """The finishing stage: a handler's uncut answer redacted, then within the query's token
    budget as a whole, the lists its result model declares cut from their end into content
    handles (remote content: readable under any roots), the hints naming them first; and
    the characters of the answer's data as sent, when a tokens block measured them.
    Redacted before the cut, so a clipped text never leaves a secret cut where no detector
    knows it."""
    shown = redacted(answer.result)
    # A handler's tokens block measured its answer before redaction: stale when that changed it.
    measured_as_sent = shown is answer.result
    answer = replace(answer, result=shown, hints=redacted(answer.hints))
    result, cut = await within_budget(ctx, query, answer.result, local=not spec.open_world)
    if not cut:
        return answer, _measured_chars(answer.result, result) if measured_as_sent else None
    return replace(answer, result=result, hints=[*cut, *answer.hints]), _measured_chars(
        result, result
    )


def _measured_chars(sent: ToolResult, measured: ToolResult) -> int | None:
    """The characters of ``sent`` as sent, from the tokens block that measured it: its own,
    or the one the cut added to ``measured`` (``sent`` with a block, to size a remote answer
    its handler did not measure: less that block, and its comma when there are other
    fields); None when nothing measured it."""
    own = getattr(sent, "tokens", None)
    if isinstance(own, TokenInfo):
        return own.chars
    added = getattr(measured, "tokens", None)
    if not isinstance(added, TokenInfo):
        return None
    block = len('"tokens":') + len(added.model_dump_json(exclude_none=True))
    return added.chars - block - (0 if added.chars == block + len("{}") else len(","))


def _sealed(envelope: ResultEnvelope[Any]) -> ResultEnvelope[Any]:
    """``envelope`` as it leaves octo: its data (redacted by the finishing stage) with the
    values the call's other queries met hidden too, the rest (hints, error, echoed context)
    redacted."""
    data = envelope.data
    rest = redacted(envelope.model_copy(update={"data": None}))
    return rest.model_copy(update={"data": known_hidden(data)}) if data is not None else rest


def _timeout(spec: ToolSpec, runtime: Runtime) -> float:
    return spec.timeout or runtime.config.query_timeout


def _tokens(envelope: ResultEnvelope[Any], data_chars: int | None, config: Config) -> int:
    """The envelope's size as sent, in tokens. Data measured on its way (``data_chars``) is
    not serialised again: its size, with the envelope around it (``"data":`` and a comma:
    an envelope always holds its queryIndex besides)."""
    if data_chars is None or envelope.data is None:
        chars = len(envelope.model_dump_json(exclude_none=True))
    else:
        around = envelope.model_copy(update={"data": None}).model_dump_json(exclude_none=True)
        chars = len(around) + len('"data":,') + data_chars
    return estimate_tokens(chars, config.chars_per_token)


def _share(spec: ToolSpec, config: Config, queries: int) -> int | None:
    """Each query's part of the call's token budget, fixed before any runs; None when a
    query's own budget (OCTO_MAX_TOKENS) is the tighter one."""
    share = config.max_call_tokens // queries
    return share if spec.read_only and share < config.max_tokens else None


async def dispatch(
    spec: ToolSpec,
    runtime: Runtime,
    queries: Sequence[Mapping[str, Any] | ToolQuery],
    *,
    paths: PathPolicy | None = None,
    progress: ProgressReporter | None = None,
) -> BulkResponse[Any]:
    """Run ``queries`` of ``spec`` concurrently; results keep the order of the queries.

    ``paths`` narrows the allowed roots for this call; ``progress`` receives the progress
    of long queries. Raises CallError when the call itself is malformed (no queries, too
    many).
    """
    if isinstance(queries, (str, bytes, Mapping)) or not isinstance(queries, Sequence):
        raise CallError(
            "queries must be a list of query objects",
            hints=[f'Valid call: {{"queries": [{compact_json(spec.example)}]}}'],
        )
    if not 1 <= len(queries) <= spec.max_queries:
        raise CallError(
            f"{spec.name} takes 1-{spec.max_queries} queries per call, got {len(queries)}",
            hints=[f"Split the queries into calls of at most {spec.max_queries}."],
        )
    ctx = QueryContext(runtime, paths or runtime.paths, tool=spec.name)
    if progress is not None:
        ctx = replace(ctx, report_progress=progress)

    share = _share(spec, ctx.config, len(queries))

    # A call of local work runs once admitted, else each query is BUSY at once; its arrival
    # then ranks its work in the runtime's queues (rg's). The call's envelopes are sealed
    # together: the choke point every text leaving octo passes (data, hints, error messages,
    # echoed context), where a secret value met by any query is hidden in all.
    try:
        async with nullcontext() if spec.open_world else runtime.backend(Admission).admitted():
            admitted = replace(ctx, arrived=anyio.current_time())

            async def run_one(item: tuple[int, Any]) -> ResultEnvelope[Any]:
                return await _run_query(spec, admitted, *item, share)

            with call_secrets():
                results = await map_ordered(run_one, list(enumerate(queries)))
                return BulkResponse[Any](results=[_sealed(envelope) for envelope in results])
    except BusyError as busy:
        refused = [_refused(index, raw, busy) for index, raw in enumerate(queries)]
        with call_secrets():
            return BulkResponse[Any](results=redacted(refused))
