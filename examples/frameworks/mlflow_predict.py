"""An MLflow 3 ``predict_fn`` evaluated as it is: each row of ``evalset_mlflow.jsonl``
holds its ``inputs`` as MLflow's ``mlflow.genai.evaluate`` data does, and ragjudge
passes them as keyword arguments (``predict_fn(**inputs)``).

    ragjudge run examples/frameworks/mlflow.yaml

It needs no extra: the function is plain Python (a pyfunc model saved with MLflow is
evaluated with ``target: {kind: mlflow_model, uri: ...}``, see docs/frameworks.md).
"""

from __future__ import annotations

from typing import Any

from framework_notes import first_sentence, search


def predict_fn(question: str, max_notes: int = 2) -> dict[str, Any]:
    hits = search(question, k=max_notes)
    return {
        "response": first_sentence(hits[0][1]) if hits else "I don't know.",
        "retrieved_context": [
            {"doc_uri": name, "content": text, "score": score} for name, text, score in hits
        ],
    }
