"""Running an openai-evals registry as it is: ``ragjudge run --openai-evals REGISTRY
EVAL`` (or ``openai_evals: {registry: ..., eval: ...}`` in a config).

The registry folder has openai-evals' layout: ``evals/*.yaml`` (eval entries with
``class`` and ``args``; an alias entry points at one with ``id``),
``modelgraded/*.yaml`` (classification specs) and ``data/`` (the ``samples_jsonl``
files). The eval's class maps to ragjudge metrics:

- ``evals.elsuite.basic.match:Match`` → ``match``;
- ``evals.elsuite.basic.includes:Includes`` → ``includes`` (``ignore_case`` → ``normalize``);
- ``evals.elsuite.basic.fuzzy_match:FuzzyMatch`` → ``fuzzy_match``;
- ``evals.elsuite.modelgraded.classify:ModelBasedClassify`` → ``classify`` with the
  ``modelgraded_spec`` (the registry's own, else ragjudge's built-in of that name),
  ``modelgraded_spec_args`` as args, ``eval_type`` (which appends the answer
  instruction, as openai-evals does; a spec's own ``eval_type`` only sets the parse
  rule) and ``multicomp_n``. A registry's spec file with a key given twice is read as
  openai-evals reads it: a warning names the file and key, and the later value is kept.

The samples' ``input`` is the request and ``ideal`` the reference; for a
model-graded eval the first ``input_outputs`` input is the request, a recorded first
completion is the response, and the other keys go to the metadata, where the spec's
slots find them. The system under test is the config's ``target``; the judge is the
config's ``judge``. See :data:`UNSUPPORTED` for what is not run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ragjudge._util.textfiles import read_text_file
from ragjudge.config import ConfigError
from ragjudge.config._yaml import YamlRefused
from ragjudge.errors import TextFileError
from ragjudge.metrics.classify import ClassifySpec, SpecError, find_spec
from ragjudge.metrics.classify._library import library, yaml_loader

__all__ = ["CLASSES", "UNSUPPORTED", "OpenAIEval", "load_eval"]

CLASSES = {
    "evals.elsuite.basic.match:Match": "match",
    "evals.elsuite.basic.includes:Includes": "includes",
    "evals.elsuite.basic.fuzzy_match:FuzzyMatch": "fuzzy_match",
    "evals.elsuite.modelgraded.classify:ModelBasedClassify": "classify",
}
"""The openai-evals classes ragjudge runs, and the metric each becomes."""

UNSUPPORTED = {
    "num_few_shot": "few-shot prompting of the system under test",
    "few_shot_jsonl": "few-shot prompting of the system under test",
    "metaeval": "meta-evaluation of the grader against labelled choices",
    "match_fn": "other choice-matching functions than 'starts_or_endswith'",
    "completion_fns": "several completion functions",
}
"""Eval arguments that change what is measured and are refused when set."""

_IGNORED = ("max_tokens", "sample_kwargs", "eval_kwargs", "temperature")
"""Sampling settings of openai-evals' models: the target's and the judge's own settings
(``target:``, ``judge:``) apply instead."""
_KNOWN = {
    "match": ("samples_jsonl",),
    "includes": ("samples_jsonl", "ignore_case"),
    "fuzzy_match": ("samples_jsonl",),
    "classify": (
        "samples_jsonl",
        "modelgraded_spec",
        "modelgraded_spec_args",
        "eval_type",
        "multicomp_n",
    ),
}


@dataclass(frozen=True)
class OpenAIEval:
    """One eval of a registry, translated: its metric specs and its rows."""

    name: str
    metrics: list[dict[str, Any]]
    rows: list[dict[str, Any]]


def load_eval(registry: Path, name: str, *, invalid: str = "error") -> OpenAIEval:
    """Translate eval ``name`` of the openai-evals ``registry`` folder; a problem is a
    :class:`~ragjudge.config._eval.ConfigError` naming the file and key. ``invalid`` is the
    classify metric's policy for replies that name no choice."""
    if not registry.is_dir():
        raise ConfigError(f"openai_evals.registry: {registry} is not a folder")
    entries = _entries(registry / "evals")
    where, entry = _resolve(entries, name, registry)
    cls = entry.get("class")
    kind = CLASSES.get(str(cls))
    if kind is None:
        known = ", ".join(CLASSES)
        raise ConfigError(f"{where}: class {cls!r} is not supported; supported: {known}")
    args = entry.get("args") or {}
    if not isinstance(args, dict):
        raise ConfigError(f"{where}: args: expected a mapping")
    _check_args(where, kind, args)
    samples = _samples(registry, where, args)
    if kind != "classify":
        options = {"normalize": bool(args.get("ignore_case"))} if kind == "includes" else {}
        return OpenAIEval(name, [{"metric": kind, **options}], samples)
    metric = _classify_metric(registry, where, args, invalid)
    return OpenAIEval(name, [metric], _classify_rows(registry, metric, samples))


