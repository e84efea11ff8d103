"""Human labels for meta-evaluation: reading a label of any kind, telling its kind, and
combining several annotators into one label per sample.

A sample's label sits in its metadata, under one key or spread over several annotator
keys (``--human correct=ann1,ann2,ann3``). One key's value may be a number, a numeric
string, a boolean, a yes/no word (``yes``/``no``, ``true``/``false``, ``pass``/``fail``,
``correct``/``incorrect``, ``はい``/``いいえ``, ``正解``/``不正解`` …; case, width and a
final full stop do not matter), a list of these (one per annotator), a dict annotator →
value (MTRAG's ``{"ann1": "4", "ann2": "3"}``; an annotation record ``{"value": "4", …}``
is read through its ``value``), or the JSON text of a list or dict (the form a score
frame keeps dict metadata in). Booleans and yes/no words read as 1 and 0.

The **kind** of a label is ``binary`` (every value 0 or 1, or any value a boolean or a
yes/no word), ``ordinal`` (whole numbers on at most :data:`MAX_ORDINAL_LEVELS` levels)
or ``numeric`` (anything else); ``auto`` detects it from all annotators' values.

**Combining annotators** (``mean``, ``median`` or ``majority``): ``majority`` takes the
most frequent value and gives no label when two values tie for most frequent (the
sample is left out and counted). For a binary label the combined value is the share of
"yes" (mean), and the sample counts as *acceptable* when it is above 0.5, not
acceptable below; exactly 0.5 (annotators split evenly) is a tie left out of the
binary figures.

**Text labels with a named positive class** (``--positive "Fully attributable"``): every
text annotation reads as yes when it is that text and no otherwise, so labels such as
"Fully attributable" / "Partially attributable" / "Not attributable" become a binary
label. **Values that mean "could not judge"** (``--exclude-human 0``) are dropped from a
sample's annotations before they are combined; a sample left without any has no label,
and is counted apart from samples that were never labelled.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from ragjudge.errors import AnalysisError, ConfigError
from ragjudge.text._normalise import normalize

__all__ = [
    "MAX_ORDINAL_LEVELS",
    "Annotations",
    "Combine",
    "HumanLabel",
    "KindOption",
    "LabelColumn",
    "LabelKind",
    "check_kind",
    "combine_values",
    "detect_kind",
    "label_column",
    "parse_human",
    "positive_class",
    "read_annotations",
]

Combine = Literal["mean", "median", "majority"]
"""How several annotators' values become one label per sample."""
LabelKind = Literal["numeric", "ordinal", "binary"]
KindOption = Literal["auto", "numeric", "ordinal", "binary"]
COMBINE_RULES: tuple[str, ...] = ("mean", "median", "majority")
KIND_OPTIONS: tuple[str, ...] = ("auto", "numeric", "ordinal", "binary")

MAX_ORDINAL_LEVELS = 11
"""Whole-number labels on more levels than this are numeric, not ordinal."""

_YES = frozenset(
    {"yes", "y", "true", "pass", "passed", "correct", "acceptable", "はい", "正解", "正しい", "可"}
)
_NO = frozenset(
    {
        "no",
        "n",
        "false",
        "fail",
        "failed",
        "incorrect",
        "unacceptable",
        "いいえ",
        "不正解",
        "誤り",
        "不可",
    }
)


@dataclass(frozen=True)
class HumanLabel:
    """A human label: its name and the metadata key(s) holding its annotators' values."""

    name: str
    keys: tuple[str, ...]


def parse_human(spec: str | HumanLabel) -> HumanLabel:
    """``KEY`` (the label of that metadata key) or ``NAME=KEY1,KEY2,…`` (one label
    whose annotators are the values under several keys)."""
    if isinstance(spec, HumanLabel):
        return spec
    name, sep, rest = spec.partition("=")
    name = name.strip()
    if not sep:
        if not name:
            raise ConfigError("a human label needs a metadata key")
        return HumanLabel(name, (name,))
    keys = tuple(k.strip() for k in rest.split(",") if k.strip())
    if not name or not keys:
        raise ConfigError(f"human label {spec!r}: write KEY or NAME=KEY1,KEY2")
    return HumanLabel(name, keys)


@dataclass(frozen=True)
class Annotations:
    """Every annotator's value of one sample's label, and whether any of them was a
    boolean or a yes/no word."""

    values: tuple[float, ...]
    boolean: bool = False

    def __add__(self, other: Annotations) -> Annotations:
        return Annotations(self.values + other.values, self.boolean or other.boolean)


