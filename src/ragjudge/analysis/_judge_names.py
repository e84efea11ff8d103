"""Which scores of a run belong to which judge and metric, read from their stored
meanings alone — for tables that group by judge without loading the statistics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ragjudge.schema import ScoreMeaning

__all__ = ["expand_to_judges", "grouped_names", "judge_labels", "run_has_judges"]


def run_has_judges(meanings: Mapping[str, ScoreMeaning]) -> bool:
    """Whether any score of a run names its judge or combines judges."""
    return any(m.judge is not None or m.ensemble for m in meanings.values())


def judge_labels(
    meanings: Mapping[str, ScoreMeaning], names: Sequence[str]
) -> dict[str, tuple[str, str]]:
    """Per score name that has a judge or combines judges: the metric it belongs to
    and its judge (``ensemble`` for a score combining judges), for tables' columns."""
    labels = {}
    for name in names:
        meaning = meanings.get(name)
        if meaning is not None and (meaning.judge is not None or meaning.ensemble):
            labels[name] = (
                meaning.metric or name,
                "ensemble" if meaning.ensemble else str(meaning.judge),
            )
    return labels


def grouped_names(names: Sequence[str], meanings: Mapping[str, ScoreMeaning]) -> list[str]:
    """``names`` grouped by the metric they judge, groups in order of first appearance,
    each group's judges in the given order and its ensemble last."""
    groups: dict[str, list[str]] = {}
    for name in names:
        meaning = meanings.get(name)
        groups.setdefault((meaning.metric if meaning else None) or name, []).append(name)
    return [
        name
        for members in groups.values()
        for name in sorted(members, key=lambda n: bool(n in meanings and meanings[n].ensemble))
    ]


def expand_to_judges(
    wanted: Sequence[str] | None, meanings: Mapping[str, ScoreMeaning]
) -> list[str] | None:
    """Score names asked for, where a metric's name (``supported`` of
    ``supported@mini`` …) stands for every judge's score of that metric and its
    ensemble score, if the run has one."""
    if wanted is None:
        return None
    found: list[str] = []
    for name in wanted:
        judged = [n for n, m in meanings.items() if m.metric == name and n != name]
        found += [*judged, name] if name in meanings else (judged or [name])
    return list(dict.fromkeys(found))
