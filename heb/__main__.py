"""``python -m heb`` and the installed ``heb`` command: the headless command line (see
:mod:`heb.cli`).

Ctrl-C while the command line's libraries load (numpy, scipy, scikit-learn: a second or
more) is the one line and exit code 130 that :func:`heb.cli.main` gives later, not the
traceback of whichever import it stopped; so the installed command starts here too.
"""

import signal
import sys


def run() -> int:
    """Import the command line and run it; Ctrl-C during the import is one line, 130."""
    try:
        from heb.cli import main
    except KeyboardInterrupt:
        print("heb: Interrupted.", file=sys.stderr)
        return 128 + signal.SIGINT
    return main()


if __name__ == "__main__":
    raise SystemExit(run())
