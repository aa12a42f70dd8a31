"""Figures and tables on a page: one display helper with PNG / SVG / CSV downloads.

Every figure of the app (Explore pages and lessons) goes through :func:`show_figure`,
which draws it in projector-sized type and offers the figure as PNG and SVG (or an
interactive HTML file where no Chromium is installed) and the data behind it as CSV.
Every table goes through :func:`show_table`, which caps what one cell sends to the browser.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import streamlit as st

from explorer.errors import escape, show_warning
from explorer.exports import cap_cells, csv_bytes
from explorer.report import file_slug, view_footer
from explorer.state import missing_as_category, presenting

__all__ = [
    "leave_out_button",
    "CHART_CONFIG",
    "FIGURE_FONT_SIZE",
    "FIGURE_TEXT_COLOR",
    "MODEBAR_BAND",
    "MODEBAR_REMOVED",
    "PRESENTER_TABLE_ROWS",
    "WHOLE_TABLE_ROWS",
    "MISSING_SHARE_COLUMN",
    "download_buttons",
    "show_figure",
    "show_id_like_warnings",
    "show_table",
]

#: projector-friendly font size of every figure (pixels)
FIGURE_FONT_SIZE = 16
FIGURE_TEXT_COLOR = "#1a1a1a"
#: one figure is styled by one thread at a time (see :func:`_style`)
_STYLE_LOCK = threading.Lock()
#: the buttons of plotly's modebar (top right of a chart, on hover) the app leaves out: the
#: PNG download (the buttons under each figure export it, with the view's footer), box and
#: lasso selection (a selection does nothing here), zoom in / out and autoscale (zoom, pan
#: and "reset axes" stay), and the hover and spike-line toggles; fewer buttons cover less
MODEBAR_REMOVED = (
    "toImage",
    "select2d",
    "lasso2d",
    "zoomIn2d",
    "zoomOut2d",
    "autoScale2d",
    "hoverClosestCartesian",
    "hoverCompareCartesian",
    "toggleSpikelines",
)
#: the configuration every chart is drawn with: no plotly logo, a short modebar
CHART_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": list(MODEBAR_REMOVED)}
#: pixels at a chart's top kept for the modebar: it takes the top 29 px (37 px in the
#: presenter mode's larger type) and a title's text box starts ~5 px above its line. The
#: title, a legend placed in pixels and the plot start below, so the modebar covers none of
#: them however long the title
MODEBAR_BAND = 44
#: the gap between a figure's PNG, SVG and CSV buttons (tertiary: their padding spaces them)
DOWNLOAD_GAP = "xsmall"
#: plotly's defaults for a figure that sets no height or top margin
_PLOTLY_HEIGHT, _PLOTLY_MARGIN_TOP = 450, 100


def leave_out_button(column: str, key: str, on_click: Callable, args: tuple, help: str) -> None:
    """The "Leave ``column`` out" button of an upload's or a large file's note."""
    st.button(
        f"Leave {escape(column, limit=40)} out",
        on_click=on_click,
        args=args,
        key=key,
        icon=":material/remove_circle_outline:",
        help=help,
    )


def _image_export_available() -> bool:
    """Whether plotly's kaleido can find a Chromium to export PNG / SVG."""
    if os.environ.get("BROWSER_PATH") and Path(os.environ["BROWSER_PATH"]).exists():
        return True
    names = ("chromium", "chromium-browser", "google-chrome", "chrome")
    return any(shutil.which(name) for name in names)


def _with_footer(fig, footer: str):
    from heb.figures.footer import with_footer

    return with_footer(fig, footer)


def _image_bytes(fig, fmt: str, footer: str = "") -> Callable[[], bytes]:
    """A callable producing the image bytes (``footer`` under the plot) when clicked."""

    def render() -> bytes:
        from heb.figures import to_image_bytes

        return to_image_bytes(_with_footer(fig, footer), fmt=fmt, keep_browser=True)

    return render


