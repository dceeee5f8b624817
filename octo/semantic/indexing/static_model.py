"""The default embedding model: WordLlama's 256-dimension static token embeddings (the
``wordllama`` wheel ships the weights and the tokenizer, 33 MB), read straight from the files
of the installed package and averaged with numpy.

A static model has no attention: a text's vector is the mean of its tokens' vectors. That
makes it hundreds of times cheaper than a transformer (no download, about a millisecond per
chunk on one core) at some cost in nuance, which the compact text of each chunk (signature,
docstring, identifier words) and the keyword side of the hybrid ranking make up for; see
benchmarks/README.md for the figures behind the choice.

The package's own loader is not used: it looks for its tokenizer in a folder named
differently from the one it ships and then downloads, and importing it configures the root
logger. Only its two files are read here.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import anyio

from octo.core.errors import ToolNotAvailableError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

STATIC_MODEL = "wordllama/l2_supercat_256"
_WEIGHTS = Path("weights") / "l2_supercat_256.safetensors"
_TOKENIZER = Path("tokenizers") / "l2_supercat_tokenizer_config.json"
#: Tokens of a text that count: compact chunk texts are far shorter; a longer query is cut.
MAX_TOKENS = 512


def _package_files() -> tuple[Path, Path]:
    """The weights and tokenizer files of the installed wordllama package (not imported)."""
    spec = importlib.util.find_spec("wordllama")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in map(Path, folders):
        weights, tokenizer = folder / _WEIGHTS, folder / _TOKENIZER
        if weights.is_file() and tokenizer.is_file():
            return weights, tokenizer
    raise ToolNotAvailableError(
        "The default embedding model is not installed (the wordllama package and its files)",
        hints=[
            'Install the semantic extra: pip install "octo-gateway[semantic]"',
            "Or set OCTO_EMBED_URL to an OpenAI-compatible endpoint.",
        ],
    )


class StaticEmbedder:
    """Mean-pooled static token vectors, L2-normalised. Loaded once (about a second); texts
    are embedded in worker threads (the tokenizer runs on every core, numpy releases the GIL)."""

    model = STATIC_MODEL
    #: Chunks per stored batch: a batch takes a fraction of a second.
    batch = 512

    def __init__(self) -> None:
        self._files = _package_files()
        self._loaded: tuple[Any, npt.NDArray[np.float32]] | None = None
        self._lock = threading.Lock()

    def _load(self) -> tuple[Any, npt.NDArray[np.float32]]:
        with self._lock:
            if self._loaded is None:
                import numpy as np
                from safetensors import safe_open
                from tokenizers import Tokenizer

                weights, tokenizer_file = self._files
                with safe_open(str(weights), framework="np") as tensors:
                    matrix = np.ascontiguousarray(
                        tensors.get_tensor("embedding.weight"), np.float32
                    )
                tokenizer = Tokenizer.from_file(str(tokenizer_file))
                tokenizer.no_padding()
                tokenizer.enable_truncation(MAX_TOKENS)
                self._loaded = (tokenizer, matrix)
            return self._loaded

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Normalised vectors of ``texts`` (blocking)."""
        import numpy as np

        tokenizer, matrix = self._load()
        encoded = tokenizer.encode_batch(texts, add_special_tokens=False)
        vectors = np.zeros((len(texts), matrix.shape[1]), dtype=np.float32)
        for row, item in enumerate(encoded):
            if item.ids:
                vectors[row] = matrix[np.asarray(item.ids, dtype=np.int64)].mean(axis=0)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        normalised: npt.NDArray[np.float32] = vectors / np.maximum(norms, 1e-12)
        return normalised

    async def passages(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return await anyio.to_thread.run_sync(self.encode, list(texts), abandon_on_cancel=True)

    async def query(self, text: str) -> npt.NDArray[np.float32]:
        vectors = await anyio.to_thread.run_sync(self.encode, [text])
        first: npt.NDArray[np.float32] = vectors[0]
        return first
