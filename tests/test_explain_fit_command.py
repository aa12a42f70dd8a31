"""Explain's saved model has its ``heb fit`` command beside the download: the same data,
bins, missing values, row cap and (HEB-H) hierarchies, written to the download's file
name. The page gave only ``heb score``; the practitioner trial asked how to rebuild the
model it scores."""

from __future__ import annotations

import shlex

import numpy as np

from explorer.commands import FIT_RUNS, fit_command
from heb.cli import main
from heb.data import pipeline_io
from heb.evaluate import RunSettings
from tests.test_app import assert_clean, open_app, unescape
from tests.test_app_hierarchy import ZIP_PREFIX


def _saved(smoother: str, **query: str):
    at = open_app("pages/explain.py", explain_smoothers=f"laplace,{smoother}", **query)
    at.session_state["model_files_open"] = True
    at.session_state["explain_save"] = smoother
    at.run()
    assert_clean(at)
    return at


def _fit_commands(at) -> list[str]:
    return [c.value for c in at.code if c.value.startswith("python -m heb fit")]


def test_the_fit_command_writes_the_model_the_page_saves(tmp_path):
    from explorer import explain as ex
    from explorer.hierarchies import work_hierarchies
    from heb.evaluate.hierarchy_specs import parse_hierarchies
    from heb.nb import NaiveBayes
    from tests.test_explain_pipeline_app import page_work

    at = _saved("heb-h", hierarchies=ZIP_PREFIX)
    (text,) = _fit_commands(at)
    assert text == (
        "python -m heb fit builtin:zip-codes --method heb-h \\\n"
        "  --hierarchy 'zip_code -> prefix 2' -o nb-heb-h.json"
    )
    assert any(unescape(c.value) == unescape(FIT_RUNS) for c in at.caption)
    words = shlex.split(text.replace("\\\n", " "))[3:]
    assert words[0] == "fit" and words[-2:] == ["-o", "nb-heb-h.json"]
    assert main([*words[:-1], str(tmp_path / "nb-heb-h.json")]) == 0
    written = pipeline_io.loads((tmp_path / "nb-heb-h.json").read_bytes())
    # the page's download, from the page's own functions
    dataset, work = page_work()
    levels, _ = work_hierarchies(work, parse_hierarchies(ZIP_PREFIX))
    model = NaiveBayes("heb-h", hierarchies=levels).fit_counts(work.table, np.arange(2))
    fitted = ex.Fitted({"heb-h": model}, {"heb-h": model.predict(work.codes)})
    saved = pipeline_io.loads(
        ex.model_json(fitted, "heb-h", work.feature_names, work.class_names, work.preprocessor)
    )
    np.testing.assert_allclose(
        written.predict_proba(dataset.X), saved.predict_proba(dataset.X), rtol=0, atol=1e-12
    )


def test_another_smoother_has_no_hierarchy_and_the_settings_are_written():
    at = _saved("m-estimate", hierarchies=ZIP_PREFIX, n_bins="5", missing="category")
    assert _fit_commands(at) == [
        "python -m heb fit builtin:zip-codes --method m-estimate --n-bins 5 \\\n"
        "  --missing category -o nb-m-estimate.json"
    ]


def test_an_upload_and_a_subsample_carry_their_file_options_and_row_count():
    upload = {"filename": "my orders.csv", "target": "returned", "categorical": ["zip"]}
    command = fit_command("upload:ab", upload, "heb-m", RunSettings(), (20_000, 50_000))
    assert command.words == (
        "python", "-m", "heb", "fit", "my orders.csv", "--target", "returned",
        "--categorical", "zip", "--method", "heb-m", "--max-rows", "20000",
        "-o", "nb-heb-m.json",
    )  # fmt: skip
    assert any("my orders.csv" in note for note in command.notes)  # where the file must be
    every_row = fit_command("upload:ab", upload, "heb-m", RunSettings(), (500, 500))
    assert "--max-rows" not in every_row.words


def test_a_hierarchy_the_option_cannot_type_points_to_the_pages_own_code():
    """Under the fit command the note sent the user to RunSettings and Compare's code,
    which cross-validate; Explain's own code fits the model (the mutation pass)."""
    from explorer.commands import UNTYPABLE, UNTYPABLE_FIT

    settings = RunSettings(hierarchies='[{"feature":"a->b","prefix":[2]}]')
    fit = fit_command("builtin:zip-codes", None, "heb-h", settings, (10, 10))
    assert fit.notes == (UNTYPABLE_FIT.format("a->b -> prefix 2"),)
    assert "--hierarchy" not in fit.words
    from explorer.commands import bench_command

    bench = bench_command("builtin:zip-codes", None, ["HEB-H"], settings)
    assert bench.notes == (UNTYPABLE.format("a->b -> prefix 2"),)
