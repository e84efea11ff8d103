"""The evaluation set of a logged run as the MLflow run's dataset input (the ``mlflow``
extra): what the run page's "Datasets used" lists, as ``mlflow.genai.evaluate`` logs it.

The dataset is the run's samples (one row each: ``request_id``, the request, the
expected response and facts when given), named after the run, with ragjudge's dataset
digest (SHA-256 of the stored samples, the ``dataset_digest`` param) and the input tag
``mlflow.data.context = evaluation``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ragjudge._util.known_secrets import mask_secrets_in
from ragjudge.schema import Sample

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DATASET_CONTEXT", "log_dataset_input"]

DATASET_CONTEXT = "evaluation"
_CONTEXT_TAG = "mlflow.data.context"
_DIGEST_LENGTH = 36  # MLflow's longest dataset digest


def log_dataset_input(
    client: Any, mlflow_run_id: str, samples: list[Sample], name: str, digest: str
) -> None:
    """Log ``samples`` as the run's evaluation dataset, its digest ``digest`` (cut to
    the length MLflow keeps)."""
    from mlflow.data.pandas_dataset import from_pandas
    from mlflow.entities import DatasetInput, InputTag

    dataset = from_pandas(samples_frame(samples), name=name, digest=digest[:_DIGEST_LENGTH])
    tags = [InputTag(key=_CONTEXT_TAG, value=DATASET_CONTEXT)]
    entry = DatasetInput(dataset=dataset._to_mlflow_entity(), tags=tags)
    client.log_inputs(mlflow_run_id, datasets=[entry])


def samples_frame(samples: list[Sample]) -> pd.DataFrame:
    """One row per sample, in MLflow's evaluation-set column names; secrets masked."""
    import pandas as pd

    rows = []
    for sample in samples:
        request = sample.request.original
        row: dict[str, Any] = {
            "request_id": sample.request_id,
            "request": request if isinstance(request, str) else json.dumps(request),
        }
        if sample.expected_response is not None:
            row["expected_response"] = json.dumps(sample.expected_response, ensure_ascii=False)
        if sample.expected_facts is not None:
            row["expected_facts"] = json.dumps(sample.expected_facts, ensure_ascii=False)
        rows.append(mask_secrets_in(row))
    return pd.DataFrame(rows)
