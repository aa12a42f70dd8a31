"""The look every figure shares: type sizes, colours, title and legend placement.

Method colours and labels come from :mod:`heb.registry` (one colour per method, the same
on every page); metric titles too. Colours of series that are not methods (the truth,
the prior mean, a what-if setting) are named here, once. User-supplied text (category
values, column names, class names, titles built from them) goes through :func:`escape`
before it reaches a plotly label, which would otherwise render ``<a href=...>`` or ``<b>``.
"""

from __future__ import annotations

import hashlib
import html
import math
import re
import textwrap

import numpy as np
import plotly.graph_objects as go

from heb import registry

__all__ = [
    "CHAR_EM",
    "FIXED_MARGIN_TEMPLATE",
    "label_fitted_axes",
    "title_and_legend_layout",
    "wrap_title",
    "FONT_SIZE",
    "INK",
    "SYMBOLS",
    "TITLE_PAD",
    "PLOT_GAP",
    "TRUTH_COLOR",
    "NEUTRAL_COLOR",
    "NEUTRAL_TEXT_COLOR",
    "PRIOR_MEAN_COLOR",
    "UNSMOOTHED_COLOR",
    "WHATIF_COLOR",
    "WHATIF_TEXT_COLOR",
    "SERIES_COLORS",
    "CLASS_PALETTE",
    "BAR_COLOR",
    "POST_HOC_COLORS",
    "CLAMP_COLORS",
    "escape",
    "escape_all",
    "method_label",
    "method_color",
    "metric_title",
    "legend_rows",
    "log_axis",
    "title_height",
    "frame_title_and_legend",
    "style",
]

#: base font size in pixels (readable on a projector)
FONT_SIZE = 16
#: a conservative width of one character of a label, in em (Verdana's average; Arial and
#: Open Sans are narrower), for margins and widths that must hold labels
CHAR_EM = 0.6
#: the colour of text, axes and reference lines
INK = "#222222"
#: marker symbols given to series in order, so that lines differ without colour too
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "cross", "pentagon")
#: pixels above the title, and between the title (or legend) and the plot
TITLE_PAD = 12
PLOT_GAP = 14

# colours of series that are not methods (none of them a method's colour)
TRUTH_COLOR = INK
#: neutral marks: shading, reference lines, minor bars
NEUTRAL_COLOR = "#9e9e9e"
#: neutral text (a shaded band's label, an export's footer): a darker grey, since
#: NEUTRAL_COLOR as text on white is 2.7:1 and body text needs 4.5:1 (WCAG); 5.7:1
NEUTRAL_TEXT_COLOR = "#666666"
#: the prior mean t: dark grey, apart from the unsmoothed estimate
PRIOR_MEAN_COLOR = "#525252"
#: the unsmoothed n / N: light grey
UNSMOOTHED_COLOR = "#c7c7c7"
#: a slider's setting: bluish green, which no method has
WHATIF_COLOR = "#009e73"
#: text in the slider's colour (an axis's title and ticks): the same hue darker, 5.3:1 on
#: white where WHATIF_COLOR's 3.4:1 is too faint for 16 px text
WHATIF_TEXT_COLOR = "#007a5a"
#: curves that are not methods (e.g. "1 copy", "4 copies"), in order of appearance
SERIES_COLORS = ("#3b3b98", "#e6550d", "#009e73", "#b8860b", "#cc79a7", "#555555")
#: classes as separate series (colour-blind-safe Okabe-Ito order, then two more)
CLASS_PALETTE = (
    "#0072b2",
    "#d55e00",
    "#009e73",
    "#cc79a7",
    "#e69f00",
    "#56b4e9",
    "#8c564b",
    "#f0e442",
)
#: a single-series bar chart (rows per class)
BAR_COLOR = "#1f5fbf"
#: each post-hoc calibration of the calibration lesson
POST_HOC_COLORS = {
    "none": TRUTH_COLOR,
    "Platt": "#6baed6",
    "isotonic": "#31a354",
    "temperature": "#e6550d",
}
#: the state of a learned concentration: fitted, clamped high or low, small-class fallback
CLAMP_COLORS = {"none": "#1f77b4", "high": "#d62728", "low": "#ff7f0e", "fallback": "#7f7f7f"}
#: colours for names outside the registry (picked by a stable hash of the name)
_HASHED_COLORS = (
    "#bcbd22",
    "#393b79",
    "#637939",
    "#8c6d31",
    "#7b4173",
    "#3182bd",
    "#e6550d",
    "#31a354",
    "#756bb1",
    "#636363",
)


# ------------------------------------------------------------------ text
def escape(text: object) -> str:
    """``text`` as plain text in a plotly label: ``<``, ``>`` and ``&`` shown, not parsed."""
    return html.escape(str(text), quote=False)


