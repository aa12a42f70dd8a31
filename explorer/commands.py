"""The ``heb bench`` command that reruns a comparison of the app on the command line.

Compare's "Show code" box gives the Python that reruns the page; an analyst who wants the
same table from a shell (a script, a cluster's scheduler, a larger machine) needs the
command instead, with the dataset, methods and every setting of the page. Every user value
(a file name, a column, a declared hierarchy) is quoted for a POSIX shell by
:func:`shlex.quote`, so none can end its word or start another command. What the command
line cannot say is said beside the command, never silently dropped: a what-if value (the
command runs that method's default), a column without a name, which ``--categorical`` /
``--drop`` cannot give (a name holding a comma is quoted: :mod:`heb.cli_columns`), a
hierarchy ``--hierarchy`` cannot type.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import streamlit as st

from explorer.benchmarking import has_target
from explorer.errors import escape
from explorer.lazy_sections import lazy_expander
from heb.cli_columns import column_list
from heb.cli_hierarchies import reads_back_as_column
from heb.cli_params import param_words
from heb.evaluate import RunSettings
from heb.evaluate.hierarchy_specs import (
    Declared,
    command_line_options,
    parse_hierarchies,
    takes_hierarchies,
    untypable,
)
from heb.scale.source import DATA_ROOT_ENV

__all__ = [
    "FIT_RUNS",
    "draw_fit_command",
    "fit_command",
    "UNTYPABLE",
    "UNTYPABLE_FIT",
    "BenchCommand",
    "bench_command",
    "benchmark_command",
    "draw_command",
    "large_bench_command",
    "show_benchmark_command",
    "show_command",
    "show_large_command",
]

#: the widest line of a command box (as :data:`explorer.code_lines.CODE_WIDTH`)
COMMAND_WIDTH = 80
#: ``heb bench``'s defaults (heb.cli): an option equal to its default is left out
_DEFAULTS = RunSettings()

#: where the command runs, said under it
WHERE_IT_RUNS = (
    "Runs at the root of a HEB Explorer clone (or anywhere as `heb bench ...` after "
    "`pip install .` of the clone); it prints the methods' mean ± sd table and writes it "
    "to `./results` (`-o` for another folder)."
)
#: said of a declaration ``--hierarchy`` cannot type (a column name holding '->' or
#: beginning 'prefix'): RunSettings(hierarchies=...) takes it
UNTYPABLE = (
    "{}: its column names cannot be typed for --hierarchy (a name holding '->' or beginning "
    "'prefix'); in Python, RunSettings(hierarchies=...) takes it (Compare's code shows how)."
)
#: the same, under Explain's ``heb fit`` command: its own code fits the model with it
UNTYPABLE_FIT = (
    "{}: its column names cannot be typed for --hierarchy (a name holding '->' or beginning "
    "'prefix'); in Python, this page's code fits HEB-H with it (Show code, below)."
)
#: said of a declaration the page leaves out (a column left out or not there, the target, a
#: prefix of binned numbers): heb bench and heb fit refuse it, so the command leaves it out
#: too (the last field: the command's name, bench or fit)
LEFT_OUT = "{}: left out of the command as the page leaves it out ({}); heb {} refuses it."
#: said of an upload: the command names the file as uploaded
UPLOAD_PATH = "Write the file's path for {name} where it is not in the folder you run this from."
#: said of a large file: its name is under the app's data root, and the command runs at the
#: clone's root (``python -m heb`` finds heb in the data root only once it is installed);
#: the variable, right before the quoted name, makes one word of the file's path
LARGE_PATH = (
    "The file is named as under the app's data root: at the clone's root, write "
    '"${variable}"/ right before its name (in a shell where {variable} is set as for the '
    "app), or its path; in the data root itself, python -m heb runs only once pip install . "
    "of the clone has installed heb."
)
#: what the command does with the column without a name, in memory and on a large file
#: (which has no Python code on the page to fall back on)
UNNAMED_IN_MEMORY = "in Python, load_dataset names every column (Compare's code shows how)"
UNNAMED_LARGE = (
    "the command {does}, so its numbers can differ from the page's; renamed in the file, "
    "it can be named"
)


@dataclass(frozen=True)
class BenchCommand:
    """A ``python -m heb bench`` command and what it cannot carry.

    Attributes
    ----------
    words : tuple of str
        The command's words, unquoted (``shlex.split`` of :attr:`text` gives them back).
    notes : tuple of str
        Plain sentences (not markdown): each a setting of the page the command leaves out.
    """

    words: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())

    @property
    def text(self) -> str:
        """The command for a shell: every word quoted, lines broken with ``\\`` before an
        option once a line would pass :data:`COMMAND_WIDTH`."""
        return _broken([shlex.quote(word) for word in self.words])


def _broken(quoted: Sequence[str]) -> str:
    """Quoted words as lines of at most :data:`COMMAND_WIDTH` where possible, continued
    with a backslash and indented: a break comes between words, never between an option
    and its value (``--methods Laplace,KT``; ``-m heb``), so a long list of datasets
    wraps too."""
    groups: list[str] = []
    takes_value = False  # the last group is an option waiting for its value
    for word in quoted:
        if takes_value:
            groups[-1] += " " + word
            takes_value = False
        else:
            groups.append(word)
            takes_value = word.startswith("-") and "=" not in word
    lines = [groups[0]]
    for group in groups[1:]:
        if len(lines[-1]) + 1 + len(group) + 2 <= COMMAND_WIDTH:
            lines[-1] += " " + group
        else:
            lines.append("  " + group)
    return " \\\n".join(lines)


def _file_word(name: str) -> str:
    """A file name as ``heb bench`` reads it as that file: ``./`` before a name it would
    read otherwise (an option's ``-``, a home folder's ``~``, a dataset spec's ``:``, a
    dataset name such as ``car``, which has no suffix)."""
    misread = name.startswith(("-", "~")) or ":" in name or "." not in name
    return f"./{name}" if misread else name


def _option(option: str, value: str) -> list[str]:
    """``[option, value]``, or ``[option=value]`` for a value argparse would read as an
    option of its own (a column named ``-x``)."""
    return [f"{option}={value}"] if value.startswith("-") else [option, value]


def _typable_column(name: str) -> bool:
    """Whether ``--categorical`` / ``--drop`` can name the column ``name``: every name but
    an empty one (:func:`heb.cli_hierarchies.reads_back_as_column`)."""
    return reads_back_as_column(name)


#: what a large file's command does with the column without a name ``option`` cannot give
_UNNAMED_DOES = {"--categorical": "bins it as numbers", "--drop": "keeps it as a feature"}


def _column_options(
    option: str, names: Sequence[str], notes: list[str], large: bool = False
) -> list[str]:
    """``[option, '"a,b",c']`` naming the columns, sorted, as the option reads them back
    (:func:`heb.cli_columns.column_list` quotes a name holding a comma); a note on a
    column without a name, which no option can give, and, for a ``large`` file (no Python
    code on its page), what the command does with it."""
    typable = sorted(n for n in names if _typable_column(n))
    if len(typable) < len(names):
        then = UNNAMED_LARGE.format(does=_UNNAMED_DOES[option]) if large else UNNAMED_IN_MEMORY
        notes.append(f"'' cannot be typed for {option} (a column without a name); {then}.")
    return _option(option, column_list(typable)) if typable else []


def _file_options(
    target: str | None,
    categorical: Sequence[str],
    dropped: Sequence[str],
    notes: list[str],
    large: bool = False,
) -> list[str]:
    """A data file's ``--target`` (where one is chosen), ``--categorical`` and ``--drop``;
    what they cannot name goes to ``notes`` (:func:`_column_options`)."""
    words = _option("--target", str(target)) if target else []
    words += _column_options("--categorical", categorical, notes, large)
    words += _column_options("--drop", dropped, notes, large)
    return words


def _param_options(settings: RunSettings, methods: Sequence[str]) -> list[str]:
    """The ``--param`` options of the chosen methods' what-if values (none at defaults)."""
    return param_words({m: p for m, p in settings.params().items() if m in methods})


