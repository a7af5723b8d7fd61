"""A small inline-SVG line chart: rating history (mu per entrant after each match, with a
band of ±sigma). No plotting library: the chart is a few polylines and labels."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
)


@dataclass(frozen=True)
class Series:
    name: str
    points: tuple[tuple[float, float, float], ...]  # (x, mu, sigma)


def _ticks(low: float, high: float, count: int = 5, whole: bool = False) -> list[float]:
    """Round tick values between low and high (whole numbers only, if ``whole``)."""
    span = high - low or 1.0
    raw = span / count
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= step * factor:
            step *= factor
            break
    if whole:
        step = max(step, 1.0)
    first = math.ceil(low / step) * step
    out = []
    value = first
    while value <= high + 1e-9:
        out.append(round(value, 10))
        value += step
    return out


def line_chart(
    series: Sequence[Series], x_label: str, y_label: str, width: int = 760, height: int = 320
) -> str:
    """An SVG element (as text) plotting each series' mu with a ±sigma band."""
    points = [p for s in series for p in s.points]
    if not points:
        return '<p class="none">no rated matches yet</p>'
    left, right, top, bottom = 56, 150, 14, 42
    xs = [p[0] for p in points]
    lows = [p[1] - p[2] for p in points]
    highs = [p[1] + p[2] for p in points]
    x0, x1 = min(xs), max(xs)
    if x0 == x1:
        x1 = x0 + 1
    y0, y1 = min(lows), max(highs)
    pad = (y1 - y0) * 0.05 or 1.0
    y0, y1 = y0 - pad, y1 + pad
    plot_w, plot_h = width - left - right, height - top - bottom

    def sx(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * plot_w

    def sy(y: float) -> float:
        return top + (y1 - y) / (y1 - y0) * plot_h

    out = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{html.escape(y_label)}">',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fff" stroke="#ccc"/>',
    ]
    for t in _ticks(y0, y1):
        y = sy(t)
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
        )
        out.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{t:g}</text>'
        )
    for t in _ticks(x0, x1, 8, whole=True):
        x = sx(t)
        out.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top + plot_h}" y2="{top + plot_h + 4}" '
            'stroke="#999"/>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
            f'font-size="11">{t:g}</text>'
        )
    out.append(
        f'<text x="{left + plot_w / 2:.0f}" y="{height - 6}" text-anchor="middle" '
        f'font-size="12">{html.escape(x_label)}</text>'
    )
    out.append(
        f'<text transform="translate(14 {top + plot_h / 2:.0f}) rotate(-90)" '
        f'text-anchor="middle" font-size="12">{html.escape(y_label)}</text>'
    )
    for i, s in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        upper = " ".join(f"{sx(x):.1f},{sy(m + sd):.1f}" for x, m, sd in s.points)
        lower = " ".join(f"{sx(x):.1f},{sy(m - sd):.1f}" for x, m, sd in reversed(s.points))
        line = " ".join(f"{sx(x):.1f},{sy(m):.1f}" for x, m, _ in s.points)
        name = html.escape(s.name)
        out.append(f'<g class="series" data-name="{name}"><title>{name}</title>')
        out.append(
            f'<polygon points="{upper} {lower}" fill="{color}" fill-opacity="0.12" stroke="none"/>'
        )
        out.append(f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"/>')
        out.append("</g>")
        ly = top + 14 + i * 18
        out.append(
            f'<line x1="{left + plot_w + 12}" x2="{left + plot_w + 32}" y1="{ly - 4}" '
            f'y2="{ly - 4}" stroke="{color}" stroke-width="3"/>'
        )
        out.append(f'<text x="{left + plot_w + 38}" y="{ly}" font-size="12">{name}</text>')
    out.append("</svg>")
    return "\n".join(out)
