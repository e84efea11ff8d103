"""``ragjudge schema``: the JSON Schema of ``eval.yaml``, generated from
:class:`~ragjudge.config.EvalConfig`, for editors (the YAML language server) and for
checking a config before a run.

The model's own schema describes the settings as they are after reading; the
shorthands the reader also takes (``target: data``, ``judge: openai/gpt-4o``,
``report: true``, ``knowledge_base: docs/``) and the entries of ``metrics`` (a metric's
name, a mapping with ``metric:``, a ``preset:``) are added here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = ["eval_schema", "register"]

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

_SHORTHANDS: dict[str, list[dict[str, Any]]] = {
    "target": [
        {"type": "string", "description": "module:function, path/to/app.py:function or data"}
    ],
    "judge": [{"type": "string", "description": "a model spec such as openai/gpt-4o"}],
    "knowledge_base": [{"type": "string", "description": "a folder or a JSONL file"}],
    "report": [
        {"type": "boolean"},
        {"type": "string", "description": "the report's path; {run} stands for the run id"},
    ],
}
"""Per setting, the forms besides its mapping that the reader turns into one."""

_NOT_SETTINGS = ("base_dir",)


def eval_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of an evaluation YAML file."""
    from ragjudge.config import EvalConfig
    from ragjudge.config._eval import JUDGE_NAME

    schema = EvalConfig.model_json_schema()
    properties: dict[str, Any] = schema["properties"]
    for name in _NOT_SETTINGS:
        properties.pop(name, None)
    for name, forms in _SHORTHANDS.items():
        properties[name]["anyOf"] = [*properties[name]["anyOf"], *forms]
    judges = properties["judges"]["anyOf"][0]
    judges["additionalProperties"] = {
        "anyOf": [judges["additionalProperties"], *_SHORTHANDS["judge"]]
    }
    judges["propertyNames"] = {"pattern": f"^{JUDGE_NAME.pattern}$"}
    properties["metrics"]["items"] = _metric_entry_schema()
    schema = {
        "$schema": SCHEMA_DIALECT,
        "title": "ragjudge evaluation (eval.yaml)",
        **{k: v for k, v in schema.items() if k != "title"},
    }
    result: dict[str, Any] = _plain_descriptions(_env_references_allowed(schema))
    return result


_ENV_REFERENCE = {"type": "string", "pattern": r"\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}"}
_EXPANDED_TYPES = ("integer", "number", "boolean")


def _env_references_allowed(node: Any) -> Any:
    """Every number or flag may be written as ``${VAR}`` or ``${VAR:-default}``: the
    reader expands the reference before it checks the value."""
    if isinstance(node, list):
        return [_env_references_allowed(v) for v in node]
    if not isinstance(node, dict):
        return node
    walked = {k: _env_references_allowed(v) for k, v in node.items()}
    if walked.get("type") not in _EXPANDED_TYPES:
        return walked
    kept = {k: v for k, v in walked.items() if k in ("title", "description", "default")}
    value = {k: v for k, v in walked.items() if k not in kept}
    return {**kept, "anyOf": [value, _ENV_REFERENCE]}


def _metric_entry_schema() -> dict[str, Any]:
    from ragjudge.config import PRESETS
    from ragjudge.metrics._registry import available_metrics

    names = available_metrics()
    by_path = {"type": "string", "pattern": ".+:.+", "description": "module:Class of your own"}
    return {
        "anyOf": [
            {"enum": names, "description": "a metric with its default options"},
            by_path,
            {
                "type": "object",
                "required": ["metric"],
                "properties": {
                    "metric": {"anyOf": [{"enum": names}, by_path]},
                    "name": {"type": "string", "description": "the name its scores go under"},
                    "threshold": {
                        "type": "number",
                        "description": "the value each sample's score must reach to pass",
                    },
                    "judges": {
                        "type": "array",
                        "items": {"type": "string"},
                        "minItems": 1,
                        "description": "the config's judges this metric runs under",
                    },
                    "ensemble": {
                        "enum": ["majority", "mean", "median"],
                        "description": "how its judges' verdicts are combined",
                    },
                },
                "additionalProperties": True,
                "description": "a metric and its options",
            },
            {
                "type": "object",
                "required": ["preset"],
                "properties": {"preset": {"enum": [p.name for p in PRESETS]}},
                "additionalProperties": False,
                "description": "a named set of metrics (ragjudge metrics --presets)",
            },
        ]
    }


def _plain_descriptions(node: Any) -> Any:
    """Descriptions with Sphinx roles and double backticks written as an editor shows
    them (single backticks)."""
    if isinstance(node, dict):
        return {
            k: _plain_text(v)
            if k == "description" and isinstance(v, str)
            else _plain_descriptions(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_plain_descriptions(v) for v in node]
    return node


def _plain_text(text: str) -> str:
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`")


def schema(
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Write the schema to this file instead of printing it."
        ),
    ] = None,
) -> None:
    """Print the JSON Schema of eval.yaml, for editors: put
    '# yaml-language-server: $schema=PATH' on the first line of the file."""
    text = json.dumps(eval_schema(), ensure_ascii=False, indent=2) + "\n"
    if output is None:
        print(text, end="")
        return
    output.write_text(text, encoding="utf-8")


def register(app: typer.Typer) -> None:
    """Add ``schema`` to the ``ragjudge`` app."""
    app.command("schema")(schema)