def escape_all(values) -> list[str]:
    """:func:`escape` of every value (category values, feature or class names)."""
    return [escape(value) for value in values]


def method_label(name: str) -> str:
    """The registered display name of a method (``"heb-m"`` -> ``"HEB-M"``).

    Names the registry does not know (``"1 copy"``, ``"HEB-M + temperature"``) come
    back unchanged.
    """
    try:
        return registry.resolve_method_name(str(name).strip())
    except ValueError:
        return str(name)


def method_color(name: str) -> str:
    """The registry colour of a method in any spelling; other names a stable hashed colour."""
    label = method_label(name)
    if label in registry.METHODS:
        return registry.METHODS[label].colour
    digest = hashlib.sha256(label.encode("utf-8")).digest()
    return _HASHED_COLORS[digest[0] % len(_HASHED_COLORS)]


def metric_title(name: str) -> str:
    """The registry title of a metric (``"log_loss"`` -> ``"Log-loss"``); others unchanged."""
    entry = registry.METRICS.get(name)
    return entry.title if entry is not None else str(name)


# ---------------------------------------------------------------- layout
def legend_rows(fig: go.Figure, width: float = 700.0) -> int:
    """Rough number of rows a horizontal legend takes at ``width`` pixels (0: no legend)."""
    names = [
        str(trace.name or "")
        for trace in fig.data
        if (shown := getattr(trace, "showlegend", False)) is True  # a sunburst has none
        or (shown is None and trace.type != "heatmap")
    ]
    if fig.layout.showlegend is False or (len(names) < 2 and fig.layout.showlegend is not True):
        return 0
    total, rows = 0.0, 1
    for name in names:
        item = 50 + 0.55 * FONT_SIZE * len(name)
        if total + item > width and total > 0:
            rows, total = rows + 1, 0.0
        total += item
    return rows


def count_axis(values) -> dict:
    """Settings of an axis of whole counts from zero: a tick at every whole number where
    the largest count is small (plotly's own ticks read 0.2, 0.4, ... below 6)."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    top = float(values.max()) if values.size else 0.0
    return {"rangemode": "tozero", **({"dtick": 1} if top < 6 else {})}


def log_axis(values: np.ndarray) -> dict:
    """Log-axis settings: one labelled tick per decade when the data span several."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values) & (values > 0)]
    if not values.size:
        return {"type": "log"}
    plain = values.min() >= 1e-3 and values.max() <= 1e5  # 0.001 ... 100000 read fine
    axis = {"type": "log", "exponentformat": "none" if plain else "power"}
    if plain:  # 1,000 beside 10,000 (plotly separates from five digits only: 1000)
        axis["separatethousands"] = True
    if np.log10(values.max() / values.min()) >= 1.2:
        return axis | {"dtick": 1}
    # within a decade or so plotly labels the digits alone ("3 4 5 ... 9 100 2 3" for
    # 30 ... 300): ticks of their own at 1, 2, 5 (or every digit) of each decade
    low, high = values.min() / 1.2, values.max() * 1.2
    decades = range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
    for digits in ((1, 2, 5), range(1, 10)):
        ticks = [d * 10.0**k for k in decades for d in digits if low <= d * 10.0**k <= high]
        if len(ticks) >= 3:
            return axis | {"tickvals": ticks}
    return axis | {"nticks": 6}


def title_height(title: str, font_size: int = FONT_SIZE + 4) -> int:
    """Pixels the title block takes at the top of a figure (0 without a title)."""
    if not title:
        return 0
    lines = 1 + title.lower().count("<br>")
    return TITLE_PAD + int(round(1.3 * font_size * lines))


def wrap_title(title: str, width: int) -> str:
    """``title`` with each line longer than ``width`` characters broken at spaces (``<br>``).

    A long line is cut into as few lines as it needs, of about equal length. A line that
    holds a tag (``<span ...>``) is left whole: a break could fall inside the tag.
    """
    lines = []
    for line in re.split(r"<br>", title, flags=re.IGNORECASE):
        if len(line) <= width or "<" in line:
            lines.append(line)
            continue
        # the fewest lines (greedy filling is optimal for the count: ceil(length / width)
        # could be one short, and the even widths then gave one line more than needed),
        # then the narrowest width that keeps to them
        parts = textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)
        for even in range(math.ceil(len(line) / len(parts)), width):
            shorter = textwrap.wrap(line, even, break_long_words=False, break_on_hyphens=False)
            if len(shorter) <= len(parts):
                parts = shorter
                break
        lines.extend(parts)
    return "<br>".join(lines)