_NONE = Annotations(())


def read_annotations(value: Any) -> Annotations:
    """Every annotator's value inside ``value`` (see the module docstring).

    None, NaN, ``""`` and empty lists or dicts hold no value; anything else that is not
    a number, a boolean or a yes/no word raises ``ValueError``.
    """
    if value is None:
        return _NONE
    if isinstance(value, bool | np.bool_):
        return Annotations((float(bool(value)),), boolean=True)
    if isinstance(value, int | float | np.integer | np.floating):
        return _number(float(value), value)
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, Mapping):
        if "value" in value and not isinstance(value["value"], Mapping):
            return read_annotations(value["value"])
        return _joined(read_annotations(item) for item in value.values())
    if isinstance(value, list | tuple | np.ndarray):
        return _joined(read_annotations(item) for item in value)
    raise AnalysisError(f"not a label (number, boolean or yes/no): {value!r}")


def _joined(parts: Iterable[Annotations]) -> Annotations:
    total = _NONE
    for part in parts:
        total = total + part
    return total


def _text(text: str) -> Annotations:
    stripped = text.strip()
    if not stripped:
        return _NONE
    if stripped[0] in "[{":
        try:
            return read_annotations(json.loads(stripped))
        except json.JSONDecodeError as exc:
            raise AnalysisError(f"not a label (number, boolean or yes/no): {text!r}") from exc
    word = normalize(stripped).rstrip(".。!！")
    if word in _YES:
        return Annotations((1.0,), boolean=True)
    if word in _NO:
        return Annotations((0.0,), boolean=True)
    try:
        number = float(stripped)
    except ValueError as exc:
        raise AnalysisError(f"not a label (number, boolean or yes/no): {text!r}") from exc
    return _number(number, text)


def _number(number: float, original: Any) -> Annotations:
    if math.isnan(number):
        return _NONE
    if math.isinf(number):
        raise AnalysisError(f"not a finite label: {original!r}")
    return Annotations((number,))


def combine_values(values: Sequence[float], how: Combine) -> float | None:
    """One label from several annotators' values; None when there is none, or when
    ``majority`` finds two values tied for most frequent."""
    if how not in COMBINE_RULES:
        raise ConfigError(f"combine must be one of {', '.join(COMBINE_RULES)}, got {how!r}")
    if not values:
        return None
    if how == "mean":
        return statistics.fmean(values)
    if how == "median":
        return float(statistics.median(values))
    ranked = Counter(values).most_common(2)
    if len(ranked) == 2 and ranked[0][1] == ranked[1][1]:
        return None
    return float(ranked[0][0])


def detect_kind(annotations: Iterable[Annotations]) -> LabelKind:
    """The kind of a label from every sample's annotations (see the module docstring)."""
    values: set[float] = set()
    boolean = False
    for found in annotations:
        values.update(found.values)
        boolean = boolean or found.boolean
    if boolean or (values and values <= {0.0, 1.0}):
        return "binary"
    if values and all(v.is_integer() for v in values) and len(values) <= MAX_ORDINAL_LEVELS:
        return "ordinal"
    return "numeric"


def check_kind(kind: LabelKind, annotations: Iterable[Annotations]) -> str | None:
    """Why the values do not fit ``kind`` (None when they do): a binary label holds only
    0 and 1, an ordinal one only whole numbers; a numeric one holds no yes/no word."""
    values: set[float] = set()
    boolean = False
    for found in annotations:
        values.update(found.values)
        boolean = boolean or found.boolean
    if kind == "binary":
        odd = sorted(values - {0.0, 1.0})
        return f"a binary label holds only 0/1 or yes/no, not {odd[0]:g}" if odd else None
    if boolean:
        return f"a yes/no value in a label read as {kind}"
    if kind == "ordinal":
        odd = sorted(v for v in values if not v.is_integer())
        return f"an ordinal label holds whole numbers, not {odd[0]:g}" if odd else None
    return None


# --------------------------------------------------------------------------- label columns


