"""A model-graded classification spec: the data that makes a judge without Python.

A spec is a YAML mapping in the openai-evals "modelgraded" layout (see
:mod:`ragjudge.metrics.classify` for every field). :func:`build_spec` checks one
and returns a :class:`ClassifySpec`; every problem is a :class:`SpecError` naming the
file, the spec and the key.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ragjudge.errors import ConfigError
from ragjudge.metrics.replies import EVAL_TYPES
from ragjudge.text._normalise import contains_kana

__all__ = [
    "CHOICES_FROM_N",
    "ClassifySpec",
    "PromptMessage",
    "SpecError",
    "build_spec",
    "prompt_parts",
]

CHOICES_FROM_N = {
    "from_n": lambda i: str(i + 1),
    "from_n_abc": lambda i: string.ascii_lowercase[i % 26],
    "from_n_ABC": lambda i: string.ascii_uppercase[i % 26],
}
"""``choice_strings`` that name one choice per completion of a multi-completion sample."""

SAMPLE_TEMPLATE_SLOTS = frozenset({"i", "i_abc", "i_ABC", "output", "n"})
_SLOT = re.compile(r"^[A-Za-z_]\w*$")


class SpecError(ConfigError):
    """A spec that cannot be used; the message names the file, the spec and the key."""


class PromptMessage(BaseModel):
    """One message of a chat-form prompt."""

    model_config = ConfigDict(extra="forbid", strict=True)

    role: Literal["system", "user", "assistant", "developer"]
    content: str = Field(min_length=1)


class _RawSpec(BaseModel):
    """The fields of a spec file, as written (types checked, meaning not yet)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    prompt: str | list[PromptMessage]
    choice_strings: str | list[str]
    choice_scores: dict[str, float | int] | str | None = None
    scorings: dict[str, dict[str, float | int]] = Field(default_factory=dict)
    eval_type: str | None = None
    answer_instruction: bool | None = None
    input_outputs: dict[str, str] = Field(default_factory=lambda: {"input": "completion"})
    args: dict[str, str | dict[str, str]] = Field(default_factory=dict)
    completion_sample_templates: dict[str, str] = Field(default_factory=dict)
    output_template: str | None = None
    multicomp_n: int = Field(default=1, ge=1)
    language: Literal["auto", "en", "ja"] = "auto"
    description: str = ""
    # openai-evals fields it does not use itself
    key: str | None = None
    group: str | None = None

    @field_validator("choice_strings", mode="before")
    @classmethod
    def _choices_as_strings(cls, value: Any) -> Any:
        if isinstance(value, list):
            if any(isinstance(v, bool) for v in value):
                raise ValueError(
                    "YAML reads an unquoted Yes/No/on/off as true/false: quote the choices "
                    '(["Yes", "No"])'
                )
            return [str(v) if isinstance(v, int) else v for v in value]
        return value

    @field_validator("choice_scores", mode="before")
    @classmethod
    def _scores_keys_as_strings(cls, value: Any) -> Any:
        # YAML reads choices such as 1 or yes as numbers or booleans
        return _keys_as_strings(value)

    @field_validator("scorings", mode="before")
    @classmethod
    def _scorings_keys_as_strings(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: _keys_as_strings(v) for k, v in value.items()}
        return value


def _keys_as_strings(value: Any) -> Any:
    if isinstance(value, dict):
        return {_yaml_key(k): v for k, v in value.items()}
    return value


def _yaml_key(key: Any) -> Any:
    # YAML 1.1 reads an unquoted Yes/No/on/off key as a boolean (matched in _bool_key)
    return str(key) if isinstance(key, bool | int | float) else key


_BOOL_WORDS = {"True": ("yes", "true", "on"), "False": ("no", "false", "off")}


def _bool_key(key: str, choices: list[str]) -> str:
    """The choice an unquoted YAML ``Yes:``/``No:`` key (read as True/False) stands for."""
    words = _BOOL_WORDS.get(key)
    if words is None:
        return key
    matching = [c for c in choices if c.lower() in words]
    return matching[0] if len(matching) == 1 else key


@dataclass(frozen=True)
class ClassifySpec:
    """A checked spec. ``eval_type`` is the parse rule (``cot_classify`` unless the spec
    says otherwise); ``gives_eval_type`` whether the spec named it (then our answer
    instruction is appended, unless ``answer_instruction`` says otherwise)."""

    name: str
    source: str
    prompt: str | tuple[PromptMessage, ...]
    choice_strings: tuple[str, ...]
    choice_scores: dict[str, float] | None
    scorings: dict[str, dict[str, float]]
    eval_type: str
    gives_eval_type: bool
    answer_instruction: bool | None
    input_outputs: dict[str, str]
    args: dict[str, str | dict[str, str]]
    completion_sample_templates: dict[str, str]
    multicomp_n: int
    language: Literal["en", "ja"]
    description: str = ""
    slots: tuple[str, ...] = field(default=())
    """Every ``{key}`` of the prompt, in order of first use."""

    @property
    def where(self) -> str:
        """``FILE: spec NAME`` for messages."""
        return f"{self.source}: spec {self.name!r}"

    def prompt_texts(self) -> list[str]:
        """The prompt's text(s): one string, or each message's content."""
        if isinstance(self.prompt, str):
            return [self.prompt]
        return [m.content for m in self.prompt]


