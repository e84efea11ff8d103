"""What ``ragjudge generate`` is given, read and checked: the kind mix, the personas and
styles, and the knowledge base, generator model, store and cache taken from the options
or from an evaluation config. Every mistake is a :class:`~ragjudge.config.ConfigError`
naming the option or config key."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragjudge._util.suggest import did_you_mean

if TYPE_CHECKING:
    from ragjudge.config import EvalConfig, JudgeConfig

__all__ = ["GenerateInputs", "parse_mix", "parse_styles", "read_personas", "resolve_inputs"]

DEFAULT_CHUNK_SIZE = 800
DEFAULT_CHUNK_OVERLAP = 100


@dataclass
class GenerateInputs:
    """Where a generation reads from and writes to, and with which model."""

    kb: Path
    chunk_size: int
    chunk_overlap: int
    judge: JudgeConfig | None
    store: Path
    cache: bool | Path
    secrets: list[str] = field(default_factory=list)
    """Values to mask in everything printed (the config's and the model's credentials)."""


def _error(message: str) -> Exception:
    from ragjudge.config import ConfigError

    return ConfigError(message)


def parse_mix(text: str) -> dict[str, float]:
    """``single=0.4,multi=0.2`` → the share of each kind; an unknown kind is named with
    the closest known one."""
    from ragjudge.testsets import KINDS

    mix: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep:
            raise _error(f"--mix: {part!r} is not KIND=SHARE (e.g. single=0.4,multi=0.2)")
        if name not in KINDS:
            hint = did_you_mean(name, KINDS)
            raise _error(f"--mix: unknown kind {name!r}; {hint}kinds: {', '.join(KINDS)}")
        try:
            mix[name] = float(value)
        except ValueError:
            raise _error(f"--mix: the share of {name} is not a number: {value!r}") from None
    if not mix:
        raise _error("--mix: give at least one KIND=SHARE (e.g. single=0.4,multi=0.2)")
    return mix


def parse_styles(text: str) -> tuple[str, ...]:
    """``plain,terse`` → the question styles; an unknown style is named with the
    closest known one."""
    from ragjudge.testsets import STYLES

    styles = tuple(s.strip() for s in text.split(",") if s.strip())
    for style in styles:
        if style not in STYLES:
            hint = did_you_mean(style, STYLES)
            raise _error(f"--style: unknown style {style!r}; {hint}styles: {', '.join(STYLES)}")
    if not styles:
        raise _error(f"--style: give at least one of {', '.join(STYLES)}")
    return styles


def read_personas(given: list[str], file: Path | None) -> tuple[str, ...]:
    """The ``--persona`` values, then the non-empty lines of the ``--personas`` file."""
    personas = [p.strip() for p in given if p.strip()]
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise _error(f"--personas: cannot read {file}: {exc}") from None
        personas += [line.strip() for line in text.splitlines() if line.strip()]
    return tuple(personas)


def resolve_inputs(
    kb: Path | None,
    config: Path | None,
    *,
    judge: str | None,
    chunk_size: int | None,
    chunk_overlap: int | None,
    store: Path | None,
    no_cache: bool,
) -> GenerateInputs:
    """The knowledge base, generator model, store and cache from ``--kb`` and the
    options, or from the evaluation config ``--config`` (options win)."""
    if kb is None and config is None:
        raise _error("give the knowledge base: --kb PATH, or --config eval.yaml")
    if kb is not None and config is not None:
        raise _error("give --kb or --config, not both (the config names its knowledge base)")
    if config is not None:
        return _from_config(config, judge, chunk_size, chunk_overlap, store, no_cache)
    assert kb is not None
    if not kb.exists():
        raise _error(f"--kb: {kb} does not exist")
    chosen = _judge_named(judge)
    return GenerateInputs(
        kb,
        chunk_size or DEFAULT_CHUNK_SIZE,
        DEFAULT_CHUNK_OVERLAP if chunk_overlap is None else chunk_overlap,
        chosen,
        store or Path(".ragjudge/runs.db"),
        not no_cache,
        _secrets_of(None, chosen),
    )


def _from_config(
    path: Path,
    judge: str | None,
    chunk_size: int | None,
    chunk_overlap: int | None,
    store: Path | None,
    no_cache: bool,
) -> GenerateInputs:
    from ragjudge.config import load_config

    config = load_config(path)
    base = config.knowledge_base
    if base is None:
        raise _error(
            f"{path}: knowledge_base: the config has no knowledge base to generate from "
            "(add knowledge_base: {path: kb}, or give --kb)"
        )
    kb = config.resolve(base.path)
    if not kb.exists():
        raise _error(f"{path}: knowledge_base.path: {kb} does not exist")
    chosen = _judge_named(judge) if judge is not None else config.primary_judge
    cache: bool | Path = False if no_cache else (config.cache_path or False)
    return GenerateInputs(
        kb,
        chunk_size or base.chunk_size,
        base.chunk_overlap if chunk_overlap is None else chunk_overlap,
        chosen,
        store or config.store_path,
        cache,
        _secrets_of(config, chosen),
    )


def _judge_named(model: str | None) -> JudgeConfig | None:
    from pydantic import ValidationError

    from ragjudge.config import JudgeConfig

    if model is None:
        return None
    try:
        return JudgeConfig(model=model)
    except ValidationError as exc:
        reasons = "; ".join(str(e["msg"]) for e in exc.errors())
        raise _error(f"--judge: {reasons}") from None


def _secrets_of(config: EvalConfig | None, judge: JudgeConfig | None) -> list[str]:
    from ragjudge.config._secrets import config_secrets, judge_secrets

    found = config_secrets(config) if config is not None else []
    return found + judge_secrets(judge)


def settings_given(**options: Any) -> dict[str, Any]:
    """The generation settings given on the command line (None: the default)."""
    return {name: value for name, value in options.items() if value is not None}
