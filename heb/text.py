"""Words for messages and captions, shared by the engine's errors, the lessons and the app."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["and_list", "first_sentence", "short_labels", "shorten"]


def and_list(items: Sequence[str], word: str = "and") -> str:
    """``items`` as prose: "a", "a and b", "a, b and c" (``word`` "or": "a, b or c")."""
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {word} {items[-1]}"


def shorten(text: str, limit: int) -> str:
    """``text``, cut to ``limit`` characters with "…" as its last when longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def first_sentence(error: BaseException) -> str:
    """An error's first sentence (its type's name when it has no message), for a one-line
    note that names what failed."""
    text = str(error).strip() or type(error).__name__
    head, dot, _ = text.partition(". ")
    return head + "." if dot else text


def short_labels(texts: Sequence[str], limit: int) -> list[str]:
    """Each of ``texts`` cut by :func:`shorten`, the cut ones kept apart by " (2)", " (3)"...
    (a figure's category axis would draw two labels alike as one row of bars)."""
    labels: list[str] = []
    taken: set[str] = set()
    for text in texts:
        cut = label = shorten(text, limit)
        copy = 1
        while label in taken:
            copy += 1
            label = f"{cut} ({copy})"
        labels.append(label)
        taken.add(label)
    return labels


def case_variant_clause(name: str, names: Sequence[str]) -> str:
    """A clause naming the ``names`` that differ from ``name`` in letter case only, for a
    "no column named ..." message (``' ('achat' differs in letter case only)'``), or ""."""
    close = [repr(str(n)) for n in names if str(n) != name and str(n).casefold() == name.casefold()]
    if not close:
        return ""
    verb = "differs" if len(close) == 1 else "differ"
    return f" ({and_list(close)} {verb} in letter case only)"