def _reading_options(settings: RunSettings) -> list[str]:
    """Bins and missing values, where they differ from the command line's defaults."""
    words = []
    if settings.n_bins != _DEFAULTS.n_bins:
        words += ["--n-bins", str(settings.n_bins)]
    if settings.missing != _DEFAULTS.missing:
        words += ["--missing", settings.missing]
    return words


def _settings_options(settings: RunSettings, in_memory: bool) -> list[str]:
    """Folds, seed, bins, missing values and (in memory) the row cap, where they differ
    from ``heb bench``'s defaults."""
    words = ["--folds", str(settings.n_splits)]
    if settings.seed != _DEFAULTS.seed:
        words += ["--seed", str(settings.seed)]
    words += _reading_options(settings)
    if in_memory and (settings.max_rows or 0) != _DEFAULTS.max_rows:
        words += ["--max-rows", str(settings.max_rows or 0)]
    return words


def bench_command(
    spec: str,
    upload: dict | None,
    methods: Sequence[str],
    settings: RunSettings,
    left_out: Mapping[Declared, str] | None = None,
) -> BenchCommand:
    """The command that reruns an in-memory comparison: Compare's table on the command line.

    Parameters
    ----------
    spec : str
        The dataset's spec (``builtin:zip-codes``, ``shared:car``, ``openml:31``), used
        unless ``upload`` is given.
    upload : dict or None
        An upload's record (``filename``, ``target``, ``categorical``, ``drop``).
    methods : sequence of str
        The methods compared (registry names).
    settings : RunSettings
        The run's settings: folds, seed, bins, missing values, row cap, what-ifs and
        declared hierarchies (given only where a method reads them).
    left_out : mapping of Declared to str, optional
        The declarations the page leaves out on this data, each with the page's note on
        it (:func:`explorer.hierarchies.left_out`): ``heb bench`` refuses them, so the
        command leaves them out too and says so.
    """
    notes: list[str] = []
    words = _data_words(spec, upload, notes)
    words += ["--methods", ",".join(methods), *_param_options(settings, methods)]
    words += _settings_options(settings, True)
    if any(takes_hierarchies(m) for m in methods):
        words += _hierarchy_options(settings, left_out, notes, "bench")
    return BenchCommand(("python", "-m", "heb", "bench", *words), tuple(notes))