def build_spec(raw: Any, *, name: str, source: str, multicomp_n: int | None = None) -> ClassifySpec:
    """Check ``raw`` (a mapping read from ``source``) and build the spec ``name``.
    ``multicomp_n`` (completions per sample) overrides the spec's own."""
    where = f"{source}: spec {name!r}"
    if not isinstance(raw, Mapping):
        raise SpecError(f"{where}: expected a mapping of spec fields, not {type(raw).__name__}")
    try:
        spec = _RawSpec.model_validate(dict(raw))
    except ValidationError as exc:
        raise SpecError(_describe(where, exc)) from None
    n = multicomp_n or spec.multicomp_n
    choices = _choices(where, spec.choice_strings, n)
    eval_type, language = _eval_type(where, spec.eval_type, spec.language)
    prompt: str | tuple[PromptMessage, ...] = (
        spec.prompt if isinstance(spec.prompt, str) else tuple(spec.prompt)
    )
    texts = [prompt] if isinstance(prompt, str) else [m.content for m in prompt]
    slots = _slots(where, texts)
    return ClassifySpec(
        name=name,
        source=source,
        prompt=prompt,
        choice_strings=tuple(choices),
        choice_scores=_scores(where, "choice_scores", spec.choice_scores, choices),
        scorings={
            key: _mapping_scores(where, f"scorings.{key}", value, choices)
            for key, value in spec.scorings.items()
        },
        eval_type=eval_type,
        gives_eval_type=spec.eval_type is not None,
        answer_instruction=spec.answer_instruction,
        input_outputs=_input_outputs(where, spec.input_outputs),
        args=_args(where, spec.args),
        completion_sample_templates=_sample_templates(where, spec),
        multicomp_n=n,
        language=language if language != "auto" else _detect_language(texts),
        description=spec.description.strip(),
        slots=tuple(slots),
    )


def resolve_scores(
    spec: ClassifySpec, chosen: Mapping[str, float] | str | None, *, where: str
) -> dict[str, float] | None:
    """The choice scores in force: ``chosen`` (a mapping, ``from_strings`` or the name of
    one of the spec's ``scorings``) or else the spec's own."""
    if chosen is None:
        return spec.choice_scores
    if isinstance(chosen, str) and chosen in spec.scorings:
        return spec.scorings[chosen]
    if isinstance(chosen, str) and chosen != "from_strings":
        known = ", ".join(["from_strings", *spec.scorings])
        raise SpecError(f"{where}: choice_scores {chosen!r} is unknown; known: {known}")
    return _scores(where, "choice_scores", chosen, list(spec.choice_strings))


def prompt_parts(text: str) -> list[tuple[str, str | None]]:
    """``text`` split into (literal text, slot name or None) pairs, ``str.format``
    style: ``{key}`` is a slot, ``{{``/``}}`` are braces."""
    return [(literal, name) for literal, name, _, _ in string.Formatter().parse(text)]


