"""HEB Explorer: the Streamlit entry point.

Run ``python -m streamlit run app.py``. This file only routes: :func:`explorer.routing.route`
sets the page config and the ``st.navigation`` menu first (before any slow import), then
:func:`explorer.routing.draw_shell` adds the style and the shared sidebar (dataset,
methods; mirrored in the URL), and the chosen page from ``pages/`` runs here, under a
"Loading ..." note while a page's first run is slow. Every helper lives in the
:mod:`explorer` package. With ``HEB_RUN_TIMES`` set, each run's server time is logged
(:mod:`explorer.run_timing`).
"""

from __future__ import annotations

from explorer.routing import draw_shell, loading_note, route
from explorer.run_timing import record_run

with record_run() as run:
    page = route()
    run.page = page.url_path
    with loading_note(page):
        draw_shell(page)
        page.run()
