"""Charts drawn as inline SVG on the server: a distribution, means with confidence
intervals, a scatter, and the small bars inside table cells.

Every chart is a string of SVG markup built here, with every label escaped; no
script, no external resource. Sizes are in the viewBox's units and the chart scales
to its container. Colours come from CSS classes (``report.css``), so a chart has no
inline style.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape
from rich.cells import cell_len, set_cell_size

__all__ = [
    "Bar",
    "IntervalRow",
    "Point",
    "bar_chart",
    "ci_cell",
    "diff_cell",
    "interval_chart",
    "nice_ticks",
    "scatter_chart",
    "share_cell",
]

_WIDTH = 420
_LEFT = 44
_RIGHT = 12
_TOP = 10
_BOTTOM = 34


@dataclass(frozen=True)
class Bar:
    """One bar of a distribution: its label, count and hover text; ``kind`` is a CSS
    class (``excluded`` for values the mean leaves out)."""

    label: str
    count: int
    title: str
    kind: str = ""


@dataclass(frozen=True)
class IntervalRow:
    """One row of an interval chart: a mean and its interval (None: not computed)."""

    label: str
    mean: float | None
    low: float | None
    high: float | None
    note: str = ""


@dataclass(frozen=True)
class Point:
    """One point of a scatter, with its hover text."""

    x: float
    y: float
    title: str


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _svg(width: float, height: float, label: str, body: str, cls: str = "chart") -> Markup:
    return Markup(
        f'<svg class="{cls}" viewBox="0 0 {_num(width)} {_num(height)}" role="img"'
        f' aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(label)}</title>{body}</svg>"
    )


def _text(x: float, y: float, text: str, cls: str = "", anchor: str = "middle") -> str:
    return (
        f'<text x="{_num(x)}" y="{_num(y)}" text-anchor="{anchor}" class="{cls}">'
        f"{escape(text)}</text>"
    )


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``[low, high]`` (about ``count`` of them)."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low]
    raw = (high - low) / max(count - 1, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw * 0.75)
    first = math.ceil(low / step - 1e-9) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _tick_label(value: float) -> str:
    return f"{value:g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.1e}"


class _Scale:
    """A linear map from data values to positions."""

    def __init__(self, low: float, high: float, start: float, end: float) -> None:
        if not high > low:
            low, high = low - 0.5, high + 0.5
        self.low, self.high, self.start, self.end = low, high, start, end

    def __call__(self, value: float) -> float:
        share = (value - self.low) / (self.high - self.low)
        return self.start + min(max(share, -0.02), 1.02) * (self.end - self.start)


def bar_chart(
    bars: Sequence[Bar],
    *,
    label: str,
    mean: float | None = None,
    interval: tuple[float, float] | None = None,
    marks: tuple[float, float] | None = None,
    edges: Sequence[str] = (),
) -> Markup:
    """Vertical bars (a distribution); with ``marks`` = (first, last) the bars span that
    value range and the ``mean`` and its ``interval`` are drawn over them. ``edges``
    (one more than the bars) label the bars' boundaries instead of their centres."""
    height = 170.0
    plot_w = _WIDTH - _LEFT - _RIGHT
    plot_h = height - _TOP - _BOTTOM
    top = max((b.count for b in bars), default=0) or 1
    y = _Scale(0, top, _TOP + plot_h, _TOP)
    parts = [_axis_y(y, top, plot_w)]
    slot = plot_w / max(len(bars), 1)
    scale = None
    if marks is not None and mean is not None:
        scale = _Scale(marks[0], marks[1], _LEFT + slot / 2, _LEFT + plot_w - slot / 2)
        if interval is not None:
            parts.append(_band(scale, interval, _TOP, plot_h))  # behind the bars
    for i, bar in enumerate(bars):
        x = _LEFT + i * slot
        y0 = y(bar.count)
        parts.append(
            f'<rect class="bar {bar.kind}" x="{_num(x + slot * 0.08)}" y="{_num(y0)}"'
            f' width="{_num(slot * 0.84)}" height="{_num(_TOP + plot_h - y0)}">'
            f"<title>{escape(bar.title)}</title></rect>"
        )
        if not edges and (len(bars) <= 12 or i % max(1, len(bars) // 6) == 0):
            parts.append(_text(x + slot / 2, height - _BOTTOM + 14, bar.label, "tick"))
    for i, edge in enumerate(edges):
        if i % 2 == 0 or len(edges) <= 8:
            parts.append(_text(_LEFT + i * slot, height - _BOTTOM + 14, edge, "tick"))
    if scale is not None and mean is not None:
        parts.append(_mean_line(scale, mean, _TOP, plot_h))
    return _svg(_WIDTH, height, label, "".join(parts))


def _axis_y(y: _Scale, top: int, plot_w: float) -> str:
    parts = []
    for tick in nice_ticks(0, top, 4):
        if tick != int(tick):
            continue
        pos = y(tick)
        parts.append(
            f'<line class="grid" x1="{_LEFT}" x2="{_num(_LEFT + plot_w)}"'
            f' y1="{_num(pos)}" y2="{_num(pos)}"/>'
        )
        parts.append(_text(_LEFT - 6, pos + 4, str(int(tick)), "tick", "end"))
    return "".join(parts)


def _band(x: _Scale, interval: tuple[float, float], top: float, plot_h: float) -> str:
    low, high = x(interval[0]), x(interval[1])
    return (
        f'<rect class="ci-band" x="{_num(low)}" y="{_num(top)}"'
        f' width="{_num(max(high - low, 1.5))}" height="{_num(plot_h)}">'
        f"<title>95% CI [{interval[0]:.3f}, {interval[1]:.3f}]</title></rect>"
    )


def _mean_line(x: _Scale, mean: float, top: float, plot_h: float) -> str:
    pos = x(mean)
    return (
        f'<line class="mean-line" x1="{_num(pos)}" x2="{_num(pos)}" y1="{_num(top)}"'
        f' y2="{_num(top + plot_h)}"><title>mean {mean:.3f}</title></line>'
    )


def interval_chart(
    rows: Sequence[IntervalRow], *, label: str, low: float, high: float, zero: bool = False
) -> Markup:
    """One row per group: the mean as a dot and its interval as a whisker, on a shared
    axis from ``low`` to ``high`` (with ``zero``, a line marks 0)."""
    left, row_h = 130.0, 22.0
    height = _TOP + row_h * len(rows) + _BOTTOM
    x = _Scale(low, high, left, _WIDTH - 56)
    parts = [_axis_x(x, _TOP, height - _BOTTOM)]
    if zero and low < 0 < high:
        parts.append(
            f'<line class="zero" x1="{_num(x(0))}" x2="{_num(x(0))}" y1="{_TOP}"'
            f' y2="{_num(height - _BOTTOM)}"/>'
        )
    for i, row in enumerate(rows):
        cy = _TOP + row_h * (i + 0.5)
        name = _cut_to_cells(row.label, 20)
        parts.append(_text(left - 8, cy + 4, name, "row-label", "end"))
        parts.append(_text(_WIDTH - 50, cy + 4, row.note, "tick", "start"))
        if row.low is not None and row.high is not None:
            parts.append(
                f'<line class="whisker" x1="{_num(x(row.low))}" x2="{_num(x(row.high))}"'
                f' y1="{_num(cy)}" y2="{_num(cy)}"/>'
            )
        if row.mean is not None:
            ci = "" if row.low is None else f", 95% CI [{row.low:.3f}, {row.high:.3f}]"
            parts.append(
                f'<circle class="dot" cx="{_num(x(row.mean))}" cy="{_num(cy)}" r="4">'
                f"<title>{escape(f'{row.label}: {row.mean:.3f}{ci} {row.note}')}</title></circle>"
            )
    return _svg(_WIDTH, height, label, "".join(parts))


def _axis_x(x: _Scale, top: float, bottom: float) -> str:
    parts = []
    for tick in nice_ticks(x.low, x.high, 5):
        pos = x(tick)
        parts.append(
            f'<line class="grid" x1="{_num(pos)}" x2="{_num(pos)}" y1="{_num(top)}"'
            f' y2="{_num(bottom)}"/>'
        )
        parts.append(_text(pos, bottom + 14, _tick_label(tick), "tick"))
    return "".join(parts)


def scatter_chart(points: Sequence[Point], *, label: str, x_label: str, y_label: str) -> Markup:
    """Points on two axes scaled to the data; ties are spread a little, in a fixed
    pattern, so that stacked points stay countable."""
    height = 260.0
    bottom = height - _BOTTOM - 8
    xs = [p.x for p in points] or [0.0]
    ys = [p.y for p in points] or [0.0]
    x = _Scale(min(xs), max(xs), _LEFT + 8, _WIDTH - _RIGHT - 8)
    y = _Scale(min(ys), max(ys), bottom - 6, _TOP + 6)
    parts = [_axis_x(x, _TOP, bottom), _scatter_y_axis(y, bottom)]
    seen: dict[tuple[float, float], int] = {}
    for point in points:
        key = (round(x(point.x)), round(y(point.y)))
        nth = seen.get(key, 0)
        seen[key] = nth + 1
        dx, dy = _spread(nth)
        parts.append(
            f'<circle class="pt" cx="{_num(x(point.x) + dx)}" cy="{_num(y(point.y) + dy)}"'
            f' r="3"><title>{escape(point.title)}</title></circle>'
        )
    parts.append(_text((_LEFT + _WIDTH) / 2, height - 6, x_label, "axis-label"))
    parts.append(
        f'<text class="axis-label" text-anchor="middle" transform="translate(11 {_num(bottom / 2)})'
        f' rotate(-90)">{escape(y_label)}</text>'
    )
    return _svg(_WIDTH, height, label, "".join(parts))


def _scatter_y_axis(y: _Scale, bottom: float) -> str:
    parts = []
    for tick in nice_ticks(y.low, y.high, 5):
        pos = y(tick)
        parts.append(
            f'<line class="grid" x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" y1="{_num(pos)}"'
            f' y2="{_num(pos)}"/>'
        )
        parts.append(_text(_LEFT - 6, pos + 4, _tick_label(tick), "tick", "end"))
    return "".join(parts)


def _spread(nth: int) -> tuple[float, float]:
    """The offset of the ``nth`` point drawn on one spot: rings of growing radius."""
    if nth == 0:
        return 0.0, 0.0
    ring = 1 + int(math.sqrt(nth))
    angle = nth * 2.399963  # the golden angle: successive points never line up
    return ring * 2.2 * math.cos(angle), ring * 2.2 * math.sin(angle)


def ci_cell(
    mean: float | None, interval: tuple[float, float] | None, low: float, high: float
) -> Markup:
    """A small bar for a table cell: the interval and the mean on the score's range."""
    width, height = 120.0, 14.0
    if mean is None:
        return Markup("")
    x = _Scale(low, high, 3, width - 3)
    parts = [f'<line class="track" x1="3" x2="{_num(width - 3)}" y1="7" y2="7"/>']
    if interval is not None:
        parts.append(
            f'<line class="whisker" x1="{_num(x(interval[0]))}" x2="{_num(x(interval[1]))}"'
            ' y1="7" y2="7"/>'
        )
    parts.append(f'<circle class="dot" cx="{_num(x(mean))}" cy="7" r="3.2"/>')
    label = f"{mean:.3f} on {low:g} to {high:g}"
    return _svg(width, height, label, "".join(parts), "cell-chart")


def diff_cell(difference: float | None, interval: tuple[float, float] | None) -> Markup:
    """A small bar for a comparison row: B − A and its interval around a zero line,
    scaled to the row's own values."""
    width, height = 140.0, 14.0
    if difference is None:
        return Markup("")
    reach = max(abs(v) for v in (difference, *(interval or ()))) * 1.2 or 1.0
    x = _Scale(-reach, reach, 3, width - 3)
    parts = [
        f'<line class="track" x1="3" x2="{_num(width - 3)}" y1="7" y2="7"/>',
        f'<line class="zero" x1="{_num(x(0))}" x2="{_num(x(0))}" y1="0" y2="14"/>',
    ]
    if interval is not None:
        crosses = interval[0] <= 0 <= interval[1]
        parts.append(
            f'<line class="whisker {"" if crosses else "clear"}" x1="{_num(x(interval[0]))}"'
            f' x2="{_num(x(interval[1]))}" y1="7" y2="7"/>'
        )
    parts.append(f'<circle class="dot" cx="{_num(x(difference))}" cy="7" r="3.2"/>')
    return _svg(width, height, f"B − A = {difference:.3f}", "".join(parts), "cell-chart wide")


def share_cell(better: float | None, equal: float | None, worse: float | None) -> Markup:
    """A stacked bar of the shares of samples where B is better, equal, worse."""
    if better is None or equal is None or worse is None:
        return Markup("")
    width, height = 100.0, 12.0
    parts, start = [], 0.0
    for share, cls in ((better, "better"), (equal, "equal"), (worse, "worse")):
        parts.append(
            f'<rect class="{cls}" x="{_num(start * width)}" y="0"'
            f' width="{_num(share * width)}" height="{_num(height)}"/>'
        )
        start += share
    label = f"better {better:.0%}, equal {equal:.0%}, worse {worse:.0%}"
    return _svg(width, height, label, "".join(parts), "cell-chart")


def _cut_to_cells(text: str, width: int) -> str:
    """``text`` in at most ``width`` display cells (a CJK character takes two, as it
    takes about twice the room in the chart's font), ending with … when cut."""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, max(0, width - 1)).rstrip() + "…"