def _describe(where: str, exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        key = ".".join(str(p) for p in error["loc"]) or "(spec)"
        if error["type"] == "extra_forbidden":
            known = ", ".join(f for f in _RawSpec.model_fields if f not in ("key", "group"))
            problems.append(f"{key}: unknown field (known fields: {known})")
        elif error["type"] == "missing":
            problems.append(f"{key}: missing")
        else:
            problems.append(f"{key}: {error['msg'].removeprefix('Value error, ')}")
    return f"{where}: " + "; ".join(problems)


def _choices(where: str, given: str | list[str], n: int) -> list[str]:
    if isinstance(given, str) and given in CHOICES_FROM_N:
        if n < 2:
            raise SpecError(f"{where}: choice_strings: {given!r} needs multicomp_n of 2 or more")
        return [CHOICES_FROM_N[given](i) for i in range(n)]
    choices = list(given)
    if not choices or any(not c.strip() for c in choices):
        raise SpecError(f"{where}: choice_strings: give non-empty choices")
    repeated = sorted({c for c in choices if choices.count(c) > 1})
    if repeated:
        raise SpecError(f"{where}: choice_strings: {', '.join(repeated)} given twice")
    return choices


def _eval_type(
    where: str, given: str | None, language: Literal["auto", "en", "ja"]
) -> tuple[str, Literal["auto", "en", "ja"]]:
    if given is None:
        return "cot_classify", language
    if given == "cot_classify_jp":  # openai-evals' Japanese variant
        return "cot_classify", "ja" if language == "auto" else language
    if given not in EVAL_TYPES:
        raise SpecError(f"{where}: eval_type: {given!r} is not one of {', '.join(EVAL_TYPES)}")
    return given, language


def _scores(
    where: str, key: str, given: Mapping[str, float | int] | str | None, choices: list[str]
) -> dict[str, float] | None:
    if given is None:
        return None
    if isinstance(given, str):
        if given != "from_strings":
            raise SpecError(f"{where}: {key}: give a mapping or 'from_strings', not {given!r}")
        try:
            numbers = {c: float(c) for c in choices}
        except ValueError:
            raise SpecError(
                f"{where}: {key}: from_strings needs numeric choices, not {choices}"
            ) from None
        return {c: _finite(where, f"{key}.{c}", number) for c, number in numbers.items()}
    return _mapping_scores(where, key, given, choices)


def _mapping_scores(
    where: str, key: str, given: Mapping[str, float | int], choices: list[str]
) -> dict[str, float]:
    given = {_bool_key(c, choices): score for c, score in given.items()}
    unknown = [c for c in given if c not in choices]
    if unknown:
        raise SpecError(f"{where}: {key}.{unknown[0]}: not one of the choice_strings {choices}")
    missing = [c for c in choices if c not in given]
    if missing:
        raise SpecError(f"{where}: {key}: no score for the choice(s) {', '.join(missing)}")
    return {c: _finite(where, f"{key}.{c}", given[c]) for c in choices}


def _finite(where: str, key: str, score: float | int) -> float:
    """A choice score as a float; NaN, infinity and numbers beyond a float's range are
    refused, since a score must be a finite number."""
    try:
        number = float(score)
    except OverflowError:  # a whole number beyond a float's range
        raise SpecError(f"{where}: {key}: not a finite number (too large)") from None
    if not math.isfinite(number):
        raise SpecError(f"{where}: {key}: not a finite number ({number!r})")
    return number


def _input_outputs(where: str, given: dict[str, str]) -> dict[str, str]:
    if not given:
        raise SpecError(f"{where}: input_outputs: give at least one 'input: completion' pair")
    for key, value in given.items():
        for name in (key, value):
            if not _SLOT.match(name):
                raise SpecError(f"{where}: input_outputs.{key}: {name!r} is not a slot name")
    if len(set(given.values())) != len(given):
        raise SpecError(f"{where}: input_outputs: two inputs map to the same completion")
    return dict(given)


def _args(where: str, given: dict[str, str | dict[str, str]]) -> dict[str, str | dict[str, str]]:
    for slot, value in given.items():
        if not _SLOT.match(slot):
            raise SpecError(f"{where}: args.{slot}: not a slot name")
        if isinstance(value, dict) and not value:
            raise SpecError(f"{where}: args.{slot}: give at least one named value")
    return dict(given)


def _sample_templates(where: str, spec: _RawSpec) -> dict[str, str]:
    templates = dict(spec.completion_sample_templates)
    if spec.output_template is not None:  # newer openai-evals: one template for every output
        templates = {out: spec.output_template for out in spec.input_outputs.values()}
    for out, template in templates.items():
        if out not in spec.input_outputs.values():
            raise SpecError(
                f"{where}: completion_sample_templates.{out}: not a completion of input_outputs"
            )
        try:
            used = {name for _, name in prompt_parts(template) if name is not None}
        except ValueError as exc:
            raise SpecError(f"{where}: completion_sample_templates.{out}: {exc}") from None
        if "output" not in used or not used <= SAMPLE_TEMPLATE_SLOTS:
            raise SpecError(
                f"{where}: completion_sample_templates.{out}: use {{output}} and only "
                f"{', '.join('{' + s + '}' for s in sorted(SAMPLE_TEMPLATE_SLOTS))}"
            )
    return templates


def _slots(where: str, texts: list[str]) -> list[str]:
    slots: list[str] = []
    for text in texts:
        try:
            parsed = list(string.Formatter().parse(text))
        except ValueError as exc:
            raise SpecError(f"{where}: prompt: {exc} (write {{{{ and }}}} for braces)") from None
        for _, name, format_spec, conversion in parsed:
            if name is None:
                continue
            if not _SLOT.match(name) or format_spec or conversion:
                shown = "{" + name + ("!" + conversion if conversion else "")
                shown += (":" + format_spec if format_spec else "") + "}"
                raise SpecError(
                    f"{where}: prompt: {shown} is not a slot; write {{key}} with a plain name "
                    "(and {{ or }} for a brace)"
                )
            if name not in slots:
                slots.append(name)
    if not slots:
        raise SpecError(f"{where}: prompt: it has no {{key}} slot, so it shows the judge no data")
    return slots


def _detect_language(texts: list[str]) -> Literal["en", "ja"]:
    return "ja" if any(contains_kana(t) for t in texts) else "en"
