"""``ray.runtime_env`` of the config as Ray's runtime environment: the working folder
resolved against the config's folder, environment variables given by name with their
values read from this process's environment (never stored, masked as secrets), and the
config's folder as a worker sees it once the working folder was shipped."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ragjudge.config import ConfigError, EvalConfig
from ragjudge.config._ray import RuntimeEnvConfig

__all__ = ["env_var_values", "job_runtime_env", "on_this_node", "shipped_folder"]

_HINT = "ray.runtime_env"


def _settings(config: EvalConfig) -> RuntimeEnvConfig | None:
    return config.ray.runtime_env if config.ray is not None else None


def shipped_folder(config: EvalConfig) -> Path | None:
    """The folder ``ray.runtime_env.working_dir`` names, on this machine, or None."""
    settings = _settings(config)
    if settings is None or settings.working_dir is None:
        return None
    return config.resolve(settings.working_dir).resolve()


def env_var_values(config: EvalConfig) -> dict[str, str]:
    """The values of the variables ``ray.runtime_env.env_vars`` names, from this
    process's environment; a :class:`ConfigError` names any that is not set."""
    settings = _settings(config)
    names = settings.env_vars if settings is not None else []
    missing = [name for name in names if name not in os.environ]
    if missing:
        raise ConfigError(
            f"{_HINT}.env_vars names {', '.join(missing)}, not set in the environment of "
            "this process: set it before starting the run (its value is sent to the workers)"
        )
    return {name: os.environ[name] for name in names}


def job_runtime_env(config: EvalConfig) -> dict[str, Any] | None:
    """Ray's ``runtime_env`` for ``ray.init``, or None without ``ray.runtime_env``; a
    :class:`ConfigError` when the working folder is missing or a variable is not set."""
    settings = _settings(config)
    if settings is None:
        return None
    runtime_env: dict[str, Any] = {}
    folder = shipped_folder(config)
    if folder is not None:
        if not folder.is_dir():
            raise ConfigError(
                f"{_HINT}.working_dir: {folder} is not a folder (it is relative to the "
                "config's folder)"
            )
        runtime_env["working_dir"] = str(folder)
        if settings.excludes:
            runtime_env["excludes"] = list(settings.excludes)
    if settings.pip:
        runtime_env["pip"] = list(settings.pip)
    values = env_var_values(config)
    if values:
        runtime_env["env_vars"] = values
    return runtime_env


def on_this_node(config: EvalConfig) -> EvalConfig:
    """``config`` as a worker uses it: with a shipped working folder, its relative paths
    and the target module are looked up in the copy the worker runs in (its current
    folder), not in the folder the run was started from."""
    folder = shipped_folder(config)
    if folder is None:
        return config
    try:
        inside = config.base_dir.resolve().relative_to(folder)
    except ValueError:  # the config's folder is not in the shipped one
        return config
    return config.model_copy(update={"base_dir": Path.cwd() / inside})
