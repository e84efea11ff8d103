"""The settings as the command line and the Python API show them, read from the one
declaration of each: :class:`~ragjudge.config.EvalConfig` for what an evaluation is
(data, metrics, judge, trials …) and :class:`RunControls` for how one invocation runs it
(resume, progress …).

``ragjudge run`` takes its setting options' flags, metavars and help texts from here,
:func:`ragjudge.evaluate` its defaults and the settings part of its documentation; a
test fails when either drifts from the declarations.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.fields import FieldInfo

from ragjudge.config._eval import EvalConfig

__all__ = [
    "COMMAND_LINE_SETTINGS",
    "RunControls",
    "control_default",
    "control_help",
    "controls_documentation",
    "flag_of",
    "setting_default",
    "setting_help",
    "settings_documentation",
]


class RunControls(BaseModel):
    """How one invocation runs an evaluation; not part of the evaluation, so not kept
    in its config."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    resume: str | None = None
    """Finish the interrupted run with this id ('latest', or a unique start or end of
    it): only missing results are computed."""
    retry_errors: bool = False
    """With resume: compute the run's errored results again."""
    progress: bool = True
    """Show a progress bar."""
    use_cache: bool = True
    """Reuse cached judge replies."""
    on_failure: Literal["warn", "raise", "ignore"] = "warn"
    """What a run that ends ``incomplete`` (more of a metric's results failed than
    ``max_error_rate`` allows) or ``failed`` (a metric has no value at all), or whose
    quality gate (``fail_under``, ``fail_over``; listed in ``result.gates``) failed, does:
    ``warn`` (a ``RunFailedWarning``), ``raise`` (``RunFailed``, holding the stored
    result) or ``ignore``; ``result.status`` and ``result.gates`` say it either way."""


COMMAND_LINE_SETTINGS: dict[str, str | None] = {
    "limit": "N",
    "sample": "N",
    "data_where": "FILTER",
    "seed": "S",
    "concurrency": "N",
    "processes": "N",
    "executor": "NAME",
    "trials": "N",
    "max_error_rate": "SHARE",
    "max_cost": "DOLLARS",
    "skip_invalid_rows": None,
    "incremental": None,
    "by": "KEY",
    "store": "FILE",
    "fail_under": "METRIC=VALUE",
    "fail_over": "METRIC=VALUE",
    "gate": "mean|ci",
}
"""The settings ``ragjudge run`` takes as options (``--max-error-rate``), each with its
metavar (None for a flag); the option's value replaces the config file's."""

_LITERAL = re.compile(r"``([^`]+)``")


_SHORTER_FLAGS = {"data_where": "--where"}
"""Settings whose option is not named after them (``data_where``: ``where`` is a method
of the config)."""


def flag_of(key: str) -> str:
    """The command-line option of setting ``key``: ``--max-error-rate``."""
    return _SHORTER_FLAGS.get(key) or "--" + key.replace("_", "-")


def setting_help(key: str) -> str:
    """The help text of setting ``key``: the first paragraph of its description, as
    plain text."""
    return _first_paragraph(EvalConfig.model_fields[key])


def control_help(key: str) -> str:
    """The help text of run control ``key`` (:class:`RunControls`)."""
    return _first_paragraph(RunControls.model_fields[key])


def setting_default(key: str) -> Any:
    """The value setting ``key`` has when nobody gives it (a fresh one for a mutable
    default)."""
    return EvalConfig.model_fields[key].get_default(call_default_factory=True)


def control_default(key: str) -> Any:
    """The value run control ``key`` has when nobody gives it."""
    return RunControls.model_fields[key].get_default(call_default_factory=True)


def settings_documentation() -> str:
    """Every setting with its description, for :func:`ragjudge.evaluate`'s docstring."""
    return _documentation(EvalConfig.model_fields)


def controls_documentation() -> str:
    """Every run control but the command line's ``use_cache``, with its description."""
    fields = {k: f for k, f in RunControls.model_fields.items() if k != "use_cache"}
    return _documentation(fields)


def _documentation(fields: Mapping[str, FieldInfo]) -> str:
    lines = []
    for key, field in fields.items():
        if field.description is None:  # base_dir: set from the config file's folder
            continue
        text = f"``{key}``: " + " ".join(field.description.split())
        lines.append(textwrap.fill(text, width=88, subsequent_indent="    "))
    return "\n".join(lines)


def _first_paragraph(field: FieldInfo) -> str:
    first = (field.description or "").split("\n\n", 1)[0]
    return " ".join(_plain(first).split())


def _plain(text: str) -> str:
    return _LITERAL.sub(r"\1", text)
