"""The fuzz corpus through the real command line: every malformed input ends with a
non-zero exit and a message naming the file (and the row and field, or the config key),
never a traceback, never accepted (exit 0: let through), never left running (hung)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_case import Case, Outcome, run_case
from fuzz_corpus import CASES

import ragjudge

MINIMUM_CASES = 230


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """Every case run once, by name."""
    return {
        case.name: run_case(case, tmp_path_factory.mktemp(f"c{index}"))
        for index, case in enumerate(CASES)
    }


def test_the_corpus_is_large_and_its_names_unique() -> None:
    names = [case.name for case in CASES]
    assert len(names) >= MINIMUM_CASES
    assert len(set(names)) == len(names), "case names repeat"


def test_no_case_crashes_and_every_message_names_what_is_wrong(
    outcomes: dict[str, Outcome],
) -> None:
    crashed = [o for o in outcomes.values() if o.crashed]
    let_through = [o for o in outcomes.values() if o.let_through]
    hung = [o for o in outcomes.values() if o.hung]
    unclear = [o for o in outcomes.values() if not o.named]
    counts = (
        f"fuzz corpus: tried {len(outcomes)}, named clearly {len(outcomes) - len(unclear)}, "
        f"crashed {len(crashed)}, let through {len(let_through)}, hung {len(hung)}"
    )
    print(counts)  # shown with -s or -rP
    details = "\n".join(
        f"- {o.case.name}: exit {o.exit_code}, missing {o.missing}: {o.output.strip()[:300]}"
        for o in unclear
    )
    assert not crashed and not unclear, f"{counts}\n{details}"


@pytest.mark.parametrize("name", [case.name for case in CASES])
def test_case(outcomes: dict[str, Outcome], name: str) -> None:
    outcome = outcomes[name]
    assert not outcome.crashed and not outcome.hung, outcome.output
    assert outcome.exit_code == 2, outcome.output
    assert not outcome.missing, outcome.output


SUBPROCESS_CASES = [
    "jsonl_invalid_utf8",
    "csv_unclosed_quote",
    "store_not_sqlite",
    "yaml_duplicate_key",
]


@pytest.mark.parametrize("name", SUBPROCESS_CASES)
def test_case_in_a_real_process_prints_no_traceback(tmp_path: Path, name: str) -> None:
    case: Case = next(c for c in CASES if c.name == name)
    for filename, content in case.files.items():
        assert content is not None
        (tmp_path / filename).write_bytes(content)
    source = str(Path(ragjudge.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": source + os.pathsep + os.environ.get("PYTHONPATH", "")}

    done = subprocess.run(
        [sys.executable, "-m", "ragjudge", *case.args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.startswith("error: ")
    assert all(text in " ".join(done.stderr.split()) for text in case.expect), done.stderr
