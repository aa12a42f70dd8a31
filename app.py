"""HEB Explorer: the Streamlit entry point.

Run ``python -m streamlit run app.py``. This file only routes: :func:`explorer.routing.app_shell`
sets the page config (once), the style, the ``st.navigation`` menu and the shared sidebar
(dataset, methods; mirrored in the URL), and returns the chosen page from ``pages/``,
which runs here. Every helper lives in the :mod:`explorer` package. With
``HEB_RUN_TIMES`` set, each run's server time is logged (:mod:`explorer.run_timing`).
"""

from __future__ import annotations

from explorer.routing import app_shell
from explorer.run_timing import record_run

with record_run() as run:
    page = app_shell()
    run.page = page.url_path
    page.run()
