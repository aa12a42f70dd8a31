"""``--param METHOD:NAME=VALUE``: a method's what-if value on the command line.

Compare's what-if controls fit a smoother at another value of its one parameter
(Lidstone's alpha, m-estimate's m, TE's k0...); ``heb bench --methods`` and ``heb fit``
take the same values with this option, checked before any work as the page checks them.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from heb import registry

__all__ = [
    "PARAM_EXAMPLE",
    "add_param_option",
    "param_labels",
    "param_notes",
    "param_overrides",
    "param_words",
]

#: the option's example, in its help and its messages
PARAM_EXAMPLE = "m-estimate:m=20"


def add_param_option(parser: argparse.ArgumentParser, what: str) -> None:
    """Add the repeatable ``--param`` option to ``parser`` (``what``: where it applies)."""
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="METHOD:NAME=VALUE",
        help=f"a what-if value of a method's parameter, as Compare's controls set it, for "
        f"{what} (e.g. {PARAM_EXAMPLE}, lidstone:alpha=0.5); repeatable, one per method",
    )


def param_overrides(values: Sequence[str], methods: Sequence[str]) -> dict[str, dict[str, float]]:
    """The ``--param`` values as per-method overrides (``{"m-estimate": {"m": 20.0}}``).

    Raises
    ------
    ValueError
        A value not written METHOD:NAME=VALUE, a method not among ``methods`` (registry
        names) or without a parameter, another parameter's name, a value that is not a
        number or lies outside the parameter's range; one sentence naming the option.
    """
    out: dict[str, dict[str, float]] = {}
    for text in values:
        method, sep, assignment = text.partition(":")
        name, eq, value = assignment.partition("=")
        method, name, value = method.strip(), name.strip(), value.strip()
        if not (sep and eq and method and name and value):
            raise ValueError(
                f"--param reads METHOD:NAME=VALUE (e.g. {PARAM_EXAMPLE}), not {text!r}."
            )
        try:
            label = registry.resolve_method_name(method)
        except ValueError as exc:
            raise ValueError(f"--param {text!r}: {exc}") from None
        if label not in methods:
            raise ValueError(
                f"--param {text!r}: {label} is not among the methods run ({', '.join(methods)})."
            )
        knob = registry.method(label).knob
        if knob is None:
            raise ValueError(f"--param {text!r}: {label} takes no parameter.")
        if name.lower() != knob.name.lower():
            raise ValueError(f"--param {text!r}: {label}'s parameter is {knob.name}, not {name}.")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(
                f"--param {text!r}: {knob.name} must be a number, not {value!r}."
            ) from None
        out.setdefault(label, {})[knob.name] = knob.check(number, f"--param {label}")
    return out


def _number(value: float) -> str:
    """``value`` as short text that reads back as itself (20, 0.5; else its repr)."""
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))


def param_words(overrides: dict[str, dict[str, float]]) -> list[str]:
    """The ``--param`` options that give ``overrides`` back (sorted, one per value)."""
    words = []
    for method, values in sorted(overrides.items()):
        for name, value in sorted(values.items()):
            words += ["--param", f"{method}:{name}={_number(value)}"]
    return words


def param_notes(overrides: dict[str, dict[str, float]]) -> list[str]:
    """A line per ``--param`` value: the method runs at it, not at its default (the
    tables name the method alone)."""
    lines = []
    for method, values in sorted(overrides.items()):
        knob = registry.method(method).knob
        for value in values.values():
            lines.append(
                f"{method} runs at {knob.name} = {value:g} (--param), not its default "
                f"{knob.default:g}."
            )
    return lines


def param_labels(overrides: dict[str, dict[str, float]]) -> dict[str, str]:
    """Each method run at a ``--param`` value -> its name in the outputs, with the value
    (``"m-estimate (m = 20)"``): every output names the value, where the tables said
    "Lidstone (α=0.1, default)" of a run at alpha = 0.5. None given: none."""
    return {
        method: f"{method} ({', '.join(f'{k} = {_number(v)}' for k, v in sorted(values.items()))})"
        for method, values in overrides.items()
    }