def _data_words(spec: str, upload: dict | None, notes: list[str]) -> list[str]:
    """The data argument and, for an upload, its file options (``notes`` gets what they
    cannot carry and where the file must be)."""
    if upload is None:
        return [spec]
    words = [_file_word(str(upload["filename"]))]
    words += _file_options(
        upload.get("target"), upload.get("categorical") or (), upload.get("drop") or (), notes
    )
    notes.append(UPLOAD_PATH.format(name=repr(str(upload["filename"]))))
    return words


def _hierarchy_options(
    settings: RunSettings,
    left_out: Mapping[Declared, str] | None,
    notes: list[str],
    command: str,
) -> list[str]:
    """The ``--hierarchy`` options of the declared hierarchies, but those the page leaves
    out and those the option cannot type (``notes`` says which, and that ``heb command``
    refuses the first)."""
    if not settings.hierarchies:
        return []
    gone = left_out or {}
    declared = [d for d in parse_hierarchies(settings.hierarchies) if d not in gone]
    notes += [LEFT_OUT.format(item.describe(), _why(note), command) for item, note in gone.items()]
    words: list[str] = []
    for option in command_line_options(declared):
        words += _option(*shlex.split(option))
    said = UNTYPABLE_FIT if command == "fit" else UNTYPABLE
    notes += [said.format(item.describe()) for item in untypable(declared)]
    return words


