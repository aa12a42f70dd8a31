"""``--param METHOD:NAME=VALUE``: Compare's what-if values on the command line.

``heb bench`` and ``heb fit`` ran every method at its default, so a page comparing
m-estimate at m = 20 had no command giving its numbers, and a model file could not hold
the value (the practitioner trial). The option is checked before any work, as the page's
controls are, and a run at a value is another cached run than one at the default.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from heb.cli import main
from heb.cli_params import param_overrides, param_words
from heb.data import load_dataset, pipeline_io
from heb.evaluate import RunSettings, cross_validate

METRICS = ["accuracy", "log_loss", "brier", "ece"]


def _bench(tmp_path, *extra: str) -> pd.DataFrame:
    out = tmp_path / "out"
    args = ["bench", "builtin:iris", "--methods", "laplace,m-estimate", "--folds", "3"]
    assert main([*args, *extra, "-o", str(out), "--no-figures"]) == 0
    if extra:  # the summary names the value, not the default
        summary = (out / "summary_mean_sd.md").read_text()
        assert "| m-estimate (m = 20) " in summary
        assert not re.search(r"\| m-estimate +\|", summary)  # no row named as the default
    return pd.read_csv(out / "folds.csv")


def test_bench_runs_the_value_and_caches_it_apart_from_the_default(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    at_20 = _bench(tmp_path, "--param", "m-estimate:m=20")
    assert "m-estimate runs at m = 20 (--param), not its default 2." in capsys.readouterr().err
    assert list(dict.fromkeys(at_20["method"])) == ["Laplace", "m-estimate (m = 20)"]
    at_20["method"] = at_20["method"].replace({"m-estimate (m = 20)": "m-estimate"})
    settings = RunSettings(n_splits=3, overrides={"m-estimate": {"m": 20}})
    expected = cross_validate(
        load_dataset("builtin:iris"), ["Laplace", "m-estimate"], settings=settings
    )
    for method in ("Laplace", "m-estimate"):
        got = at_20[at_20["method"] == method].sort_values("fold")[METRICS].to_numpy(float)
        want = expected.folds[expected.folds["method"] == method].sort_values("fold")
        np.testing.assert_allclose(got, want[METRICS].to_numpy(float), rtol=1e-12, atol=0)
    default = _bench(tmp_path)  # the same folder and cache: not the m = 20 run served back
    m_est = default["method"] == "m-estimate"
    assert not np.allclose(default.loc[m_est, "log_loss"], at_20.loc[m_est, "log_loss"])
    same = default["method"] == "Laplace"
    np.testing.assert_array_equal(default.loc[same, METRICS], at_20.loc[same, METRICS])


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (
            ["--param", "m=20"],
            "--param reads METHOD:NAME=VALUE (e.g. m-estimate:m=20), not 'm=20'.",
        ),
        (["--param", "kt:alpha=1"], "KT is not among the methods run (Laplace, m-estimate)."),
        (["--param", "laplace:alpha=1"], "Laplace takes no parameter."),
        (["--param", "m-estimate:alpha=1"], "m-estimate's parameter is m, not alpha."),
        (["--param", "m-estimate:m=lots"], "m must be a number, not 'lots'."),
        (["--param", "m-estimate:m=-1"], "m must lie in [1e-06, 1e+06], got -1.0."),
        (["--param", "nb:m=1"], "Unknown method 'nb'"),
    ],
)
def test_a_bad_param_is_one_line_before_any_work(tmp_path, capsys, extra, said):
    out = tmp_path / "out"
    args = ["bench", "builtin:iris", "--methods", "laplace,m-estimate", *extra, "-o", str(out)]
    with pytest.raises(SystemExit) as stopped:
        main(args)
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("heb: --param") and said in err and "\n" not in err, err
    assert not out.exists()


def test_a_param_needs_the_methods_it_sets(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["bench", "builtin:iris", "--param", "m-estimate:m=20", "-o", str(tmp_path / "o")])
    assert stopped.value.code == 2
    assert "--param sets a value of a method named in --methods" in capsys.readouterr().err


def test_fit_writes_the_value_into_the_model_file(tmp_path, capsys):
    path = tmp_path / "nb.json"
    argv = ["fit", "builtin:iris", "--method", "m-estimate", "--param", "m-estimate:m=20"]
    assert main([*argv, "-o", str(path)]) == 0
    model = pipeline_io.load(path)[-1]
    assert model.get_params()["m"] == 20.0
    with pytest.raises(SystemExit):
        main(["fit", "builtin:iris", "--method", "laplace", "--param", "m-estimate:m=20"])
    assert "m-estimate is not among the methods run (Laplace)" in capsys.readouterr().err


def test_the_words_read_back_as_the_values():
    overrides = {"Lidstone": {"alpha": 0.5}, "m-estimate": {"m": 20.0}, "TE": {"k0": 0.1}}
    words = param_words(overrides)
    assert words[:2] == ["--param", "Lidstone:alpha=0.5"] and "m-estimate:m=20" in words
    assert param_overrides(words[1::2], ["Lidstone", "m-estimate", "TE"]) == overrides
    assert param_words({"TE": {"k0": 0.123456789}}) == ["--param", "TE:k0=0.123456789"]