def _entries(folder: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    if not folder.is_dir():
        raise ConfigError(f"openai_evals.registry: {folder.parent} has no evals/ folder")
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for path in sorted(folder.glob("*.y*ml")):
        data = _yaml(path)
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: expected a mapping of eval names to entries")
        for key, value in data.items():
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: {key}: expected a mapping")
            if key in found:
                raise ConfigError(f"{path}: {key}: also defined in {found[key][0]}")
            found[str(key)] = (str(path), value)
    return found


def _resolve(
    entries: dict[str, tuple[str, dict[str, Any]]], name: str, registry: Path
) -> tuple[str, dict[str, Any]]:
    seen = [name]
    while True:
        if name not in entries:
            known = ", ".join(sorted(k for k, (_, e) in entries.items() if "class" not in e))
            raise ConfigError(
                f"{registry}: no eval {name!r} in evals/*.yaml; evals: {known or 'none'}"
            )
        path, entry = entries[name]
        if "class" in entry:
            return f"{path}: {name}", entry
        target = entry.get("id")
        if not isinstance(target, str) or target in seen:
            raise ConfigError(f"{path}: {name}: needs 'class' or an 'id' naming another entry")
        seen.append(target)
        name = target


def _check_args(where: str, kind: str, args: dict[str, Any]) -> None:
    for key, value in args.items():
        if key in UNSUPPORTED and value not in (None, 0, False, "starts_or_endswith"):
            raise ConfigError(f"{where}: args.{key}: not supported ({UNSUPPORTED[key]})")
        if key not in _KNOWN[kind] and key not in _IGNORED and key not in UNSUPPORTED:
            known = ", ".join(_KNOWN[kind])
            raise ConfigError(f"{where}: args.{key}: unknown argument (known: {known})")
    if "samples_jsonl" not in args:
        raise ConfigError(f"{where}: args.samples_jsonl: missing")
    if kind == "classify" and "modelgraded_spec" not in args:
        raise ConfigError(f"{where}: args.modelgraded_spec: missing")
    if args.get("multicomp_n") == "from_models":
        raise ConfigError(f"{where}: args.multicomp_n: 'from_models' is not supported")


def _samples(registry: Path, where: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    path = registry / "data" / str(args["samples_jsonl"])
    try:
        text = read_text_file(path)
    except OSError:
        raise ConfigError(f"{where}: args.samples_jsonl: cannot read {path}") from None
    except TextFileError as exc:
        raise ConfigError(str(exc)) from None
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ConfigError(f"{path}, line {number}: not valid JSON: {exc}") from None
        if not isinstance(row, dict):
            raise ConfigError(f"{path}, line {number}: expected a JSON object")
        rows.append(row)
    if not rows:
        raise ConfigError(f"{path}: holds no samples")
    return rows


def _classify_metric(
    registry: Path, where: str, args: dict[str, Any], invalid: str
) -> dict[str, Any]:
    name = str(args["modelgraded_spec"])
    spec: str = name
    folder = registry / "modelgraded"
    try:
        own = library([folder], duplicate_keys="warn") if folder.is_dir() else {}
    except SpecError as exc:
        raise ConfigError(str(exc)) from None
    source = own.get(name)
    if source is not None and not source.source.startswith("built-in"):
        spec = f"{Path(source.source).resolve()}#{name}"
    metric: dict[str, Any] = {
        "metric": "classify",
        "spec": spec,
        "invalid": invalid,
        "duplicate_keys": "warn",
    }
    if args.get("eval_type") is not None:
        metric["eval_type"] = args["eval_type"]
    else:
        metric["answer_instruction"] = False  # a spec's own eval_type: the prompt says it
    if args.get("modelgraded_spec_args"):
        metric["args"] = args["modelgraded_spec_args"]
    if args.get("multicomp_n") not in (None, 1):
        metric["multicomp_n"] = args["multicomp_n"]
    try:
        _registry_spec(metric)
    except SpecError as exc:
        raise ConfigError(f"{where}: args.modelgraded_spec: {exc}") from None
    return metric


def _classify_rows(
    registry: Path, metric: dict[str, Any], samples: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    spec = _registry_spec(metric)
    first_input, first_output = next(iter(spec.input_outputs.items()))
    rows = []
    for sample in samples:
        row = dict(sample)
        if first_input != "input" and first_input in row:
            row["input"] = row.pop(first_input)
        if isinstance(row.get(first_output), str):
            row["response"] = row.pop(first_output)
        rows.append(row)
    return rows


def _registry_spec(metric: dict[str, Any]) -> ClassifySpec:
    return find_spec(metric["spec"], multicomp_n=metric.get("multicomp_n"), duplicate_keys="warn")


def _yaml(path: Path) -> Any:
    try:
        return yaml.load(read_text_file(path), Loader=yaml_loader("warn", str(path)))
    except TextFileError as exc:
        raise ConfigError(str(exc)) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except YamlRefused as exc:
        raise ConfigError(f"{path}, line {exc.line}: {exc.reason}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