def title_and_legend_layout(title: str, height: int, font_size: int = FONT_SIZE) -> dict:
    """The layout of :func:`frame_title_and_legend`, as keyword arguments of
    ``update_layout`` (to merge with others into one call: each call costs milliseconds)."""
    top = title_height(title, font_size + 4)
    # plotly centres a multi-line title on its anchor: move it down by the extra half
    lines = 1 + title.lower().count("<br>") if title else 1
    shift = 0.5 * (lines - 1) * 1.3 * (font_size + 4)
    return {
        "height": height,
        "title": {
            "text": title,
            "font": {"size": font_size + 4},
            "x": 0.0,
            "xref": "container",
            "xanchor": "left",
            "y": 1.0 - shift / height,
            "yref": "container",
            "yanchor": "top",
            "pad": {"t": TITLE_PAD, "l": 10},
            "automargin": False,
        },
        "legend": {
            "orientation": "h",
            "x": 0.0,
            "xref": "paper",
            "xanchor": "left",
            "y": 1.0 - (top + 4) / height,
            "yref": "container",
            "yanchor": "top",
            "font": {"size": font_size - 1},
        },
        "margin": {"t": top + PLOT_GAP},
    }


def frame_title_and_legend(
    fig: go.Figure, title: str, height: int, font_size: int = FONT_SIZE
) -> go.Figure:
    """Title at the figure's top left, the legend right under it, the plot under both.

    The title and a horizontal legend are placed in container (pixel) coordinates, so
    they never overlap whatever the width: plotly reserves the top margin down to the
    legend's last row, however many rows it wraps onto, and adds no gap above it.
    ``height`` is the whole figure's height in pixels.
    """
    return fig.update_layout(**title_and_legend_layout(title, height, font_size))


def _light_template() -> go.layout.Template:
    """plotly_white's layout and its defaults for the trace types drawn here: the look of
    ``template="plotly_white"`` at a tenth of its cost (the full template validates and
    sends defaults for every trace type plotly has, ~4 kB per figure)."""
    import plotly.io as pio

    white = pio.templates["plotly_white"]
    kinds = ("bar", "heatmap", "scatter")
    return go.layout.Template(layout=white.layout, data={k: white.data[k] for k in kinds})


LIGHT_TEMPLATE = _light_template()


def _fixed_margin_template() -> go.layout.Template:
    """:data:`LIGHT_TEMPLATE` whose axes do not grow the margins to fit their labels: that
    second layout pass was ~40 % of the browser's time to draw a figure. :func:`style`
    turns it back on for the axes whose labels fixed margins cannot be sized for
    (:func:`label_fitted_axes`)."""
    template = go.layout.Template(LIGHT_TEMPLATE)
    template.layout.update(xaxis={"automargin": False}, yaxis={"automargin": False})
    return template


FIXED_MARGIN_TEMPLATE = _fixed_margin_template()


def _is_text(values) -> bool:
    """Whether a trace's coordinates are text (category labels), not numbers."""
    if values is None:
        return False
    array = np.asarray(values)
    return array.dtype.kind in "OUS" and array.size > 0


def label_fitted_axes(fig: go.Figure) -> dict:
    """``update_layout`` keywords turning automargin back on for the axes whose labels
    fixed margins cannot be sized for: category axes (text coordinates,
    ``type="category"`` or tick labels of their own) and axes on the right (a second y
    axis)."""
    fitted = set()
    for trace in fig.data:
        for letter in ("x", "y"):
            if _is_text(getattr(trace, letter, None)):
                anchor = getattr(trace, f"{letter}axis", None) or letter
                fitted.add(anchor.replace(letter, f"{letter}axis", 1))
    for name in fig.layout:
        if name.startswith(("xaxis", "yaxis")):
            axis = fig.layout[name]
            labelled = axis.type == "category" or axis.ticktext is not None
            if labelled or axis.side == "right" or axis.overlaying:
                fitted.add(name)
    return {name: {"automargin": True} for name in sorted(fitted)}


def style(fig: go.Figure, title: str, height: int, grow_with_legend: bool = True) -> go.Figure:
    """Projector styling; ``height`` is the figure's height without the legend rows.

    With ``grow_with_legend=False`` the height is the whole figure's and a legend that
    wraps takes its rows from the plot.
    """
    rows = legend_rows(fig) if grow_with_legend else 0
    layout = title_and_legend_layout(title, height + 30 * rows)
    layout["margin"] |= {"l": 80, "r": 30, "b": 70}
    return fig.update_layout(  # one call: each costs milliseconds of validation
        template=FIXED_MARGIN_TEMPLATE,
        font={"size": FONT_SIZE, "color": INK},
        hoverlabel={"font": {"size": FONT_SIZE - 2}},
        **layout,
        **label_fitted_axes(fig),
    )
