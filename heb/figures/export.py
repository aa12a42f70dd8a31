"""Static export of any figure to PNG or SVG bytes (kaleido driving Debian's Chromium)."""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["to_image_bytes"]


def to_image_bytes(
    fig: go.Figure,
    fmt: str = "png",
    width: int | None = None,
    height: int | None = None,
    scale: float = 2,
) -> bytes:
    """Render a figure to PNG or SVG bytes through kaleido and Chromium.

    Parameters
    ----------
    fig : go.Figure
    fmt : {"png", "svg"}
    width, height : int, optional
        Pixels; default the figure's own size (plotly's 700 x 500 when unset).
    scale : float
        Resolution multiplier for PNG.

    Raises
    ------
    RuntimeError
        When kaleido or a Chromium browser is unavailable; offer an HTML download then.
    """
    if fmt not in ("png", "svg"):
        raise ValueError(f"fmt must be 'png' or 'svg', got {fmt!r}.")
    try:
        import kaleido  # noqa: F401  (plotly uses it; imported here to fail clearly)
    except ImportError as exc:
        raise RuntimeError(
            "Static export needs Chromium and the kaleido package, which is not installed; "
            "download the interactive HTML instead."
        ) from exc
    try:
        return fig.to_image(format=fmt, width=width, height=height, scale=scale)
    except Exception as exc:  # kaleido / choreographer raise many types when no browser
        reason = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
        raise RuntimeError(
            "Static export needs Chromium (set BROWSER_PATH to its binary) and kaleido; "
            f"download the interactive HTML instead. ({type(exc).__name__}: {reason})"
        ) from exc
