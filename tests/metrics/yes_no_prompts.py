"""The prompts every yes/no judged metric sends for the marked rows of
``evaluated.Marked``, sorted: what ``test_yes_no_examples`` holds against the stored
snapshot ``yes_no_prompts.json`` (written by running this module from the tests
folder: ``python yes_no_prompts.py``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from evaluated import Marked, output_of, prompts_of
from ragjudge.metrics import available_metrics, create_metric, metric_class
from ragjudge.metrics._yesno import YesNoMetric
from ragjudge.models import JudgeCallRecord
from ragjudge.run._dryrun import StandInJudge
from ragjudge.schema import Sample

SNAPSHOT = Path(__file__).with_name("yes_no_prompts.json")
MARK = Marked()


def yes_no_metrics() -> list[str]:
    """Every registered metric built on the yes/no kit."""
    return [n for n in available_metrics() if issubclass(metric_class(n), YesNoMetric)]


async def prompts(name: str, facts: bool, **options: Any) -> list[str]:
    """The sorted prompts ``name`` (with ``options``) sends for the marked row."""
    metric = create_metric({"metric": name, **metric_class(name).example_options, **options})
    row = MARK.row(facts=facts)
    records: list[JudgeCallRecord] = []
    await metric.score(
        Sample.model_validate(row), output_of(row), MARK.context(StandInJudge(records))
    )
    return sorted(prompts_of(records))


async def _all() -> dict[str, list[str]]:
    return {
        f"{name}-{'facts' if facts else 'reference'}": await prompts(name, facts)
        for name in yes_no_metrics()
        for facts in (False, True)
    }


if __name__ == "__main__":
    SNAPSHOT.write_text(json.dumps(asyncio.run(_all()), indent=1) + "\n", encoding="utf-8")
