"""The secret values of a run's configuration, which the run registers before it starts
(:func:`ragjudge._util.known_secrets.register_secrets`) so that they are masked by value
wherever text is stored or shown, whatever a field or parameter is called."""

from __future__ import annotations

import os
from typing import Any

from ragjudge._util.redact import header_secrets, is_secret_name, url_secrets
from ragjudge.config._eval import EvalConfig, JudgeConfig
from ragjudge.config._files import environment_values
from ragjudge.models._model import make_provider

__all__ = ["config_secrets", "judge_secrets"]


def config_secrets(config: EvalConfig) -> list[str]:
    """Every value of ``config`` that is or may be a secret:

    - the value of every environment variable a ``${VAR}`` reference names, in the file
      the config was read from or still written in a setting (the target's and the
      retriever's settings of a resumed run, a mapping given to ``evaluate``);
    - the values of credential headers, of key-like fields and of the variables
      ``api_key_env``-like fields name;
    - the user-info and key-like query values of every URL;
    - the judge's own credentials: its key (``api_key_env``, else ``OPENAI_API_KEY``)
      and the secrets of its base URL (``OPENAI_BASE_URL`` when none is set);
    - the values of the variables ``ray.runtime_env.env_vars`` names (sent to the Ray
      workers, whatever they hold).
    """
    record = config.model_dump(mode="json")
    written = [text for text, _ in config._env_references.values()]
    found = [v for text in [*written, *_strings(record)] for v in environment_values(text)]
    judges = [config.judge, *(config.judges or {}).values()]
    credentials = [s for j in judges for s in judge_secrets(j)]
    return found + _record_secrets(record) + credentials + _shipped_values(config)


def _shipped_values(config: EvalConfig) -> list[str]:
    runtime_env = config.ray.runtime_env if config.ray is not None else None
    names = runtime_env.env_vars if runtime_env is not None else []
    return [os.environ[name] for name in names if os.environ.get(name)]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _record_secrets(value: Any) -> list[str]:
    """Credential header values, key-like fields, keys named by ``*_env`` fields and
    URL credentials anywhere in a config record."""
    if isinstance(value, str):
        return url_secrets(value) if "://" in value else []
    if isinstance(value, list):
        return [s for item in value for s in _record_secrets(item)]
    if not isinstance(value, dict):
        return []
    found: list[str] = []
    for key, item in value.items():
        name = str(key)
        if name.lower() == "headers" and isinstance(item, dict):
            found += _header_values(item)
        elif isinstance(item, str) and is_secret_name(name):
            found.append(item)
        elif isinstance(item, str) and name.endswith("_env") and is_secret_name(name[:-4]):
            found.append(os.environ.get(item) or "")
        else:
            found += _record_secrets(item)
    return found


def _header_values(headers: dict[str, Any]) -> list[str]:
    """The values of credential headers (``Authorization``, ``X-Api-Key`` …); a value
    written in the file under another name (``X-Team: search``) is not searched for,
    as it would maim every text that holds the word (one from the environment is)."""
    return header_secrets({str(k): v for k, v in headers.items() if isinstance(v, str)})


def judge_secrets(judge: JudgeConfig | None) -> list[str]:
    """The credentials of ``judge``: its key and the secrets of its base URL."""
    if judge is None:
        return []
    key = os.environ.get(judge.api_key_env) if judge.api_key_env else None
    try:
        provider = make_provider(judge.model, base_url=judge.base_url, api_key=key)
    except ValueError:  # an unknown spec: the run stops on it before anything is stored
        return url_secrets(judge.base_url or "")
    secrets: list[str] = getattr(provider, "secrets", [])
    return secrets
