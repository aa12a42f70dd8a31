"""What the command line prints to a terminal: the user's text (a file's name, a column's)
with its control characters shown as escapes, so an ESC in a file name cannot recolour,
clear or retitle the terminal. Output to a file or a pipe is left as written."""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator

__all__ = ["terminal_safe", "terminal_safe_streams"]

#: C0 controls but tab and newline, DEL and the C1 controls (ESC and CSI among them)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """``text`` with each control character (but tab and newline) as a visible escape."""
    return _CONTROL.sub(lambda match: repr(match.group())[1:-1], text)


class _SafeStream:
    """A text stream that writes :func:`terminal_safe` text to ``stream``."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(terminal_safe(text))
        return len(text)

    def __getattr__(self, name):  # flush, isatty, encoding, fileno ...
        return getattr(self._stream, name)


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or odd stream
        return False


@contextlib.contextmanager
def terminal_safe_streams() -> Iterator[None]:
    """Within: ``sys.stdout`` and ``sys.stderr``, where they are terminals, write
    :func:`terminal_safe` text; put back after."""
    saved = sys.stdout, sys.stderr
    if _is_terminal(sys.stdout):
        sys.stdout = _SafeStream(sys.stdout)
    if _is_terminal(sys.stderr):
        sys.stderr = _SafeStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
