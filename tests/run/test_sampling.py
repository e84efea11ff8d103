"""``--sample N`` draws a random subset that keeps every subset of ``by``, where
``--limit N`` takes the first N rows (and a subset at the end of the file vanishes)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.schema import Sample

runner = CliRunner()


def samples(counts: dict[str, int]) -> list[Sample]:
    rows = [
        Sample.model_validate(
            {"request_id": f"{lang}{i}", "request": "q", "metadata": {"lang": lang}}
        )
        for lang, count in counts.items()
        for i in range(count)
    ]
    return rows


def langs(chosen: list[Sample]) -> Counter[str]:
    return Counter(s.metadata["lang"] for s in chosen)


def test_shares_follow_the_subsets_and_keep_the_order() -> None:
    from ragjudge.run._sampling import stratified_sample

    rows = samples({"en": 60, "ja": 30, "fr": 10})

    chosen = stratified_sample(rows, 10, by="metadata.lang", seed=1)

    assert langs(chosen) == {"en": 6, "ja": 3, "fr": 1}
    positions = [rows.index(s) for s in chosen]
    assert positions == sorted(positions)


def test_every_subset_keeps_a_row_when_n_allows() -> None:
    from ragjudge.run._sampling import stratified_sample

    chosen = stratified_sample(samples({"en": 97, "ja": 2, "fr": 1}), 3, by="lang", seed=0)

    assert langs(chosen) == {"en": 1, "ja": 1, "fr": 1}


def test_the_seed_decides_the_draw() -> None:
    from ragjudge.run._sampling import stratified_sample

    rows = samples({"en": 50, "ja": 50})

    first = stratified_sample(rows, 10, by="lang", seed=7)

    assert first == stratified_sample(rows, 10, by="lang", seed=7)
    assert first != stratified_sample(rows, 10, by="lang", seed=8)
    assert len(stratified_sample(rows, 500, by="lang")) == 100


def test_limit_loses_a_subset_and_sample_keeps_it(tmp_path: Path) -> None:
    rows = [
        {"request": f"q{i}", "response": "a", "expected_response": "a", "metadata": {"lang": "en"}}
        for i in range(8)
    ] + [{"request": "最後", "response": "a", "expected_response": "a", "metadata": {"lang": "ja"}}]
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows))
    config = tmp_path / "eval.yaml"
    config.write_text("data: set.jsonl\nmetrics: [exact_match]\nby: metadata.lang\n")

    limited = runner.invoke(app, ["run", str(config), "--limit", "3", "--json", "--no-progress"])
    sampled = runner.invoke(
        app, ["run", str(config), "--sample", "3", "--seed", "4", "--json", "--no-progress"]
    )
    both = runner.invoke(app, ["run", str(config), "--sample", "3", "--limit", "3"])

    assert set(json.loads(limited.stdout)["subsets"]) == {"en"}
    summary = json.loads(sampled.stdout)
    assert summary["n_samples"] == 3 and set(summary["subsets"]) == {"en", "ja"}
    assert both.exit_code == 2 and "not both" in both.output
