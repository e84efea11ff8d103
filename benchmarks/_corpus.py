"""Deterministic text for the CPU benchmarks: knowledge-base documents (one in five in
Japanese) and lexical evaluation rows.

English sentences come from the public passages in ``../shared/data`` (ClapNQ and the
MTRAG documents) when that folder is beside the checkout, else from a fixed vocabulary;
Japanese sentences come from the quickstart knowledge base (``examples/quickstart/kb``).
The same arguments always give the same text.
"""

from __future__ import annotations

import compileall
import json
import random
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["load_average"]  # kept here for the benchmarks that import it from _corpus


def load_average() -> str:
    """The load average (see ``_machine``); imported when asked, so the tests that load
    this module by its path need nothing else from ``benchmarks/``."""
    from _machine import load_average as machine_load

    return machine_load()


ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
JAPANESE_KB = ROOT / "examples" / "quickstart" / "kb"

_VOCABULARY_TEXT = (
    "index query table storage replica latency cluster backup schema column partition "
    "transaction commit rollback snapshot cache policy region network throughput request "
    "timeout retry window limit token budget invoice customer account report metric alert "
    "deploy release version upgrade migration config secret endpoint service gateway"
)
_VOCABULARY = tuple(_VOCABULARY_TEXT.split())


@cache
def english_sentences() -> tuple[str, ...]:
    """English sentences of the shared public passages (or made-up ones without them)."""
    sentences: list[str] = []
    clapnq = SHARED_DATA / "clapnq" / "clapnq_dev_answerable.jsonl"
    mtrag = SHARED_DATA / "mtrag-human" / "reference_subset_with_human_evaluations.json"
    if clapnq.exists():
        for line in clapnq.read_text(encoding="utf-8").splitlines():
            for passage in json.loads(line)["passages"]:
                sentences.extend(s.strip() for s in passage["sentences"] if s.strip())
    if mtrag.exists():
        for document in json.loads(mtrag.read_text(encoding="utf-8"))["documents"]:
            text = " ".join(document["text"].split())
            sentences.extend(s for s in re.split(r"(?<=[.!?])\s+", text) if len(s) > 20)
    sentences = [s for s in sentences if sum(c.isalpha() for c in s) >= 10]
    if not sentences:
        rng = random.Random(0)
        for _ in range(5000):
            words = rng.choices(_VOCABULARY, k=rng.randint(8, 24))
            sentences.append(" ".join(words).capitalize() + ".")
    return tuple(sentences)


@cache
def japanese_sentences() -> tuple[str, ...]:
    """Japanese sentences of the quickstart knowledge base (headings left out)."""
    sentences: list[str] = []
    for path in sorted(JAPANESE_KB.glob("*_ja.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                sentences.extend(s + "。" for s in line.split("。") if s.strip())
    return tuple(sentences)


def _paragraph(rng: random.Random, pool: Sequence[str], japanese: bool) -> str:
    picked = rng.choices(pool, k=rng.randint(3, 9))
    return ("" if japanese else " ").join(picked)


def document_texts(count: int, *, seed: int = 0, mean_chars: int = 6000) -> list[str]:
    """``count`` documents of paragraphs (blank lines between them) of about
    ``mean_chars`` characters on average; every fifth document is Japanese."""
    rng = random.Random(seed)
    english, japanese = english_sentences(), japanese_sentences()
    texts = []
    for index in range(count):
        is_japanese = index % 5 == 4
        pool = japanese if is_japanese else english
        wanted = int(rng.uniform(0.3, 1.7) * mean_chars)
        paragraphs: list[str] = []
        size = 0
        while size < wanted:
            paragraph = _paragraph(rng, pool, is_japanese)
            paragraphs.append(paragraph)
            size += len(paragraph) + 2
        texts.append("\n\n".join(paragraphs))
    return texts


def lexical_rows(count: int, *, seed: int = 0) -> list[dict[str, Any]]:
    """``count`` evaluation rows with a response and one or two reference answers that
    share part of their sentences; every fifth row is Japanese."""
    rng = random.Random(seed)
    english, japanese = english_sentences(), japanese_sentences()
    rows = []
    for index in range(count):
        is_japanese = index % 5 == 4
        pool = japanese if is_japanese else english
        joiner = "" if is_japanese else " "
        reference = rng.choices(pool, k=rng.randint(1, 3))
        response = [s for s in reference if rng.random() < 0.6] + rng.choices(pool, k=2)
        references: str | list[str] = joiner.join(reference)
        if rng.random() < 0.2:
            references = [joiner.join(reference), joiner.join(rng.choices(pool, k=2))]
        rows.append(
            {
                "request_id": f"r{index:06d}",
                "request": f"Question {index}",
                "response": joiner.join(response),
                "expected_response": references,
                "metadata": {"lang": "ja" if is_japanese else "en"},
            }
        )
    return rows


def byte_compile_sources() -> None:
    """Compile ragjudge's modules to byte code (where it is missing or stale), as
    installing a package does: a checkout run in an environment that writes no byte code
    (``PYTHONDONTWRITEBYTECODE``) would otherwise compile every module at every start,
    which no installed copy does. ``make`` does the same for the checkout."""
    compileall.compile_dir(ROOT / "src", quiet=1)


def ratio_line(name: str, value: float, bound: float, unit: str = "s", higher: bool = False) -> str:
    """One printed figure with its bound and their ratio."""
    passed = value >= bound if higher else value <= bound
    sign = ">=" if higher else "<="
    return (
        f"{name}: {value:.3f} {unit} (bound {sign} {bound:.3f} {unit}, ratio "
        f"{value / bound:.2f}) {'PASS' if passed else 'FAIL'}"
    )
