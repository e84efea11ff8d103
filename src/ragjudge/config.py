"""The evaluation configuration: what ``ragjudge run eval.yaml`` reads and what
``ragjudge.evaluate(...)`` builds from its arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator


class ConfigError(ValueError):
    """The configuration file is unreadable or invalid."""


class KnowledgeBaseConfig(BaseModel):
    """A knowledge base: a folder of .txt/.md files or a JSONL of ``{doc_uri, content}``."""

    model_config = ConfigDict(extra="forbid")

    path: Path
    chunk_size: int = Field(default=800, gt=0)
    chunk_overlap: int = Field(default=100, ge=0)
    retriever: str = "bm25"


class TargetConfig(BaseModel):
    """The system under test.

    ``kind: data`` uses the responses already in the evaluation set; ``kind: callable``
    imports ``path`` (``package.module:function``); ``kind: openai_chat`` and
    ``kind: json_api`` call an HTTP endpoint (their further fields are checked by
    :func:`ragjudge.http_targets.http_target_from_config`).
    """

    model_config = ConfigDict(extra="allow")

    kind: str = "callable"
    path: str | None = None
    timeout: float | None = Field(default=None, gt=0)


class EvalConfig(BaseModel):
    """One evaluation. Relative paths are resolved against ``base_dir`` (the folder
    of the YAML file)."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    data: str | None = None
    format: str | None = None
    target: TargetConfig | None = None
    metrics: list[str | dict[str, Any]] = Field(min_length=1)
    knowledge_base: KnowledgeBaseConfig | None = None
    trials: int = Field(default=1, ge=1)
    concurrency: int = Field(default=8, ge=1)
    limit: int | None = Field(default=None, ge=1)
    by: str | None = None
    store: str | None = None
    seed: int = 0
    base_dir: Path = Field(default_factory=Path.cwd)

    @field_validator("target", mode="before")
    @classmethod
    def _target_from_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"kind": "data"} if value == "data" else {"kind": "callable", "path": value}
        return value

    @field_validator("knowledge_base", mode="before")
    @classmethod
    def _kb_from_string(cls, value: Any) -> Any:
        return {"path": value} if isinstance(value, str) else value

    def resolve(self, path: str | Path) -> Path:
        """A path from the config, relative to the config's folder."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else (self.base_dir / p)

    @property
    def store_path(self) -> Path:
        """The store file: ``store`` if set, else ``.ragjudge/runs.db`` beside the config."""
        return self.resolve(self.store or ".ragjudge/runs.db")

    def to_record(self) -> dict[str, Any]:
        """JSON-able form kept with the run (paths absolute, so a resume finds them)."""
        record = self.model_dump(mode="json")
        record["base_dir"] = str(self.base_dir.resolve())
        return record


def load_config(path: str | Path, **overrides: Any) -> EvalConfig:
    """Read an evaluation YAML file; ``overrides`` (e.g. from CLI flags) replace its keys
    when not None."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: no such file") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of settings at the top level")
    raw.update({k: v for k, v in overrides.items() if v is not None})
    raw["base_dir"] = path.resolve().parent
    try:
        return EvalConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_describe(path, exc)) from exc


def _describe(path: Path, exc: ValidationError) -> str:
    lines = [f"{path}: invalid configuration"]
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        lines.append(f"  {where}: {err['msg']}")
    return "\n".join(lines)
