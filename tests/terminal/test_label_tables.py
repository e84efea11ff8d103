from __future__ import annotations

from ragjudge.meta._annotators import AnnotatorAgreement, PairKappa
from ragjudge.meta._label_summary import summarise_labels
from ragjudge.store import Label
from ragjudge.terminal._labels import label_agreement_grids, label_summary_grid


def test_the_summary_counts_random_and_targeted_labels_per_score() -> None:
    labels = [
        Label(run_id="r", request_id="a", metric="m", annotator="ann", kind="yesno", value=True),
        Label(
            run_id="r",
            request_id="a",
            metric="m",
            annotator="bob",
            kind="yesno",
            value=False,
            drawn="targeted",
        ),
        Label(run_id="r", request_id="b", annotator="ann", kind="comment", comment="odd"),
    ]
    grid = label_summary_grid(summarise_labels(labels))
    assert grid.rows == [
        ["(whole sample)", "1", "1", "1", "0", "1", "ann 1"],
        ["m", "1", "2", "1", "1", "0", "ann 1, bob 1"],
    ]


def test_pairs_without_a_sample_in_common_are_named_in_a_note() -> None:
    found = AnnotatorAgreement(
        metric="m",
        kind="scale",
        annotators={"ann": 3, "bob": 3, "cy": 1},
        pairs=[PairKappa("ann", "bob", 3, 0.25, 0.5), PairKappa("ann", "cy", 0, None)],
        fleiss_kappa=None,
        fleiss_n=0,
        fleiss_raters=0,
        alpha=None,
        judges=[],
    )
    (grid,) = label_agreement_grids(found)
    assert grid.rows == [["ann – bob", "3", "0.250", "0.500"]]
    assert "no sample in common (left out): ann – cy" in grid.notes
