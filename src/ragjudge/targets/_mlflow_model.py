"""An MLflow pyfunc model as the target (``kind: mlflow_model``), loaded with
``mlflow.pyfunc.load_model`` from a model URI (``models:/name/1``, ``runs:/ID/model``,
a local folder). MLflow is imported only here, when such a target is built.

The model receives the request in the shape its input schema takes where the schema
names its inputs (``{name: value}``, from a request dict's keys or the query), else
the request as the evaluation set held it; its one prediction is read like a
function's reply.
"""

from __future__ import annotations

from typing import Any

from ragjudge._util.extras import require_extra
from ragjudge.errors import TargetSetupError
from ragjudge.schema import Sample
from ragjudge.targets._frameworks import only_prediction
from ragjudge.targets._targets import CallableTarget, ReplyLimits

__all__ = ["MLFLOW_MODEL_KIND", "mlflow_model_target"]

MLFLOW_MODEL_KIND = "mlflow_model"
_KEYS = ("kind", "uri", "timeout", "max_reply_bytes", "max_contexts", "max_context_bytes")


def mlflow_model_target(spec: dict[str, Any], *, concurrency: int) -> CallableTarget:
    """The target of a config's ``{kind: mlflow_model, uri: ...}`` section."""
    stray = sorted(set(spec) - set(_KEYS))
    if stray:
        raise TargetSetupError(
            f"target kind {MLFLOW_MODEL_KIND!r} takes no {', '.join(stray)}; "
            f"its keys: {', '.join(_KEYS)}"
        )
    uri = spec.get("uri")
    if not isinstance(uri, str) or not uri.strip():
        raise TargetSetupError(
            f"target kind {MLFLOW_MODEL_KIND!r} needs 'uri' (models:/NAME/VERSION, "
            "runs:/RUN_ID/PATH or a model folder)"
        )
    model = load_pyfunc_model(uri)
    names = _input_names(model)

    def predict(sample: Sample) -> Any:
        return only_prediction(model.predict(model_input(sample, names)))

    limits = ReplyLimits.of(**{k: spec.get(k) for k in _KEYS[3:]})
    return CallableTarget(
        predict,
        name=f"mlflow model {uri}",
        timeout=spec.get("timeout"),
        concurrency=concurrency,
        limits=limits,
    )


def load_pyfunc_model(uri: str) -> Any:
    """The pyfunc model at ``uri``; a :class:`TargetSetupError` naming the URI when
    MLflow cannot load it."""
    require_extra("mlflow", f"target kind {MLFLOW_MODEL_KIND!r}")
    import mlflow.pyfunc

    try:
        return mlflow.pyfunc.load_model(uri)
    except Exception as exc:  # MLflow raises many kinds for a URI it cannot resolve
        raise TargetSetupError(
            f"cannot load the MLflow model {uri!r}: {type(exc).__name__}: {exc}"
        ) from None


def _input_names(model: Any) -> list[str]:
    """The input names the model's signature declares (none without a signature or
    with unnamed inputs)."""
    metadata = getattr(model, "metadata", None)
    schema = metadata.get_input_schema() if metadata is not None else None
    if schema is None or not schema.has_input_names():
        return []
    return [str(name) for name in schema.input_names()]


def model_input(sample: Sample, names: list[str]) -> Any:
    """What the model's ``predict`` receives for ``sample``: ``[{name: value}]`` for
    named inputs (a request dict's values, the query for the first name else), or
    the request as the evaluation set held it."""
    request = sample.request
    if not names:
        return request.original
    given = request.original if isinstance(request.original, dict) else {}
    row = {name: given[name] for name in names if name in given}
    if not row:
        row = {names[0]: request.query}
    return [row]
