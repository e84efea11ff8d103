"""Named sets of metrics for the common cases: ``metrics: [preset: rag-with-reference]``.

A preset is read when the config is: its entry in ``metrics`` is replaced by the
preset's metric entries, in place. A metric the user lists by the same name elsewhere
in ``metrics`` wins over the preset's entry, so a preset's metric can be given other
options without leaving the preset.

The table holds metric names only (the config layer does not import the metrics);
``tests/config/test_presets.py`` checks every name against the metric registry.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PRESETS", "Preset", "expand_presets", "preset_named"]

PRESET_KEY = "preset"
"""The key of a metrics entry that names a preset."""


@dataclass(frozen=True)
class PresetMetric:
    """One metric of a preset and why it is there."""

    entry: str | dict[str, Any]
    """The entry as it would be written under ``metrics:``."""
    why: str

    @property
    def name(self) -> str:
        """The name the metric's scores are stored under."""
        return entry_name(self.entry) or ""


@dataclass(frozen=True)
class Preset:
    """A named set of metrics for one case."""

    name: str
    case: str
    """When to use it, in the user's words."""
    needs: str
    """The fields every row must hold (and any setting the preset needs)."""
    metrics: tuple[PresetMetric, ...] = field(default_factory=tuple)


PRESETS: tuple[Preset, ...] = (
    Preset(
        name="rag-with-reference",
        case="a RAG system whose retrieved contexts are logged, with reference answers",
        needs="request, response, retrieved_context, expected_response",
        metrics=(
            PresetMetric(
                {"metric": "answer_accuracy", "contexts": "retrieved"},
                "is the answer right? A 0-5 judgement against the reference answer, shown "
                "the contexts the system answered from",
            ),
            PresetMetric(
                "faithfulness",
                "is every statement of the answer supported by the retrieved contexts "
                "(no hallucination)?",
            ),
            PresetMetric(
                "context_recall",
                "did retrieval find what the reference answer needs?",
            ),
            PresetMetric(
                "context_precision",
                "are the useful chunks ranked first?",
            ),
        ),
    ),
    Preset(
        name="rag-without-reference",
        case="a RAG system whose retrieved contexts are logged, without reference answers",
        needs="request, response, retrieved_context",
        metrics=(
            PresetMetric(
                "relevance_to_query",
                "does the answer address the question at all?",
            ),
            PresetMetric(
                "faithfulness",
                "is every statement of the answer supported by the retrieved contexts?",
            ),
            PresetMetric(
                "context_utilization",
                "were the chunks the answer used ranked first?",
            ),
        ),
    ),
    Preset(
        name="answer-with-reference",
        case="answers with reference answers, retrieval not logged",
        needs="request, response, expected_response",
        metrics=(
            PresetMetric(
                {"metric": "answer_accuracy", "contexts": "none"},
                "is the answer right? A 0-5 judgement against the reference answer",
            ),
            PresetMetric(
                "token_f1",
                "a free word-overlap check beside the judge: a large gap between the two "
                "points at samples worth reading",
            ),
        ),
    ),
    Preset(
        name="answer-without-reference",
        case="answers with neither reference answers nor logged retrieval",
        needs="request, response",
        metrics=(
            PresetMetric(
                "relevance_to_query",
                "does the answer address the question?",
            ),
            PresetMetric(
                "likert",
                "a 1-5 rating of helpfulness, accuracy, clarity and safety",
            ),
            PresetMetric(
                "safety",
                "is the answer free of harmful content?",
            ),
        ),
    ),
    Preset(
        name="retrieval",
        case="only the retrieval step: logged contexts judged against reference answers",
        needs="request, retrieved_context, expected_response (or expected_facts)",
        metrics=(
            PresetMetric(
                "context_recall",
                "did retrieval find what the reference answer needs?",
            ),
            PresetMetric(
                "context_precision",
                "are the useful chunks ranked first?",
            ),
        ),
    ),
    Preset(
        name="multi-turn",
        case="conversations: how much of the reference answer a user gets by asking "
        "follow-up questions, and how the last answer reads",
        needs="request, expected_response, a target, and a knowledge_base or retriever",
        metrics=(
            PresetMetric(
                "multiturn",
                "a simulated user asks follow-up questions; scores how much of the "
                "reference it gets and in how many turns",
            ),
            PresetMetric(
                "relevance_to_query",
                "does the last answer address the request, the whole conversation shown?",
            ),
            PresetMetric(
                "likert",
                "a 1-5 rating of the last assistant answer in its conversation",
            ),
        ),
    ),
    Preset(
        name="lexical",
        case="a first look at no cost: word-overlap metrics, no judge",
        needs="response, expected_response",
        metrics=(
            PresetMetric("exact_match", "the answer equals a reference, after normalising"),
            PresetMetric("token_f1", "word-overlap F1 with the best reference"),
            PresetMetric("rouge_l", "longest common word sequence with the best reference"),
            PresetMetric("word_recall", "share of the reference's words the answer holds"),
        ),
    ),
)


def preset_named(name: str) -> Preset:
    """The preset called ``name``; a :class:`ValueError` listing the presets (with the
    closest name) when there is none."""
    for preset in PRESETS:
        if preset.name == name:
            return preset
    names = [p.name for p in PRESETS]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ValueError(f"unknown preset {name!r}; {hint}presets: {', '.join(names)}")


def entry_name(entry: Any) -> str | None:
    """The name a metrics entry stores its scores under (None for a preset entry or an
    entry of another shape)."""
    if isinstance(entry, str):
        return entry
    if isinstance(entry, dict) and PRESET_KEY not in entry:
        name = entry.get("name", entry.get("metric"))
        return name if isinstance(name, str) else None
    return None


def expand_presets(entries: list[Any]) -> list[Any]:
    """``entries`` with every ``{preset: NAME}`` replaced by its metrics in place; a
    preset's metric that an entry of the user's own names too is left out (the user's
    entry wins), and one that two presets share is kept once."""
    own = {name for e in entries if (name := entry_name(e)) is not None}
    expanded: list[Any] = []
    taken: set[str] = set()
    for index, entry in enumerate(entries):
        if not (isinstance(entry, dict) and PRESET_KEY in entry):
            expanded.append(entry)
            continue
        for metric in _preset_of_entry(entry, index).metrics:
            if metric.name not in own and metric.name not in taken:
                expanded.append(
                    metric.entry if isinstance(metric.entry, str) else dict(metric.entry)
                )
                taken.add(metric.name)
    return expanded


def _preset_of_entry(entry: dict[str, Any], index: int) -> Preset:
    stray = sorted(str(k) for k in entry if k != PRESET_KEY)
    if stray:
        raise ValueError(
            f"entry {index + 1}: a preset entry takes no other keys ({', '.join(stray)}); "
            "list the metric with its options as an entry of its own to change it"
        )
    name = entry[PRESET_KEY]
    if not isinstance(name, str):
        raise ValueError(f"entry {index + 1}: preset: give a preset's name")
    return preset_named(name)