@dataclass(frozen=True)
class LabelColumn:
    """One human label over a set of samples: each sample's annotator values, the
    combined label (NaN where a sample has none, or ``majority`` found a tie), the
    label's kind and the levels its annotators used."""

    name: str
    kind: LabelKind
    annotations: dict[Any, tuple[float, ...]]
    combined: pd.Series[float]
    levels: tuple[float, ...]
    no_majority: int = 0
    left_out: frozenset[Any] = frozenset()
    """The samples whose every annotation was a left-out value ("could not judge")."""

    def binary_target(self, acceptable: float | None) -> pd.Series[float] | None:
        """1 for acceptable, 0 for not, NaN for neither: a binary label above / below
        0.5 (an even split is neither); another kind at or above ``acceptable``. None
        for a non-binary label without ``acceptable``."""
        values = self.combined
        if self.kind == "binary":
            target = pd.Series(np.nan, index=values.index, dtype="float64")
            target[values > 0.5] = 1.0
            target[values < 0.5] = 0.0
            return target
        if acceptable is None:
            return None
        return (values >= acceptable).astype("float64").where(values.notna())

    def ordinal_target(self) -> pd.Series[float] | None:
        """The combined label rounded half up to a whole level (an ordinal label only)."""
        if self.kind != "ordinal":
            return None
        return pd.Series(np.floor(self.combined + 0.5), index=self.combined.index, dtype="float64")


def positive_class(value: Any, positive: str) -> Any:
    """``value`` with every text annotation read against the named positive class:
    ``True`` when it is that text (case, width and surrounding space do not matter),
    ``False`` for any other text. Lists, dicts of annotators, annotation records and
    their JSON text are read through; numbers, booleans and empty values are kept."""
    if isinstance(value, str):
        stripped = value.strip()
        if not stripped:
            return value
        if stripped[0] in "[{":
            try:
                return positive_class(json.loads(stripped), positive)
            except json.JSONDecodeError:
                pass
        return normalize(stripped) == normalize(positive.strip())
    if isinstance(value, Mapping):
        return {k: positive_class(v, positive) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [positive_class(v, positive) for v in value]
    return value


def label_column(
    raw: pd.DataFrame,
    name: str,
    *,
    combine: Combine,
    kind: KindOption = "auto",
    positive: str | None = None,
    leave_out: Iterable[float] = (),
) -> LabelColumn:
    """The label ``name`` from ``raw``: one row per sample (index: sample id), one
    column per metadata key holding its annotators' values. With ``positive``, text
    annotations are yes (that text) or no (any other, :func:`positive_class`).
    Annotations equal to a ``leave_out`` value (a "could not judge" 0) are dropped
    before the annotators are combined; a sample left with none has no label and is
    listed in ``left_out``. Raises :class:`~ragjudge.errors.AnalysisError` (a
    ``ValueError``) naming the sample and key whose value is not a label, or when the
    values do not fit ``kind``."""
    if kind not in KIND_OPTIONS:
        raise ConfigError(f"kind must be one of {', '.join(KIND_OPTIONS)}, got {kind!r}")
    found = _read_column(raw, positive)
    dropped = frozenset(float(v) for v in leave_out)
    left_out: frozenset[Any] = frozenset()
    if dropped:
        kept = {s: _without(a, dropped) for s, a in found.items()}
        left_out = frozenset(s for s, a in kept.items() if found[s].values and not a.values)
        found = kept
    resolved: LabelKind = detect_kind(found.values()) if kind == "auto" else kind
    problem = check_kind(resolved, found.values())
    if problem is not None:
        raise AnalysisError(f"label {name!r}: {problem}")
    combined = {s: combine_values(a.values, combine) for s, a in found.items()}
    no_majority = sum(1 for s, v in combined.items() if v is None and found[s].values)
    levels = sorted({v for a in found.values() for v in a.values})
    return LabelColumn(
        name=name,
        kind=resolved,
        annotations={s: a.values for s, a in found.items()},
        combined=pd.Series(
            {s: math.nan if v is None else v for s, v in combined.items()},
            index=raw.index,
            dtype="float64",
        ),
        levels=tuple(levels),
        no_majority=no_majority,
        left_out=left_out,
    )


def _read_column(raw: pd.DataFrame, positive: str | None) -> dict[Any, Annotations]:
    """Every sample's annotations over all of its keys."""
    found: dict[Any, Annotations] = {}
    for sample_id, parts in raw.iterrows():
        found[sample_id] = _NONE
        for key, part in parts.items():
            value = part if positive is None else positive_class(part, positive)
            try:
                found[sample_id] = found[sample_id] + read_annotations(value)
            except ValueError as exc:
                raise AnalysisError(f"sample {sample_id!r}, metadata {key!r}: {exc}") from None
    return found


def _without(annotations: Annotations, dropped: frozenset[float]) -> Annotations:
    return Annotations(
        tuple(v for v in annotations.values if v not in dropped), annotations.boolean
    )
