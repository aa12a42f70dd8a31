"""``heb bench`` to a folder holding an earlier run's files replaces them: none is left.

A ``--methods`` run on 2+ datasets writes methods_mean_ranks and CD diagrams; a run on one
dataset to the same -o folder wrote neither and left the first run's, read beside its own
folds.csv as if they were its ranks (the run's note said it "replaces them").
"""

from __future__ import annotations

from heb.cli import main


def _bench(out, *words: str) -> int:
    return main(["bench", *words, "--methods", "laplace,kt", "--folds", "3", "-o", str(out)])


def test_a_one_dataset_run_leaves_no_ranks_or_diagrams_of_an_earlier_run(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    assert _bench(out, "builtin:iris", "builtin:breast-cancer") == 0
    assert (out / "methods_mean_ranks.csv").exists() and list(out.glob("cd_*.svg"))
    (out / "my notes.txt").write_text("mine")
    assert _bench(out, "builtin:iris", "--no-figures") == 0
    left = sorted(p.name for p in out.iterdir())
    assert left == ["folds.csv", "my notes.txt", "summary_mean_sd.csv", "summary_mean_sd.md"]
    capsys.readouterr()
    for name in ("methods_mean_ranks.csv", "cd_log_loss.png", "table1_mean_ranks.md"):
        (out / name).write_text("earlier")  # left again; the run is now served from the cache
    assert _bench(out, "builtin:iris", "--no-figures") == 0
    assert "Served 1 dataset from the cache." in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == left
