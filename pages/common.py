"""Transitional: the app's helpers moved to the :mod:`explorer` package.

Kept only for the lesson pages that still import ``pages.common``; delete this file once
they import :mod:`explorer` (``explorer.routing.ensure_entry_point``,
``explorer.state.init_state``, ``explorer.loading.current_codes``) directly.
"""

from explorer.display import download_buttons, show_figure
from explorer.loading import current_codes
from explorer.routing import ensure_entry_point
from explorer.state import init_state

__all__ = ["current_codes", "download_buttons", "ensure_entry_point", "init_state", "show_figure"]