def fit_command(
    spec: str,
    upload: dict | None,
    smoother: str,
    settings: RunSettings,
    rows: tuple[int, int],
    left_out: Mapping[Declared, str] | None = None,
) -> BenchCommand:
    """The ``heb fit`` command that writes the model Explain saves: the same data, file
    options, bins, missing values and (HEB-H) hierarchies, at the smoother's default.

    ``rows`` is (rows fitted, rows of the data): a subsample under the row cap is the
    ``--max-rows`` of the rows fitted, which ``heb fit`` draws alike.
    """
    notes: list[str] = []
    words = [*_data_words(spec, upload, notes), "--method", smoother, *_reading_options(settings)]
    used, total = rows
    if used < total:
        words += ["--max-rows", str(used)]
    if takes_hierarchies(smoother):
        words += _hierarchy_options(settings, left_out, notes, "fit")
    words += ["-o", f"nb-{smoother}.json"]
    return BenchCommand(("python", "-m", "heb", "fit", *words), tuple(notes))


def _why(note: str) -> str:
    """The reason of a page's note on a declaration left out ("zip -> prefix 3: 'zip' is
    binned, not labelled; left out."), without the declaration and the "left out"."""
    _, sep, why = note.partition(": ")
    return re.sub(r"[,;]? left out\.$", "", why if sep else note)


def large_bench_command(
    name: str,
    target: str,
    methods: Sequence[str],
    settings: RunSettings,
    categorical: Sequence[str] = (),
    dropped: Sequence[str] = (),
) -> BenchCommand:
    """The command that reruns a large file's comparison on DuckDB: ``--engine duckdb``,
    the file as named under the data root, its target, categorical and left-out columns.
    """
    notes: list[str] = []
    words = [_file_word(name), "--engine", "duckdb"]
    words += _file_options(target, categorical, dropped, notes, large=True)
    words += ["--methods", ",".join(methods), *_param_options(settings, methods)]
    words += _settings_options(settings, False)
    notes.append(LARGE_PATH.format(variable=DATA_ROOT_ENV))
    return BenchCommand(("python", "-m", "heb", "bench", *words), tuple(notes))


def draw_command(command: BenchCommand) -> None:
    """The command in a code box, where it runs and what it leaves out; a word longer than
    a line (16 methods' ``--methods``) wraps on screen, not in what the copy button copies."""
    st.code(command.text, language="bash", wrap_lines=True)
    st.caption(WHERE_IT_RUNS)
    for note in command.notes:
        st.caption(escape(note))


#: said under the command that writes Explain's saved model
FIT_RUNS = (
    "Runs at the root of a HEB Explorer clone (or anywhere as `heb fit ...` after "
    "`pip install .` of the clone); it writes the model file that `heb score` reads."
)


def draw_fit_command(command: BenchCommand) -> None:
    """:func:`fit_command`'s command in a code box, where it runs and what it leaves out."""
    st.markdown("**The same model on the command line**")
    st.code(command.text, language="bash", wrap_lines=True)
    st.caption(FIT_RUNS)
    for note in command.notes:
        st.caption(escape(note))


def show_command(command: BenchCommand) -> None:
    """The command under the Python of a "Show code" box (call inside the box)."""
    st.markdown("**On the command line**")
    draw_command(command)


#: session key of the large-file comparison's command box
LARGE_COMMAND_OPEN = "large_command_open"


def show_large_command(command: BenchCommand) -> None:
    """A closed box with the command that reruns the large file's comparison."""
    section = lazy_expander(
        "Show command: run this comparison with heb bench",
        LARGE_COMMAND_OPEN,
        icon=":material/terminal:",
    )
    if section is not None:
        with section:
            draw_command(command)


