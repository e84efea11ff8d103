"""The parts of a config that are settings of their own: the knowledge base, the
system under test, an openai-evals eval and the HTML report."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ragjudge._util.suggest import did_you_mean


class KnowledgeBaseConfig(BaseModel):
    """A knowledge base: a folder of .txt/.md files or a JSONL of ``{doc_uri, content}``."""

    model_config = ConfigDict(extra="forbid")

    path: Path
    chunk_size: int = Field(default=800, gt=0)
    chunk_overlap: int = Field(default=100, ge=0)
    retriever: str = "bm25"
    """``bm25``, ``dense`` or ``hybrid`` (reciprocal rank fusion of the two)."""
    embedding: str | None = None
    """For dense/hybrid: ``local`` (the bundled all-MiniLM-L6-v2), ``local/<path>`` or
    ``openai/<model>`` (any OpenAI-compatible /v1/embeddings endpoint)."""
    k_rrf: int = Field(default=60, gt=0)


class TargetConfig(BaseModel):
    """The system under test.

    ``kind: data`` uses the responses already in the evaluation set; ``kind: callable``
    imports ``path`` (``package.module:function``, or an application object such as
    a LangChain chain or a LlamaIndex query engine); ``kind: mlflow_model`` loads the
    MLflow model at ``uri``; ``kind: openai_chat`` and
    ``kind: json_api`` call an HTTP endpoint (their further fields are checked by
    :func:`ragjudge.targets.http.http_target_from_config`).

    The caps on a reply apply to every kind but ``data`` (unset: the defaults of
    :class:`ragjudge.targets._targets.ReplyLimits`); a reply beyond them is that sample's error.
    """

    model_config = ConfigDict(extra="allow")

    kind: str = "callable"
    path: str | None = None
    timeout: float | None = Field(default=None, gt=0)
    max_reply_bytes: int | None = Field(default=None, gt=0)
    """The most bytes a reply may have (an HTTP body counted after decompression)."""
    max_contexts: int | None = Field(default=None, gt=0)
    """The most retrieved contexts a reply may list."""
    max_context_bytes: int | None = Field(default=None, gt=0)
    """The most bytes (UTF-8) one retrieved context may have."""

    @model_validator(mode="after")
    def _no_stray_keys(self) -> TargetConfig:
        # Further keys are kept for the HTTP kinds, which check them; the other kinds
        # would silently ignore a misspelt key.
        stray = sorted(self.model_extra or {})
        if stray and self.kind in ("data", "callable"):
            known = list(TargetConfig.model_fields)
            hint = did_you_mean(stray[0], known)
            raise ValueError(
                f"target kind {self.kind!r} takes no {', '.join(stray)}; "
                f"{hint}its keys: {', '.join(known)}"
            )
        return self


class OpenAIEvalsConfig(BaseModel):
    """An eval of an openai-evals registry folder (see :mod:`ragjudge.run._openai_evals`):
    its samples and metrics replace ``data`` (``metrics`` given too are added)."""

    model_config = ConfigDict(extra="forbid")

    registry: str
    eval: str
    invalid: Literal["error", "min"] = "error"
    """How a classify reply naming no choice counts: ``error`` (asked again, then an
    error) or ``min`` (the lowest choice score, as openai-evals counts it)."""


class ReportConfig(BaseModel):
    """The self-contained HTML report written at the end of every run: ``report: true``
    (beside the store, ``reports/RUN.html``), ``report: PATH`` or these settings."""

    model_config = ConfigDict(extra="forbid")

    path: str | None = None
    """The file to write, relative to the config; ``{run}`` stands for the run id. The
    default is ``reports/{run}.html`` in the store's folder."""
    human: list[str] = Field(default_factory=list)
    """Metadata keys holding human scores: the report plots every metric against them
    with the correlations of ``ragjudge meta``."""
