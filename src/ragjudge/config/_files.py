"""Reading an evaluation YAML file into an :class:`EvalConfig`: the YAML read by
:func:`~ragjudge.config._yaml.read_yaml` (the one text-file rule, keys given twice and
runaway aliases refused), ``${VAR}`` expanded from the environment (and remembered, so a
stored record keeps the reference, not the secret), every problem a :class:`ConfigError`
naming the file and the key."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from ragjudge._util.suggest import did_you_mean
from ragjudge.config._eval import ConfigError, EnvReferences, EvalConfig
from ragjudge.config._surface import flag_of
from ragjudge.config._yaml import read_yaml
from ragjudge.loading import format_named
from ragjudge.loading._values import value_problem

__all__ = ["environment_values", "expand_environment", "load_config", "read_yaml"]


def load_config(path: str | Path, **overrides: Any) -> EvalConfig:
    """Read an evaluation YAML file; ``overrides`` (e.g. from CLI flags) replace its keys
    when not None.

    The file is UTF-8 (or UTF-16 with a byte-order mark, see
    :func:`ragjudge._util.textfiles.decode_text`); a key given twice in one mapping, an
    unknown key and an unknown ``format`` are errors. Every problem is a
    :class:`ConfigError` naming the file (and the line or key)."""
    path = Path(path)
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of settings at the top level")
    if "base_dir" in raw:
        raise ConfigError(
            f"{path}: base_dir is not a setting; relative paths are resolved against the "
            "folder of the config file"
        )
    if (problem := value_problem(raw)) is not None:
        raise ConfigError(f"{path}: {problem.field}: {problem.reason}")
    references: EnvReferences = {}
    raw = expand_environment(raw, source=path, references=references)
    given = {k: v for k, v in overrides.items() if v is not None}
    raw.update(given)
    raw["base_dir"] = path.resolve().parent
    try:
        config = EvalConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_describe(path, exc, overridden=set(given))) from exc
    if config.format is not None:
        try:
            format_named(config.format)
        except ValueError as exc:
            raise ConfigError(f"{path}: format: {exc}") from None
    config._env_references = references
    config._source = path
    return config


_ENV_PATTERN = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand_environment(
    value: Any, *, source: Path | str = "config", references: EnvReferences | None = None
) -> Any:
    """Replace ``${VAR}`` and ``${VAR:-default}`` in every string of a config with the
    environment's value; an unset variable without a default is an error naming it.

    ``references``, when given, receives every string that used a variable, as written
    and as expanded, under its path, so that a stored record can keep the written form
    (the value may be a secret)."""
    return _expand(value, str(source), references, ())


def _expand(
    value: Any, source: str, references: EnvReferences | None, path: tuple[str | int, ...]
) -> Any:
    if isinstance(value, dict):
        return {k: _expand(v, source, references, (*path, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, source, references, (*path, i)) for i, v in enumerate(value)]
    if not isinstance(value, str):
        return value
    expanded = _expand_string(value, source)
    if references is not None and expanded != value:
        references[path] = (value, expanded)
    return expanded


def environment_values(text: str) -> list[str]:
    """The values the environment gives the ``${VAR}`` references in ``text`` (set and
    not empty; a ``:-default`` written in the file is not the environment's)."""
    found = (os.environ.get(match.group(1)) for match in _ENV_PATTERN.finditer(text))
    return [value for value in found if value]


def _expand_string(value: str, source: str) -> str:
    def substitute(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = os.environ.get(name)
        if found:
            return found
        if default is not None:
            return default
        raise ConfigError(f"{source}: environment variable {name} is not set (used as ${{{name}}})")

    return _ENV_PATTERN.sub(substitute, value)


def _describe(path: Path, exc: ValidationError, overridden: set[str]) -> str:
    """The validation errors, one line each; a setting given as an option is named by
    its flag."""
    lines = [f"{path}: invalid configuration"]
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        if err["loc"] and err["loc"][0] in overridden:
            where = f"{where} (given as {flag_of(str(err['loc'][0]))})"
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = _unknown_key_message(err["loc"])
        lines.append(f"  {where}: {message}")
    return "\n".join(lines)


def _unknown_key_message(loc: tuple[str | int, ...]) -> str:
    """An unknown key at ``loc`` (at any depth), with the closest key its mapping knows
    and every key it knows."""
    model = _model_at(loc[:-1])
    if model is None:
        return "unknown key"
    known = [name for name in model.model_fields if name != "base_dir"]
    what = "setting" if model is EvalConfig else "key"
    return f"unknown {what}; {did_you_mean(str(loc[-1]), known)}known {what}s: {', '.join(known)}"


def _model_at(loc: tuple[str | int, ...]) -> type[BaseModel] | None:
    """The settings model of the mapping at ``loc`` of the config (list indexes and
    union tags skipped), or None when no model describes it."""
    model: type[BaseModel] = EvalConfig
    for step in loc:
        field = model.model_fields.get(step) if isinstance(step, str) else None
        if field is None:
            continue
        found = _model_in(field.annotation)
        if found is None:
            return None
        model = found
    return model


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in get_args(annotation):
        if (found := _model_in(argument)) is not None:
            return found
    return None
