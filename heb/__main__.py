"""``python -m heb``: the headless command line (see :mod:`heb.cli`).

Ctrl-C while the command line's libraries load (numpy, scipy, scikit-learn: a second or
more) is the one line and exit code 130 that :func:`heb.cli.main` gives later, not the
traceback of whichever import it stopped.
"""

import signal
import sys

try:
    from heb.cli import main
except KeyboardInterrupt:
    print("heb: Interrupted.", file=sys.stderr)
    raise SystemExit(128 + signal.SIGINT) from None

raise SystemExit(main())
