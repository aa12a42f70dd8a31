"""Static export of any figure to PNG or SVG bytes (kaleido driving Debian's Chromium)."""

from __future__ import annotations

import threading
import warnings

import plotly.graph_objects as go

__all__ = ["to_image_bytes"]

#: one export at a time: kaleido's kept browser answers its requests in turn, from one
#: queue that two threads asking at once would mix up
_EXPORT_LOCK = threading.Lock()
#: tries of one export: the second in a browser of its own (see :func:`to_image_bytes`)
EXPORT_ATTEMPTS = 2


def _kept_browser():
    """kaleido's process-wide server (its kept browser), or None where kaleido lacks it."""
    import kaleido

    return getattr(kaleido, "_global_server", None)


def _keep_browser() -> threading.Thread | None:
    """Keep kaleido's browser running for the next exports of this process: starting
    Chromium is about 2 s of every export, the export itself about 0.15 s. Returns the
    thread warming the browser up when it was started here."""
    import kaleido

    server = _kept_browser()
    if server is not None and not server.is_running():
        kaleido.start_sync_server(silence_warnings=True)
        # its first export loads plotly into the page (about 0.6 s): done now, out of sight,
        # so that the user's next export is the 0.2 s one
        warm_up = threading.Thread(target=_warm_up, daemon=True, name="heb-export-warm-up")
        warm_up.start()
        return warm_up
    return None


def _warm_up() -> None:
    """Export a blank figure through the kept browser (after the export holding the lock)."""
    with _EXPORT_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            go.Figure().to_image(format="png", width=10, height=10)
        except Exception:  # noqa: S110  (a real export reports a broken browser itself)
            pass


def _close_kept_browser(only_if_dead: bool = False) -> None:
    """Close the kept browser, if one runs (``only_if_dead``: only when its thread has
    ended, Chromium gone, as its queue would then wait for an answer forever); the next
    export starts afresh."""
    server = _kept_browser()
    if server is None or not server.is_running():
        return
    thread = getattr(server, "_thread", None)
    if not only_if_dead or (thread is not None and not thread.is_alive()):
        server.close(silence_warnings=True)


def to_image_bytes(
    fig: go.Figure,
    fmt: str = "png",
    width: int | None = None,
    height: int | None = None,
    scale: float = 2,
    keep_browser: bool = False,
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
    keep_browser : bool
        Keep kaleido's Chromium running after a successful export, for the next exports of
        this process (the app and the CLI: about 0.15 s each instead of 2 s); it stops when
        the process ends.

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
    with _EXPORT_LOCK:
        _close_kept_browser(only_if_dead=True)
        for attempt in range(EXPORT_ATTEMPTS):
            try:
                with warnings.catch_warnings():  # plotly's browser options do not apply to
                    warnings.simplefilter("ignore", UserWarning)  # a kept browser: it warns
                    image = fig.to_image(format=fmt, width=width, height=height, scale=scale)
                break
            except Exception as exc:  # kaleido / choreographer raise many types
                # a loaded machine can ask a browser's page before its script is ready
                # ("kaleido_scopes is not defined"): once more, in a browser of its own
                _close_kept_browser()
                if attempt + 1 < EXPORT_ATTEMPTS:
                    continue
                reason = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), "")
                raise RuntimeError(
                    "Static export needs Chromium (set BROWSER_PATH to its binary) and "
                    f"kaleido; download the interactive HTML instead. ({type(exc).__name__}: "
                    f"{reason})"
                ) from exc
        if keep_browser:  # only once an export has shown that Chromium works
            _keep_browser()
        return image
