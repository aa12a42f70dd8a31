"""Break the long lines of generated Python inside their brackets, as a formatter would.

A "Show code" box is as wide as the page: a line of 120 characters (a list of seven
methods, an uploaded file's name, a settings call with what-if overrides) ran past it and
had to be scrolled to be read. :func:`wrap_long_lines` moves what the widest bracket of
such a line holds onto a line of its own, or where that is still too long, each of its
top-level items onto its own line, recursively, so that every line fits ``width`` wherever
a bracket allows it; the program is the same (its syntax tree does not change). A line with
no bracket to break (one long string) is left as it is.
"""

from __future__ import annotations

import io
import tokenize

__all__ = ["CODE_WIDTH", "wrap_long_lines"]

#: the widest line a "Show code" box shows without scrolling on a 1280 px page
CODE_WIDTH = 80
_INDENT = "    "
_OPENING = {"(": ")", "[": "]", "{": "}"}


def wrap_long_lines(code: str, width: int = CODE_WIDTH) -> str:
    """``code`` with each line longer than ``width`` broken inside its brackets.

    Parameters
    ----------
    code : str
        Python source, one simple statement (or a block's header) per line.
    width : int
        The longest line wanted.

    Returns
    -------
    str
        The same program: every line within ``width`` where a bracket can be broken.
    """
    lines: list[str] = []
    for line in code.split("\n"):
        lines.extend(_wrapped(line, width))
    return "\n".join(lines)


def _wrapped(line: str, width: int) -> list[str]:
    """One line as one or more lines within ``width`` (as far as its brackets allow)."""
    if len(line) <= width:
        return [line]
    indent = line[: len(line) - len(line.lstrip())]
    stripped = line.strip()
    if stripped.startswith("from ") and " import " in stripped and "(" not in stripped:
        head, names = stripped.split(" import ", 1)
        items = [name.strip() for name in names.split(",")]
        inside = f"{indent}{_INDENT}{', '.join(items)},"
        body = [inside] if len(inside) <= width else _items(items, indent, width)
        return [f"{indent}{head} import (", *body, f"{indent})"]
    span = _widest_bracket(line)
    if span is None:
        return [line]
    start, end = span  # the opening bracket's index and its closing bracket's
    items = _top_level_items(line[start + 1 : end])
    head, tail = line[: start + 1], indent + line[end:]
    inside = indent + _INDENT + line[start + 1 : end].strip()
    if len(inside) <= width:  # all it holds on one line of its own
        return [head, inside, tail]
    if len(items) == 1:
        return [head, *_wrapped(inside, width), tail]
    return [head, *_items(items, indent, width), tail]


def _items(items: list[str], indent: str, width: int) -> list[str]:
    """Each item on its own line one level in, with a trailing comma."""
    lines: list[str] = []
    for item in items:
        lines.extend(_wrapped(f"{indent}{_INDENT}{item},", width))
    return lines


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    """The tokens of one line of code, or none where it does not tokenize on its own."""
    try:
        return [
            t
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)
        ]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []


def _widest_bracket(line: str) -> tuple[int, int] | None:
    """The outermost bracket pair of ``line`` with the most text between its brackets."""
    stack: list[tuple[str, int]] = []
    best: tuple[int, int] | None = None
    for token in _tokens(line):
        if token.type != tokenize.OP:
            continue
        column = token.start[1]
        if token.string in _OPENING:
            stack.append((token.string, column))
        elif token.string in _OPENING.values():
            if not stack or _OPENING[stack[-1][0]] != token.string:
                return None
            _, start = stack.pop()
            inner = column - start - 1
            if not stack and inner > 0 and (best is None or inner > best[1] - best[0] - 1):
                best = (start, column)
    return None if stack else best


def _top_level_items(inner: str) -> list[str]:
    """``inner`` split at its commas outside any bracket or string, items stripped (a
    trailing comma adds no item)."""
    depth, cuts = 0, []
    for token in _tokens(inner):
        if token.type != tokenize.OP:
            continue
        if token.string in _OPENING:
            depth += 1
        elif token.string in _OPENING.values():
            depth -= 1
        elif token.string == "," and depth == 0:
            cuts.append(token.start[1])
    pieces, previous = [], 0
    for cut in cuts:
        pieces.append(inner[previous:cut])
        previous = cut + 1
    pieces.append(inner[previous:])
    return [piece.strip() for piece in pieces if piece.strip()]