def download_buttons(
    fig,
    data_frame: pd.DataFrame | None,
    stem: str,
    footer: str | None = None,
    csv_label: str = "CSV",
    dataset: str | None = None,
) -> None:
    """PNG, SVG and CSV download buttons for a figure and the data behind it (``csv_label``
    names a CSV that is not what is drawn above it, e.g. every fold's rows under a table
    of means; ``dataset`` names the one dataset the data is of, in the file names:
    ``cv-folds-zip-codes.csv``, as the comparison's report and out-of-fold CSV are named).

    The files are produced only when a button is clicked (no cost on a re-render).
    Without a Chromium for the image export, an interactive HTML file is offered instead.
    The CSV has formula-like text neutralised (see :func:`explorer.exports.csv_bytes`).
    Exported figures carry ``footer`` (default: the dataset and settings of the view's URL).
    """
    footer = view_footer() if footer is None else footer
    files = []  # (label, bytes callable, extension, mime, extra arguments)
    if fig is not None and _image_export_available():
        files += [
            ("PNG", _image_bytes(fig, "png", footer), "png", "image/png", {}),
            ("SVG", _image_bytes(fig, "svg", footer), "svg", "image/svg+xml", {}),
        ]
    elif fig is not None:
        files.append(
            (
                "HTML",
                lambda: _with_footer(fig, footer).to_html(include_plotlyjs=True),
                "html",
                "text/html",
                {"help": "PNG / SVG export needs Chromium on the server."},
            )
        )
    if data_frame is not None:
        files.append((csv_label, lambda: csv_bytes(data_frame), "csv", "text/csv", {}))
    # "xsmall": at "small" (1rem, 22 px in the presenter's type) PNG, SVG and CSV took 247 px
    # of a 1024 px presenter's 250 px figure column and CSV wrapped to a row of its own
    row = st.container(horizontal=True, gap=DOWNLOAD_GAP)
    name = f"{stem}-{file_slug(dataset)}" if dataset else stem
    for label, data, ext, mime, extra in files:
        row.download_button(
            label,
            data,
            file_name=f"{name}.{ext}",
            mime=mime,
            key=f"dl_{ext}_{stem}",
            on_click="ignore",
            icon=":material/download:",
            type="tertiary",
            **extra,
        )


def _style(fig) -> None:
    """Projector-sized dark type, applied once per figure object.

    Figures from a shared cache reach several sessions' threads at once: the lock lets one
    style it while the others wait, so none draws (serialises) a half-styled figure.
    """
    with _STYLE_LOCK:
        if not getattr(fig, "_heb_styled", False):
            _apply_style(fig)
            fig._heb_styled = True


def _apply_style(fig) -> None:
    fig.update_layout(
        font={"size": FIGURE_FONT_SIZE, "color": FIGURE_TEXT_COLOR},
        title={"font": {"size": FIGURE_FONT_SIZE + 4}},
    )
    fig.for_each_xaxis(_axis_fonts)
    fig.for_each_yaxis(_axis_fonts)
    _below_modebar(fig)


def _axis_fonts(axis) -> None:
    """An axis's tick labels and title at the app's sizes, or at the figure's own where it
    asks for larger (the Corollary 1 figure's, for a projector): this styling once set
    every axis to these sizes, so a figure could not make its axis text any larger."""
    axis.update(
        tickfont_size=max(FIGURE_FONT_SIZE - 1, axis.tickfont.size or 0),
        title_font_size=max(FIGURE_FONT_SIZE + 1, axis.title.font.size or 0),
    )


def _below_modebar(fig) -> None:
    """Move what sits at the top of ``fig`` (title, a legend placed in pixels, the plot) down
    out of the :data:`MODEBAR_BAND`, which the modebar covers on hover.

    The figure keeps its height: the plot gives up the pixels. A title that plotly places
    itself (the middle of the top margin) is first placed in pixels from the top, as
    :func:`heb.figures.style.frame_title_and_legend` places the others. Idempotent: a figure
    whose top is clear already (a copy of a styled figure) is left as it is.
    """
    from heb.figures.style import frame_title_and_legend

    layout = fig.layout
    title = layout.title
    height = layout.height or _PLOTLY_HEIGHT
    placed = title.yref == "container" and title.yanchor == "top" and title.y is not None
    if title.text and not placed:
        legend = layout.legend.to_plotly_json()  # kept where it was, not under the title
        frame_title_and_legend(fig, title.text, height)
        fig.layout.legend = legend
    legend = layout.legend
    margin_top = layout.margin.t if layout.margin.t is not None else _PLOTLY_MARGIN_TOP
    legend_in_pixels = (
        legend.yref == "container" and legend.yanchor == "top" and legend.y is not None
    )
    # pixels from the figure's top to the plot, the title's first line, the legend
    tops = [margin_top]
    if title.text:
        tops.append(title.pad.t or 0)
    if legend_in_pixels:
        tops.append((1.0 - legend.y) * height)
    drop = round(MODEBAR_BAND - min(tops))
    if drop <= 0:
        return
    moved = {"margin_t": margin_top + drop}
    if title.text:
        moved["title_pad_t"] = (title.pad.t or 0) + drop
    if legend_in_pixels:
        moved["legend_y"] = legend.y - drop / height
    fig.update_layout(**moved)


def min_width_style(key: str, width: int) -> str:
    """CSS that keeps the chart of Streamlit key ``key`` at least ``width`` pixels wide,
    scrolling sideways in a narrower column (a phone's 356 px), instead of squeezing it.

    For a figure whose labels sit in margins of fixed pixels: the critical-difference
    diagram's method labels took 330 of a phone's 356 px and left its rank axis 26 px,
    the numbers 1 to 5 printed over each other."""
    frame = f'.st-key-{key} > [data-testid="stFullScreenFrame"]'
    return (
        f"<style>.st-key-{key} {{ overflow-x: auto; }} "
        f"{frame} {{ min-width: {int(width)}px; }}</style>"
    )


