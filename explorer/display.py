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

from explorer.exports import cap_cells, csv_bytes
from explorer.report import view_footer

__all__ = [
    "FIGURE_FONT_SIZE",
    "FIGURE_TEXT_COLOR",
    "download_buttons",
    "show_figure",
    "show_table",
]

#: projector-friendly font size of every figure (pixels)
FIGURE_FONT_SIZE = 16
FIGURE_TEXT_COLOR = "#1a1a1a"
#: one figure is styled by one thread at a time (see :func:`_style`)
_STYLE_LOCK = threading.Lock()


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

        return to_image_bytes(_with_footer(fig, footer), fmt=fmt)

    return render


def download_buttons(
    fig, data_frame: pd.DataFrame | None, stem: str, footer: str | None = None
) -> None:
    """PNG, SVG and CSV download buttons for a figure and the data behind it.

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
        files.append(("CSV", lambda: csv_bytes(data_frame), "csv", "text/csv", {}))
    row = st.container(horizontal=True, gap="small")
    for label, data, ext, mime, extra in files:
        row.download_button(
            label,
            data,
            file_name=f"{stem}.{ext}",
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
    axis_fonts = {
        "tickfont": {"size": FIGURE_FONT_SIZE - 1},
        "title_font": {"size": FIGURE_FONT_SIZE + 1},
    }
    fig.update_xaxes(**axis_fonts)
    fig.update_yaxes(**axis_fonts)


def show_figure(fig, data_frame: pd.DataFrame | None, stem: str, key: str | None = None) -> None:
    """Plot a figure in projector-sized dark type, with its PNG / SVG / CSV downloads.

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
    """
    _style(fig)
    st.plotly_chart(fig, key=key or f"fig_{stem}", theme=None, config={"displaylogo": False})
    download_buttons(fig, data_frame, stem)


def show_table(
    frame: pd.DataFrame,
    style: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    number_format: str | None = None,
    **kwargs,
) -> None:
    """``st.dataframe`` of ``frame`` with every text cell and label capped for the browser.

    Parameters
    ----------
    frame : DataFrame
    style : callable, optional
        A pandas Styler function over the whole (capped) frame (``Styler.apply(axis=None)``),
        returning CSS per cell.
    number_format : str, optional
        A Styler format for every cell, e.g. ``"{:.4f}"``.
    **kwargs
        Go to :func:`streamlit.dataframe` (``hide_index`` defaults to True).
    """
    kwargs.setdefault("hide_index", True)
    shown = cap_cells(frame)
    if style is not None or number_format is not None:
        styler = shown.style
        if style is not None:
            styler = styler.apply(style, axis=None)
        if number_format is not None:
            styler = styler.format(number_format)
        shown = styler
    st.dataframe(shown, **kwargs)
