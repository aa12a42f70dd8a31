"""The layering: the engine imports alone, never reaches up, and nobody imports privates."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the engine: numpy, scipy and scikit-learn only (README, architecture section)
ENGINE = (
    "registry",
    "counts",
    "smoothing",
    "log_tables",
    "concentration",
    "concentration_score",
    "concentration_solver",
    "estimator",
    "nb",
    "aode",
    "metrics",
    "stats",
    "synthetic",
    "hierarchy",
    "hierarchy_nodes",
    "hierarchy_sources",
    "hierarchy_io",
    "hierarchical_nb",
    "synthetic_hierarchy",
    "joint_counts",
    "pair_smoothing",
    "tan_structure",
    "tan",
    "explain",
    "expected_mi",
    "model_io",  # a make_model pipeline's file is the data layer's (heb.data.pipeline_io)
    "paths",
)
FORBIDDEN = ("pandas", "plotly", "streamlit", "openml", "pyarrow", "duckdb", "pyspark")
ALLOWED_THIRD_PARTY = {"numpy", "scipy", "sklearn"}


def _run(code: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


_IMPORT_ENGINE = "import heb, " + ", ".join(f"heb.{name}" for name in ENGINE)


def test_the_engine_imports_and_fits_with_the_app_libraries_unavailable():
    """With pandas, plotly, ... made unimportable the engine still imports and fits."""
    code = f"""
import importlib.abc, json, sys
BLOCKED = {FORBIDDEN!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is blocked")
sys.meta_path.insert(0, Block())
{_IMPORT_ENGINE}
import numpy as np
X = np.array([[0, 1], [1, 0], [0, 0], [1, 1]])
y = np.array([0, 1, 0, 1])
proba = heb.NaiveBayes().fit(X, y).predict_proba(X)
heb.AODE().fit(X, y).predict_proba(X)
heb.TAN(smoother="heb").fit(X, y).predict_proba(X)
print(json.dumps({{"loaded": [m for m in BLOCKED if m in sys.modules],
                   "rows": proba.sum(axis=1).round(12).tolist()}}))
"""
    out = _run(code)
    assert out["loaded"] == []
    assert out["rows"] == [1.0, 1.0, 1.0, 1.0]


def test_the_engine_loads_no_package_beyond_numpy_scipy_and_sklearn():
    """After numpy, scipy and scikit-learn, importing the engine adds only heb and stdlib."""
    code = f"""
import json, sys
import numpy, scipy.special, scipy.stats, scipy.optimize
import sklearn.base, sklearn.utils.validation, sklearn.utils.multiclass
before = set(sys.modules)
{_IMPORT_ENGINE}
new = {{m.split(".")[0] for m in set(sys.modules) - before}}
print(json.dumps(sorted(new - set(sys.stdlib_module_names) - {{"heb"}})))
"""
    assert _run(code) == []


def _imports(path: Path) -> list[tuple[str, list[str], int]]:
    """(module, imported names, line) of every import statement, nested ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, [alias.name for alias in node.names], node.lineno))
    return found


@pytest.mark.parametrize("name", ENGINE)
def test_no_engine_module_imports_from_a_higher_layer(name):
    path = ROOT / "heb" / f"{name}.py"
    for module, names, line in _imports(path):
        top = module.split(".")[0]
        if top == "heb":
            targets = [module] if module != "heb" else [f"heb.{n}" for n in names]
            for target in targets:
                layer = target.split(".")[1] if "." in target else ""
                assert layer in ENGINE or layer in ("", "__version__"), (
                    f"heb/{name}.py:{line} imports {target}, above the engine"
                )
        else:
            assert top in ALLOWED_THIRD_PARTY or top in sys.stdlib_module_names, (
                f"heb/{name}.py:{line} imports {module}, not numpy/scipy/sklearn"
            )


def _project_files() -> list[Path]:
    files = [ROOT / "app.py"] if (ROOT / "app.py").exists() else []
    for folder in ("heb", "explorer", "pages"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return files


def test_no_module_imports_another_modules_private_names():
    offences = []
    for path in _project_files():
        for module, names, line in _imports(path):
            if module.split(".")[0] not in ("heb", "explorer", "pages"):
                continue
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            private += [part for part in module.split(".") if part.startswith("_")]
            if private:
                offences.append(f"{path.relative_to(ROOT)}:{line} {module}: {private}")
    assert offences == []


def test_the_private_import_check_sees_an_offence(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from heb.metrics import _validate\n")
    assert _imports(probe) == [("heb.metrics", ["_validate"], 2)]


def test_every_engine_module_is_in_the_cache_revision():
    """Editing any module that produces numbers must retire the cached results."""
    from heb.evaluate.keys import NUMERIC_SOURCES

    package = ROOT / "heb"
    covered = {path for pattern in NUMERIC_SOURCES for path in package.glob(pattern)}
    for name in ENGINE:
        assert package / f"{name}.py" in covered, name
    for layer in ("data", "evaluate", "scale"):
        for path in (package / layer).glob("*.py"):
            assert path in covered, path
    assert not any("figures" in path.parts or "lessons" in path.parts for path in covered)
