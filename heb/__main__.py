"""``python -m heb``: the headless command line (see :mod:`heb.cli`)."""

from heb.cli import main

raise SystemExit(main())
