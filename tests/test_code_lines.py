"""The "Show code" boxes' line breaking: the same program, every line within the width."""

from __future__ import annotations

import ast
import io
import tokenize

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import report
from explorer.code_lines import CODE_WIDTH, wrap_long_lines
from heb.evaluate import RunSettings

NAMES = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF), max_size=30)
LITERALS = st.one_of(NAMES, st.integers(), st.floats(allow_nan=False, allow_infinity=False))


def has_bracket_pair(line: str) -> bool:
    """Whether ``line`` closes a bracket it opened (outside strings and comments)."""
    opened = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(line).readline):
            if token.type == tokenize.OP and token.string in "([{":
                opened.append(token.string)
            elif token.type == tokenize.OP and token.string in ")]}" and opened:
                return True
    except tokenize.TokenError:  # a line that opens a bracket and ends
        pass
    return False


def same_program(before: str, after: str) -> bool:
    return ast.dump(ast.parse(before)) == ast.dump(ast.parse(after))


def test_a_long_call_is_broken_at_its_top_level_commas():
    line = "result = cross_validate(dataset, " + repr(["method"] * 12) + ", settings=settings)"
    out = wrap_long_lines(line, 40)
    assert out.split("\n")[:3] == ["result = cross_validate(", "    dataset,", "    ["]
    assert out.split("\n")[-2:] == ["    settings=settings,", ")"]
    assert max(map(len, out.split("\n"))) <= 40
    assert same_program(line, out)


def test_what_fits_on_one_line_between_the_brackets_stays_together():
    line = "settings = RunSettings(n_bins=10, missing='impute', max_rows=20000, seed=42)"
    assert wrap_long_lines(line, 60).split("\n") == [
        "settings = RunSettings(",
        "    n_bins=10, missing='impute', max_rows=20000, seed=42",
        ")",
    ]
    assert wrap_long_lines(line, len(line)) == line  # a line that fits is not touched


def test_imports_commas_in_strings_comments_and_unbreakable_lines():
    line = "from heb.data import Preprocessor, encode_target, load_dataset, stratified_subsample"
    out = wrap_long_lines(line, 40)
    assert out.startswith("from heb.data import (\n    Preprocessor,\n") and out.endswith("\n)")
    assert same_program(line, out)
    commented = "x = f('a, b, c', 'd, (e', g=[1, 2, 3])  # a comment, with (commas"
    out = wrap_long_lines(commented, 30)
    assert same_program(commented, out) and out.endswith(")  # a comment, with (commas")
    assert "    'a, b, c'," in out.split("\n")
    string = "print('" + "x" * 100 + "')"
    assert wrap_long_lines(string, 40).split("\n") == ["print(", "    '" + "x" * 100 + "'", ")"]
    bare = "y = '" + "x" * 100 + "'"
    assert wrap_long_lines(bare, 40) == bare
    block = "for name, e in out.items():\n    print(name, e.prior, e.contributions[0].tolist())"
    out = wrap_long_lines(block, 30)
    assert same_program(block, out) and out.split("\n")[1] == "    print("


@settings(max_examples=150, deadline=None)
@given(
    items=st.lists(LITERALS, max_size=12),
    keywords=st.dictionaries(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), LITERALS, max_size=5),
    nested=st.lists(st.lists(NAMES, max_size=5), max_size=4),
    width=st.integers(20, 100),
)
def test_any_call_of_literals_keeps_its_syntax_tree(items, keywords, nested, width):
    args = [repr(i) for i in items] + [repr(n) for n in nested]
    args += [f"{k}={v!r}" for k, v in keywords.items()]
    line = "    value = {'k': call(" + ", ".join(args) + ")}  # note"
    code = "if True:\n" + line
    out = wrap_long_lines(code, width)
    assert same_program(code, out)
    for piece in out.split("\n"):
        # a line still too long has no bracket pair left to break (a long literal)
        assert len(piece) <= width or not has_bracket_pair(piece), piece


def test_the_show_code_programs_fit_the_box_with_many_methods_and_a_long_file_name():
    upload = {
        "filename": "sales by region and store, every week of 2024 (final).csv",
        "target": "bought it",
        "categorical": ["zip", "store id"],
        "drop": ["row"],
    }
    methods = ["laplace", "lidstone", "kt", "m-estimate", "te", "heb-u", "heb-m", "heb-m+gr"]
    settings = RunSettings(overrides={"lidstone": {"alpha": 0.25}})
    compare = report.compare_code(report.dataset_line("upload:x", upload), methods, settings)
    explain = report.explain_code(
        report.dataset_line("builtin:zip-codes"),
        {"max_rows": 20000, "n_bins": 10, "missing": "impute"},
        methods,
        row=3,
        target=0,
        reference=1,
        table_row=5,
        hierarchies="zip: prefix 3, prefix 1",
    )
    for code in (compare, explain):
        ast.parse(code)
        assert max(map(len, code.split("\n"))) <= CODE_WIDTH, code