#: what the Benchmark's command prints besides the mean ± sd table
RANKED = (
    "On 2 or more datasets it also prints the methods' mean ranks with the Friedman p-value "
    "and Nemenyi's CD per metric, and draws their CD diagrams (-o folder)."
)
#: said when the Benchmark's uploads cannot share one command's file options
UPLOADS_DIFFER = (
    "No one command runs this benchmark: heb bench gives every file the same --target, "
    "--categorical and --drop, and the uploads {names} are read with different ones; "
    "run it with the Python API, or once per upload."
)
#: said when uploads read with a --target are benchmarked with named datasets
TARGET_AND_NAMED = (
    "No one command runs this benchmark: heb bench's --target names a data file's class "
    "column and refuses named datasets ({named}), and the uploads {names} are read with "
    "the target {target}; run it with the Python API, or the uploads and the named "
    "datasets apart."
)
#: said of the uploads a benchmark skips (no target chosen yet): the command leaves them out
NO_TARGET_LEFT_OUT = (
    "{names} {verb} no target yet: the page's run skips {them}, and the command leaves {them} out."
)


def benchmark_command(
    specs: Sequence[str], uploads: dict, methods: Sequence[str], settings: RunSettings
) -> BenchCommand:
    """The command that reruns the Benchmark page: every dataset, the chosen methods, the
    page's folds and data settings; on 2+ datasets ``heb bench --methods`` prints their
    mean ranks too. ``uploads``: spec -> upload record, for the specs that are uploads.

    Its :attr:`~BenchCommand.words` are empty (and a note says why) when the uploads among
    ``specs`` are read with different file options, or with a ``--target`` beside a named
    dataset (which heb bench refuses), which one command cannot give. An upload still
    waiting for its target is left out, as the page's run skips it, and a note says so.
    """
    notes: list[str] = []
    waiting = [s for s in specs if s in uploads and not has_target(uploads[s])]
    if waiting:  # the page's run skips them; heb bench would read its own default target
        names = ", ".join(repr(str(uploads[s]["filename"])) for s in waiting)
        one = len(waiting) == 1
        notes.append(
            NO_TARGET_LEFT_OUT.format(
                names=names, verb="has" if one else "have", them="it" if one else "them"
            )
        )
        specs = [s for s in specs if s not in waiting]
    records = [uploads[spec] for spec in specs if spec in uploads]
    options = {
        (r.get("target") or None, tuple(sorted(r.get("categorical") or ())),
         tuple(sorted(r.get("drop") or ())))
        for r in records
    }  # fmt: skip
    if len(options) > 1:
        names = ", ".join(repr(str(r["filename"])) for r in records)
        return BenchCommand((), (*notes, UPLOADS_DIFFER.format(names=names)))
    named = [s for s in specs if s not in uploads]
    target = next(iter(options))[0] if options else None
    if target and named:  # heb bench refuses --target with a named dataset
        names = ", ".join(repr(str(r["filename"])) for r in records)
        refused = TARGET_AND_NAMED.format(
            named=", ".join(map(repr, named)), names=names, target=repr(target)
        )
        return BenchCommand((), (*notes, refused))
    words = [_file_word(str(uploads[s]["filename"])) if s in uploads else s for s in specs]
    if records:
        words += _file_options(*options.pop(), notes)
        notes.append("Write the uploads' paths where they are not in the folder you run this from.")
    words += ["--methods", ",".join(methods), *_settings_options(settings, True)]
    notes.append(RANKED)
    return BenchCommand(("python", "-m", "heb", "bench", *words), tuple(notes))


#: session key of the Benchmark page's command box
BENCHMARK_COMMAND_OPEN = "bench_command_open"


def show_benchmark_command(command: BenchCommand) -> None:
    """A closed box with the command that runs the Benchmark page's selection, or why no
    one command can."""
    section = lazy_expander(
        "Show command: run this benchmark with heb bench",
        BENCHMARK_COMMAND_OPEN,
        icon=":material/terminal:",
    )
    if section is None:
        return
    with section:
        if command.words:
            draw_command(command)
        else:
            for note in command.notes:
                st.caption(escape(note))
