"""A return rate over time against its threshold, drawn server-side as inline SVG (no script, no CDN)."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from transactions.return_codes import RateCategory
from transactions.risk.return_rates import SeriesPoint

WIDTH, HEIGHT = 620, 200
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 14, 28
RATE_COLOUR, THRESHOLD_COLOUR, WARNING_COLOUR = "#205493", "#b30000", "#e08a00"


def _percent(value: float) -> str:
    return f"{value * 100:.2f}%"


def rate_chart(
    *, points: Sequence[SeriesPoint], category: RateCategory, threshold: float, warning_percent: int
) -> SafeString:
    """One category's rolling-60-day rate per day (a polyline), the threshold (red) and the warning level (amber).
    The vertical scale reaches at least 1.5 times the threshold, so a rate far under it still reads as such."""
    rates = [point.rates[category] for point in points]
    top = max([threshold * 1.5, *rates]) or 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / max(len(points) - 1, 1)

    def y(value: float) -> float:
        return TOP + plot_h * (1 - value / top)

    line = " ".join(f"{LEFT + index * step:.1f},{y(rate):.1f}" for index, rate in enumerate(rates))
    warning = threshold * warning_percent / 100
    ticks = [0, threshold / 2, threshold, top]
    labels = format_html_join(
        "",
        '<text x="{}" y="{}" font-size="10" text-anchor="end" fill="#555">{}</text>'
        '<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#eee"/>',
        (
            (LEFT - 4, f"{y(tick) + 3:.1f}", _percent(tick), LEFT, WIDTH - RIGHT, f"{y(tick):.1f}", f"{y(tick):.1f}")
            for tick in ticks
        ),
    )
    first, last = (points[0].day, points[-1].day) if points else ("", "")
    return format_html(
        '<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" '
        'aria-label="{category} return rate against its threshold">'
        "{labels}"
        '<line x1="{left}" x2="{right}" y1="{ty}" y2="{ty}" stroke="{tc}" stroke-width="1.5"/>'
        '<text x="{right}" y="{tly}" font-size="10" text-anchor="end" fill="{tc}">threshold {threshold}</text>'
        '<line x1="{left}" x2="{right}" y1="{wy}" y2="{wy}" stroke="{wc}" stroke-dasharray="4 3"/>'
        '<text x="{right}" y="{wly}" font-size="10" text-anchor="end" fill="{wc}">warning {warning}</text>'
        '<polyline points="{line}" fill="none" stroke="{rc}" stroke-width="2"/>'
        '<text x="{left}" y="{by}" font-size="10" fill="#555">{first}</text>'
        '<text x="{right}" y="{by}" font-size="10" text-anchor="end" fill="#555">{last}</text>'
        "</svg>",
        w=WIDTH,
        h=HEIGHT,
        category=category.value,
        labels=labels,
        left=LEFT,
        right=WIDTH - RIGHT,
        ty=f"{y(threshold):.1f}",
        tly=f"{y(threshold) - 3:.1f}",
        tc=THRESHOLD_COLOUR,
        threshold=_percent(threshold),
        wy=f"{y(warning):.1f}",
        wly=f"{y(warning) + 11:.1f}",
        wc=WARNING_COLOUR,
        warning=_percent(warning),
        line=line,
        rc=RATE_COLOUR,
        by=HEIGHT - 8,
        first=first,
        last=last,
    )
