import xml.etree.ElementTree as ET

import pytest

from ragjudge.report._svg import (
    Bar,
    IntervalRow,
    Point,
    bar_chart,
    ci_cell,
    diff_cell,
    interval_chart,
    nice_ticks,
    scatter_chart,
    share_cell,
)

SVG = "{http://www.w3.org/2000/svg}"
ATTACK = "<script>alert(1)</script>\"'&"


def parsed(markup: str) -> ET.Element:
    return ET.fromstring(str(markup))  # well-formed XML, or this raises


def test_nice_ticks() -> None:
    assert nice_ticks(0, 1) == [0, 0.2, 0.4, 0.6, 0.8, 1]
    assert nice_ticks(0, 5) == [0, 1, 2, 3, 4, 5]
    assert nice_ticks(-1.25, 2.5)[0] >= -1.25
    assert nice_ticks(3, 3) == [3]


def test_bar_chart_draws_one_bar_per_count_and_escapes_labels() -> None:
    bars = [Bar("0", 3, ATTACK, "excluded"), Bar(ATTACK, 7, "seven")]
    svg = bar_chart(bars, label=ATTACK, mean=0.7, interval=(0.5, 0.9), marks=(0.0, 1.0))
    root = parsed(svg)
    rects = root.findall(f"{SVG}rect")
    assert [r.get("class") for r in rects] == ["ci-band", "bar excluded", "bar "]
    heights = [float(r.get("height", 0)) for r in rects[1:]]
    assert heights[1] > heights[0] > 0
    assert root.find(f"{SVG}title").text == ATTACK  # escaped in the markup, whole in the text
    assert "<script" not in svg
    assert root.findall(f"{SVG}line[@class='mean-line']")


def test_interval_chart_places_rows_in_order() -> None:
    rows = [IntervalRow("all", 0.5, 0.4, 0.6, "n=10"), IntervalRow("ja", 0.8, None, None)]
    root = parsed(interval_chart(rows, label="x", low=0, high=1))
    dots = root.findall(f"{SVG}circle")
    assert len(dots) == 2
    assert float(dots[1].get("cx", 0)) > float(dots[0].get("cx", 0))
    assert len(root.findall(f"{SVG}line[@class='whisker']")) == 1


def test_scatter_spreads_tied_points() -> None:
    points = [Point(1, 1, "a"), Point(1, 1, "b"), Point(2, 3, ATTACK)]
    root = parsed(scatter_chart(points, label="s", x_label="human", y_label=ATTACK))
    spots = {(c.get("cx"), c.get("cy")) for c in root.findall(f"{SVG}circle")}
    assert len(spots) == 3


@pytest.mark.parametrize(
    "markup",
    [
        ci_cell(0.5, (0.4, 0.6), 0, 1),
        diff_cell(0.1, (-0.05, 0.2)),
        diff_cell(-0.3, (-0.4, -0.1)),
        share_cell(0.5, 0.25, 0.25),
    ],
)
def test_cell_charts_are_well_formed(markup: str) -> None:
    assert (parsed(markup).get("class") or "").startswith("cell-chart")


def test_cells_without_values_are_empty() -> None:
    assert ci_cell(None, None, 0, 1) == ""
    assert diff_cell(None, None) == ""
    assert share_cell(None, None, None) == ""


def test_diff_cell_marks_an_interval_that_excludes_zero() -> None:
    clear = parsed(diff_cell(0.3, (0.1, 0.5))).find(f"{SVG}line[@class='whisker clear']")
    crossing = parsed(diff_cell(0.1, (-0.1, 0.3))).find(f"{SVG}line[@class='whisker clear']")
    assert clear is not None and crossing is None
