"""How values travel through the shared store: compact JSON, compressed above a size.

JSON because every value octo shares is already a JSON shape (pydantic models, lists and
dicts of them, validated back by a pydantic ``TypeAdapter`` the reader names): nothing is
unpickled, so a store's contents can never run code. zlib (the standard library) because
answers are text that compresses several times over.

Errors travel too, so a follower on another replica gets the leader's failure: an
:class:`~octo.core.errors.OctoError` as its class and attributes.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from octo.core.errors import OctoError

#: Packed JSON at least this long is compressed.
COMPRESS_ABOVE = 1024
#: The most a shared value may unpack to: the largest answer octo shares (a part file of a
#: pull request, 10 MiB, as JSON) with room to spare. A value read from the store is
#: untrusted: a zlib bomb under octo's prefix stops here instead of growing memory.
MAX_UNPACKED_BYTES = 24 * 1024 * 1024
_PLAIN, _ZLIB = b"j", b"z"


def pack(document: Any) -> bytes:
    """``document`` as compact JSON bytes, compressed when long."""
    raw = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    if len(raw) > COMPRESS_ABOVE:
        return _ZLIB + zlib.compress(raw, 6)
    return _PLAIN + raw


def unpack(data: bytes, max_bytes: int = MAX_UNPACKED_BYTES) -> Any:
    """What :func:`pack` packed; ValueError for anything else, and for a value that
    unpacks to more than ``max_bytes`` (decompression stops there)."""
    tag, body = data[:1], data[1:]
    if tag == _ZLIB:
        inflate = zlib.decompressobj()
        try:
            body = inflate.decompress(body, max_bytes + 1)
        except zlib.error as exc:
            raise ValueError(f"undecodable shared value: {exc}") from None
        if len(body) > max_bytes or inflate.unconsumed_tail:
            raise ValueError(f"shared value unpacks to more than {max_bytes} bytes")
        if not inflate.eof:
            raise ValueError("truncated shared value")
    elif tag != _PLAIN:
        raise ValueError("not a shared value")
    if len(body) > max_bytes:
        raise ValueError(f"shared value is longer than {max_bytes} bytes")
    return json.loads(body)


def _error_classes(base: type[OctoError]) -> dict[str, type[OctoError]]:
    found = {f"{base.__module__}:{base.__qualname__}": base}
    for sub in base.__subclasses__():
        found.update(_error_classes(sub))
    return found


def error_document(error: OctoError) -> dict[str, Any] | None:
    """``error`` as JSON (its class and attributes), or None when an attribute is not
    plain data (such an error is not shared: the follower asks upstream itself)."""
    name = f"{type(error).__module__}:{type(error).__qualname__}"
    attributes = dict(vars(error))
    try:
        json.dumps(attributes)
    except (TypeError, ValueError):
        return None
    return {"class": name, "attributes": attributes}


def error_from(document: Any) -> OctoError | None:
    """The error :func:`error_document` described, or None when its class is unknown
    here (a replica of another version)."""
    if not isinstance(document, dict):
        return None
    cls = _error_classes(OctoError).get(str(document.get("class")))
    attributes = document.get("attributes")
    if cls is None or not isinstance(attributes, dict):
        return None
    error = cls.__new__(cls)
    Exception.__init__(error, attributes.get("message", ""))
    vars(error).update(attributes)
    return error
