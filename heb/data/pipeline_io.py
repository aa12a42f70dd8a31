"""Save and load a fitted :func:`~heb.data.preprocess.make_model` pipeline as one JSON file.

The file is the classifier's :mod:`heb.model_io` file plus a ``preprocessor`` section
(:mod:`heb.data.preprocessor_io`), described in ``docs/model_json.md``; loading it gives a
pipeline that scores raw rows exactly as the saved one. The functions take a plain heb
model too (written and read as :mod:`heb.model_io` does), so that one call reads any heb
model file::

    from heb.data import make_model, pipeline_io

    pipe = make_model("heb-m").fit(frame.drop(columns="y"), frame["y"])
    pipeline_io.save(pipe, "model.json")
    same = pipeline_io.load("model.json")   # same.predict_proba(raw) == pipe.predict_proba(raw)

The pipeline part lives here, in the data layer, because a preprocessor is pandas; the
engine's :mod:`heb.model_io` never imports it (layers only import downwards).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from sklearn.pipeline import Pipeline

from heb import model_io
from heb.data import preprocessor_io

__all__ = ["to_dict", "from_dict", "dumps", "loads", "save", "load"]

Model = model_io.Model | Pipeline


def to_dict(model: Model) -> dict[str, Any]:
    """The JSON-ready description of a fitted make_model pipeline (its classifier's
    fields plus ``preprocessor``), or of a fitted heb model (:data:`heb.model_io.Model`)."""
    if not isinstance(model, Pipeline):
        return model_io.to_dict(model)
    preprocessor, classifier = preprocessor_io.pipeline_steps(model)
    out = model_io.to_dict(classifier)
    if not np.array_equal(preprocessor.n_categories_, classifier.n_categories_):
        raise ValueError(
            "The pipeline's classifier does not count its Preprocessor's categories "
            "(their numbers of categories differ), so the pair cannot be saved."
        )
    out[model_io.PREPROCESSOR_KEY] = preprocessor_io.to_dict(preprocessor)
    return out


def from_dict(data: Any) -> Model:
    """A fitted pipeline from :func:`to_dict`'s description (a model where the file holds
    no preprocessor), every field checked."""
    if not isinstance(data, dict) or model_io.PREPROCESSOR_KEY not in data:
        return model_io.from_dict(data)
    fields = {key: value for key, value in data.items() if key != model_io.PREPROCESSOR_KEY}
    model = model_io.from_dict(fields)
    preprocessor = preprocessor_io.from_dict(data[model_io.PREPROCESSOR_KEY])
    if not np.array_equal(preprocessor.n_categories_, model.count_table_.n_categories):
        raise ValueError(
            "The preprocessor's numbers of labels per feature must equal the model's n_categories."
        )
    return preprocessor_io.make_pipeline(preprocessor, model)


def dumps(model: Model) -> str:
    """The pipeline (or model) as JSON text, as :func:`heb.model_io.dumps` writes it."""
    return model_io.json_text(to_dict(model))


def save(model: Model, path: str | Path) -> None:
    """Write the pipeline's (or model's) JSON to ``path``."""
    Path(path).write_text(dumps(model), encoding="utf-8")


def loads(text: str | bytes, *, max_bytes: int = model_io.MAX_BYTES) -> Model:
    """A fitted pipeline (or model) from :func:`dumps`' JSON text (at most ``max_bytes``)."""
    return from_dict(model_io.parse(text, max_bytes=max_bytes))


def load(path: str | Path, *, max_bytes: int = model_io.MAX_BYTES) -> Model:
    """A fitted pipeline (or model) from a JSON file (read up to ``max_bytes``)."""
    with open(path, "rb") as handle:
        text = handle.read(max_bytes + 1)
    return loads(text, max_bytes=max_bytes)