def show_figure(
    fig,
    data_frame: pd.DataFrame | None,
    stem: str,
    key: str | None = None,
    footer: str | None = None,
    min_width: int | None = None,
) -> None:
    """Plot a figure in projector-sized dark type, with its PNG / SVG / CSV downloads.

    The modebar offers zoom, pan and "reset axes" (:data:`CHART_CONFIG`) in a band at the
    top that the title and plot leave free (:data:`MODEBAR_BAND`).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Drawn with its own template (not Streamlit's theme), so the PNG / SVG download
        looks exactly like the screen.
    data_frame : DataFrame or None
        The numbers behind the figure, offered as CSV; None offers no CSV.
    stem : str
        File name of the downloads without extension (``stem.png``, ``stem.csv``); also
        the widget keys, so unique on a page.
    key : str, optional
        Streamlit key of the chart; default ``fig_<stem>``.
    footer : str, optional
        The exported figures' footer; default the view's URL settings
        (:func:`explorer.report.view_footer`).
    min_width : int, optional
        Pixels the chart keeps in a narrower column, which then scrolls sideways
        (:func:`min_width_style`); default none, the chart takes the column's width.
    """
    _style(fig)
    key = key or f"fig_{stem}"
    if min_width:
        st.html(min_width_style(key, min_width))
    st.plotly_chart(fig, key=key, theme=None, config=CHART_CONFIG)
    download_buttons(fig, data_frame, stem, footer)


#: the most rows a table shows as a plain table in the presenter mode (longer ones keep
#: the scrolling grid)
PRESENTER_TABLE_ROWS = 30
#: the most rows a grid shows whole, as tall as its rows; a longer one scrolls in the
#: grid's default height (ten rows). Streamlit's default hid the rows of a 13-method
#: Compare table and a 16-pair Concentrations table past the tenth behind a scroll.
WHOLE_TABLE_ROWS = 25


def show_table(
    frame: pd.DataFrame,
    style: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    number_format: str | Callable[[float], str] | dict | None = None,
    grid_config: dict | None = None,
    **kwargs,
) -> None:
    """``st.dataframe`` of ``frame`` with every text cell and label capped for the browser.

    Parameters
    ----------
    frame : DataFrame
    style : callable, optional
        A pandas Styler function over the whole (capped) frame (``Styler.apply(axis=None)``),
        returning CSS per cell.
    number_format : str, callable or dict, optional
        A Styler format: for every cell (``"{:.4f}"``, a function) or per column (a dict);
        the cells keep their numbers (a column sorts by them), in the grid and the
        presenter's table alike.
    grid_config : dict, optional
        Column settings of the grid only: dropped in the presenter mode, which then draws
        the table in its large type (``column_config`` keeps the grid there).
    **kwargs
        Go to :func:`streamlit.dataframe` (``hide_index`` defaults to True; ``height`` to
        ``"content"`` for at most :data:`WHOLE_TABLE_ROWS` rows).
    """
    kwargs.setdefault("hide_index", True)
    if grid_config is not None and not presenting():
        kwargs["column_config"] = grid_config
    if len(frame) <= WHOLE_TABLE_ROWS:
        kwargs.setdefault("height", "content")
    shown = cap_cells(frame)
    if style is not None or number_format is not None:
        styler = shown.style
        if style is not None:
            styler = styler.apply(style, axis=None)
        if number_format is not None:
            styler = styler.format(number_format)
        shown = styler
    if presenting() and len(frame) <= PRESENTER_TABLE_ROWS and "column_config" not in kwargs:
        # a projector needs large type: the grid draws its cells in a fixed small font
        # (and the Styler's best cells large), an HTML table follows the presenter's type
        st.table(shown, hide_index=kwargs["hide_index"])
        return
    st.dataframe(shown, **kwargs)


#: a feature table's missing share: a bar with its percentage (the in-memory and the
#: large-file Dataset pages), always with two decimals: Streamlit's percent format keeps
#: the step's decimals less two (without a step it showed "0%" beside "10.05%")
MISSING_SHARE_COLUMN = st.column_config.ProgressColumn(
    "missing",
    help="Share of the rows where the feature is missing.",
    format="percent",
    min_value=0.0,
    max_value=1.0,
    step=0.0001,
    width=100,
)


def show_id_like_warnings(notes: list[str], key: str) -> None:
    """A warning per ID-like column whose missing rows imputing the mode piles into one ID
    (:func:`explorer.summaries.id_like_note`), and the one-click remedy under them."""
    for note in notes:
        show_warning(note)
    if notes:
        st.button(
            "Missing as its own category",
            on_click=missing_as_category,
            key=key,
            icon=":material/category:",
            help="The Preprocessing choice below, for every page.",
        )
