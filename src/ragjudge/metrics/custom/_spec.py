"""A custom judge as a config writes it: the options of ``custom_judge``, given inline
or in a YAML file (``spec: judges/tone.yaml``) whose keys are the same options.

Every problem of a file is a :class:`~ragjudge.errors.ConfigError` naming the file and
the key, with the closest known key for a misspelt one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ragjudge._util.suggest import did_you_mean
from ragjudge._util.textfiles import read_text_file
from ragjudge.config._yaml import BoundedLoader, YamlRefused
from ragjudge.errors import ConfigError, TextFileError
from ragjudge.metrics._base import MetricOptions
from ragjudge.metrics._options import ConfigPath
from ragjudge.metrics.custom._scale import Scale, ScaleSpec, parse_scale

__all__ = [
    "DEFAULT_CRITERIA",
    "INPUTS",
    "CustomJudgeOptions",
    "JudgeExample",
    "check_judge_fields",
    "read_judge_file",
]

InputName = Literal[
    "request", "response", "expected_response", "retrieved_context", "expected_facts", "guidelines"
]
INPUTS: tuple[str, ...] = InputName.__args__  # type: ignore[attr-defined]
"""What a custom judge may read: the request (with the conversation before it), the
response, the reference answer(s), the retrieved contexts, the expected facts and the
guidelines."""
_ALIASES = {"reference": "expected_response", "contexts": "retrieved_context"}

DEFAULT_CRITERIA = (
    "The response answers the request: it is correct, complete and clear, "
    "and says nothing the request did not ask for."
)


def _default_inputs() -> list[InputName]:
    return ["request", "response"]


class JudgeExample(BaseModel):
    """A worked example shown to the judge: inputs, the verdict they deserve and why."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    inputs: dict[str, str] = Field(min_length=1)
    """The example's inputs by name (``request``, ``response`` …)."""
    verdict: str | int | float | bool
    """The answer on the judge's scale."""
    reason: str | None = None
    """Why, shown before the verdict."""

    @field_validator("inputs", mode="before")
    @classmethod
    def _known_inputs(cls, value: Any) -> Any:
        if isinstance(value, dict):
            value = {_ALIASES.get(k, k): v for k, v in value.items()}
            unknown = [k for k in value if k not in INPUTS]
            if unknown:
                hint = did_you_mean(str(unknown[0]), INPUTS)
                raise ValueError(f"unknown input {unknown[0]!r}; {hint}inputs: {', '.join(INPUTS)}")
        return value


class CustomJudgeOptions(MetricOptions):
    """``custom_judge``'s options: the judge, inline or in the YAML file ``spec``."""

    spec: Annotated[str | None, ConfigPath()] = None
    """A YAML file holding the judge (its keys are these options), relative to the
    config; options given beside it replace the file's."""
    criteria: str = Field(default=DEFAULT_CRITERIA, min_length=1)
    """What the judge weighs, in your words (any language)."""
    steps: list[str] | None = Field(default=None, min_length=1)
    """The evaluation steps the judge follows; absent: none, or written by the judge
    with ``generate_steps``."""
    generate_steps: bool = False
    """Ask the judge once per run to write the evaluation steps from the criteria (as
    G-Eval does) and use them for every sample."""
    scale: ScaleSpec = "1-5"
    """A range of whole numbers (``1-5``, ``1-10``), ``yes/no``, or labels with their
    scores (``{excellent: 1.0, ok: 0.5, poor: 0}``)."""
    examples: list[JudgeExample] = Field(default_factory=list)
    """Worked examples: inputs, the verdict and an optional reason."""
    inputs: list[InputName] = Field(default_factory=_default_inputs, min_length=1)
    """What the judge is shown: ``request``, ``response``, ``expected_response``
    (``reference``), ``retrieved_context`` (``contexts``), ``expected_facts``,
    ``guidelines``. A row without one of them is refused (or skipped with
    ``skip_invalid_rows``)."""
    direction: Literal["higher", "lower"] = "higher"
    """Whether a higher score is better (``higher``) or worse (``lower``)."""
    threshold: float | None = None
    """A score that passes: each score's details say whether it is reached."""
    description: str = ""
    """What the score measures, in a few words (``ragjudge metrics``, reports)."""
    score: Literal["weighted", "argmax"] = "weighted"
    """Which value is stored: ``weighted`` — the verdicts weighted by their
    probabilities, when the endpoint returns token log probabilities (else the verdict
    written, with a note) — or ``argmax``, the verdict written."""
    top_logprobs: int = Field(default=10, ge=1, le=20)
    """How many most likely tokens the endpoint reports at each place, for the weighted
    score."""

    @field_validator("inputs", mode="before")
    @classmethod
    def _input_aliases(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [_ALIASES.get(v, v) if isinstance(v, str) else v for v in value]
        return value

    @field_validator("scale")
    @classmethod
    def _readable_scale(cls, value: ScaleSpec) -> ScaleSpec:
        parse_scale(value)
        return value

    @model_validator(mode="after")
    def _consistent(self) -> CustomJudgeOptions:
        scale = self.judge_scale()
        for number, example in enumerate(self.examples, 1):
            try:
                scale.answer_of(example.verdict)
            except ValueError as exc:
                raise ValueError(f"examples[{number}].verdict: {exc}") from None
        if self.steps is not None and self.generate_steps:
            raise ValueError("give steps or generate_steps, not both")
        return self

    def judge_scale(self) -> Scale:
        """The scale, read."""
        return parse_scale(self.scale)


def read_judge_file(path: Path) -> dict[str, Any]:
    """The options a judge file holds; :class:`ConfigError` naming the file and the key
    for anything that cannot be a judge."""
    shown = str(path)
    try:
        data = yaml.load(read_text_file(path, shown), Loader=BoundedLoader)  # safe loader
    except FileNotFoundError:
        raise ConfigError(f"{shown}: no such judge file") from None
    except IsADirectoryError:
        raise ConfigError(f"{shown}: is a folder, not a judge file") from None
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read it: {exc.strerror or exc}") from None
    except TextFileError as exc:
        raise ConfigError(str(exc)) from None
    except YamlRefused as exc:
        raise ConfigError(f"{shown}, line {exc.line}: {exc.reason}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{shown}: not valid YAML: {exc}") from None
    if not isinstance(data, dict) or not data:
        raise ConfigError(f"{shown}: expected a mapping of the judge's keys (criteria, scale …)")
    if "spec" in data:
        raise ConfigError(f"{shown}: spec: a judge file cannot name another judge file")
    check_judge_fields(data, shown)
    return data


def check_judge_fields(data: dict[str, Any], where: str) -> None:
    """:class:`ConfigError` naming ``where`` and the key when ``data`` are no judge."""
    try:
        CustomJudgeOptions.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{where}: {_problems(exc)}") from None


def _problems(exc: ValidationError) -> str:
    known = [k for k in CustomJudgeOptions.model_fields if k != "spec"]
    found = []
    for error in exc.errors():
        key = ".".join(str(p) for p in error["loc"]) or "(judge)"
        if error["type"] == "extra_forbidden":
            hint = did_you_mean(key, known)
            found.append(f"unknown key {key!r}; {hint}known keys: {', '.join(known)}")
        else:
            found.append(f"{key}: {error['msg'].removeprefix('Value error, ')}")
    return "; ".join(found)
