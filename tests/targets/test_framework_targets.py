"""Framework application objects as targets: small objects of each framework's shape
(no framework imported), then the real packages where they are installed."""

from __future__ import annotations

import asyncio
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from ragjudge.config import EvalConfig
from ragjudge.errors import TargetSetupError
from ragjudge.run._preparation import build_target
from ragjudge.schema import Sample
from ragjudge.targets._targets import CallableTarget, target_from_object


def sample(request: Any) -> Sample:
    return Sample(request_id="1", request=request)


DIALOGUE = sample(
    {
        "messages": [
            {"role": "user", "content": "What does UNION do?"},
            {"role": "assistant", "content": "It merges rows."},
            {"role": "user", "content": "And UNION ALL?"},
        ]
    }
)


# --- small objects with the frameworks' shapes -------------------------------------


@dataclass
class Doc:  # a LangChain Document's shape
    page_content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass
class Message:  # a LangChain AIMessage's shape
    content: str
    usage_metadata: dict[str, int] | None = None


class FakeRunnable:
    def __init__(self, reply: Any) -> None:
        self.reply = reply
        self.inputs: list[Any] = []

    def invoke(self, value: Any) -> Any:
        raise AssertionError("ainvoke is preferred")

    async def ainvoke(self, value: Any) -> Any:
        self.inputs.append(value)
        return self.reply


@dataclass
class Node:  # a LlamaIndex TextNode's shape
    text: str
    node_id: str
    ref_doc_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def get_content(self) -> str:
        return self.text


@dataclass
class NodeWithScore:
    node: Node
    score: float | None


@dataclass
class Response:  # a LlamaIndex Response's shape
    response: str
    source_nodes: list[NodeWithScore]


NODES = [
    NodeWithScore(Node("UNION removes duplicates.", "n1", ref_doc_id="sql.md"), 0.8),
    NodeWithScore(Node("UNION ALL keeps them.", "n2", metadata={"source": "all.md"}), 0.6),
    NodeWithScore(Node("Plain node.", "n3"), None),
]


class FakeQueryEngine:
    def __init__(self) -> None:
        self.queries: list[str] = []

    def query(self, text: str) -> Response:
        self.queries.append(text)
        return Response("It keeps duplicates.", NODES)


class FakeChatEngine:
    def __init__(self) -> None:
        self.calls: list[tuple[str, list[Any]]] = []

    async def achat(self, message: str, chat_history: list[Any] | None = None) -> Response:
        self.calls.append((message, list(chat_history or [])))
        return Response("It keeps duplicates.", NODES[:1])


async def test_runnable_string_reply_gets_the_query() -> None:
    runnable = FakeRunnable("It keeps duplicates.")
    output = await target_from_object(runnable)(sample("And UNION ALL?"))
    assert output.error is None
    assert output.response == "It keeps duplicates."
    assert runnable.inputs == ["And UNION ALL?"]


async def test_runnable_message_reply_gives_text_and_usage() -> None:
    reply = Message("Yes.", usage_metadata={"input_tokens": 12, "output_tokens": 3})
    output = await target_from_object(FakeRunnable(reply))(sample("q?"))
    assert output.response == "Yes."
    assert (output.usage.input_tokens, output.usage.output_tokens) == (12, 3)


async def test_runnable_message_with_content_blocks_gives_their_text() -> None:
    @dataclass
    class BlockMessage:
        content: list[Any]

    reply = BlockMessage([{"type": "text", "text": "Yes, "}, {"type": "image"}, "it does."])
    output = await target_from_object(FakeRunnable(reply))(sample("q?"))
    assert output.response == "Yes, it does."


async def test_runnable_dict_reply_with_documents_gives_contexts() -> None:
    docs = [
        Doc("UNION removes duplicates.", {"source": "sql.md", "score": 0.7}),
        Doc("No uri here.", {}, id="doc-2"),
        Doc("Nothing at all."),
    ]
    reply = {"answer": Message("It keeps them."), "context": docs}
    output = await target_from_object(FakeRunnable(reply))(sample("q?"))
    assert output.error is None
    assert output.response == "It keeps them."
    chunks = output.retrieved_context or []
    assert [c.doc_uri for c in chunks] == ["sql.md", "doc-2", "retrieved_context[2]"]
    assert [c.score for c in chunks] == [0.7, None, None]
    assert chunks[0].content == "UNION removes duplicates."


async def test_runnable_output_and_source_documents_keys() -> None:
    reply = {"output": "ok", "source_documents": [Doc("text", {"doc_uri": "a.md"})]}
    output = await target_from_object(FakeRunnable(reply))(sample("q?"))
    assert output.response == "ok"
    assert [c.doc_uri for c in output.retrieved_context or []] == ["a.md"]


async def test_runnable_gets_the_request_dict_as_held() -> None:
    runnable = FakeRunnable("ok")
    await target_from_object(runnable)(sample({"question": "q?", "topic": "sql"}))
    assert runnable.inputs == [{"question": "q?", "topic": "sql"}]


class KeyedSchema:
    @staticmethod
    def model_json_schema() -> dict[str, Any]:
        return {"type": "object", "properties": {"context": {}, "question": {}, "chat_history": {}}}


async def test_runnable_with_input_keys_gets_query_and_history_by_name() -> None:
    runnable = FakeRunnable("ok")
    runnable.input_schema = KeyedSchema()  # type: ignore[attr-defined]
    target = target_from_object(runnable)
    assert target.supports_history
    await target(DIALOGUE)
    value = runnable.inputs[0]
    assert value["question"] == "And UNION ALL?"
    assert [m["content"] for m in value["chat_history"]] == [
        "What does UNION do?",
        "It merges rows.",
    ]


async def test_query_engine_response_gives_contexts_with_scores() -> None:
    engine = FakeQueryEngine()
    target = target_from_object(engine)
    assert not target.supports_history
    output = await target(sample("And UNION ALL?"))
    assert engine.queries == ["And UNION ALL?"]
    assert output.response == "It keeps duplicates."
    chunks = output.retrieved_context or []
    assert [(c.doc_uri, c.score) for c in chunks] == [
        ("sql.md", 0.8),
        ("all.md", 0.6),
        ("n3", None),
    ]
    assert chunks[1].content == "UNION ALL keeps them."


async def test_chat_engine_gets_the_dialogue_history() -> None:
    engine = FakeChatEngine()
    target = target_from_object(engine)
    assert target.supports_history
    output = await target(DIALOGUE)
    message, history = engine.calls[0]
    assert message == "And UNION ALL?"
    assert len(history) == 2
    assert output.response == "It keeps duplicates."


class FakeModel:
    def predict(self, model_input: Any) -> list[str]:
        return [f"echo {model_input}"]


async def test_model_with_predict_gets_the_request_and_gives_its_one_prediction() -> None:
    output = await target_from_object(FakeModel())(sample("hi"))
    assert output.response == "echo hi"


async def test_mlflow_predict_fn_gets_the_inputs_as_keyword_arguments() -> None:
    def predict_fn(question: str, context: str) -> str:
        return f"{question}|{context}"

    target = target_from_object(predict_fn)
    output = await target(sample({"question": "q?", "context": "some text"}))
    assert output.response == "q?|some text"
    missing = await target(sample("only a string"))
    assert missing.error is not None and "['context']" in missing.error


@dataclass
class DataclassReply:
    answer: str
    contexts: list[str]
    usage: dict[str, int]


class PydanticReply(BaseModel):
    response: str
    retrieved_context: list[dict[str, Any]]


async def test_dataclass_and_pydantic_replies_map_like_columns() -> None:
    def dataclass_app(query: str) -> DataclassReply:
        return DataclassReply("a1", ["first", "second"], {"prompt_tokens": 5})

    output = await target_from_object(dataclass_app)(sample("q?"))
    assert output.response == "a1"
    assert [c.content for c in output.retrieved_context or []] == ["first", "second"]
    assert output.usage.input_tokens == 5

    def pydantic_app(query: str) -> PydanticReply:
        return PydanticReply(response="a2", retrieved_context=[{"doc_uri": "d", "score": 1}])

    output = await target_from_object(pydantic_app)(sample("q?"))
    assert output.response == "a2"
    assert [(c.doc_uri, c.score) for c in output.retrieved_context or []] == [("d", 1.0)]


async def test_a_failing_framework_call_is_the_samples_error() -> None:
    class Broken:
        async def ainvoke(self, value: Any) -> Any:
            raise RuntimeError("model offline")

    output = await target_from_object(Broken())(sample("q?"))
    assert output.response is None
    assert output.error == "RuntimeError: model offline"


async def test_a_reply_without_an_answer_is_the_samples_error() -> None:
    output = await target_from_object(FakeRunnable({"context": []}))(sample("q?"))
    assert output.error is not None and "without 'response'" in output.error


def test_an_object_of_no_known_shape_is_refused_naming_the_shapes() -> None:
    with pytest.raises(TargetSetupError, match=r"LangChain Runnable.*LlamaIndex query engine"):
        target_from_object(object())


def test_config_path_may_name_an_application_object(tmp_path: Path) -> None:
    (tmp_path / "app_chain.py").write_text(
        textwrap.dedent(
            """
            class Chain:
                def invoke(self, value):
                    return {"answer": "from the chain", "context": []}

            chain = Chain()
            """
        )
    )
    config = EvalConfig(
        metrics=["rouge_l"],
        target={"kind": "callable", "path": "app_chain.py:chain"},
        base_dir=tmp_path,
    )
    target = build_target(config)
    assert isinstance(target, CallableTarget)
    output = asyncio.run(target(sample("q?")))
    assert output.response == "from the chain"


def test_python_api_takes_an_application_object(tmp_path: Path) -> None:
    import ragjudge

    rows = [{"request_id": "1", "request": "q?", "expected_response": "It keeps them."}]
    reply = {"answer": "It keeps them.", "context": [Doc("text", {"source": "a.md"})]}
    result = ragjudge.evaluate(
        rows, target=FakeRunnable(reply), metrics=["exact_match"], store=str(tmp_path / "r.db")
    )
    summary = result.summary().set_index("metric")
    assert (summary.loc["exact_match", "mean"], summary.loc["exact_match", "n"]) == (1.0, 1)


# --- the real packages ---------------------------------------------------------------


async def test_real_langchain_chain() -> None:
    pytest.importorskip("langchain_core", reason="needs the 'langchain' extra")
    from langchain_core.documents import Document
    from langchain_core.language_models import FakeListChatModel
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnableLambda, RunnableParallel

    docs = [Document(page_content="Paris is in France.", metadata={"source": "fr.md"})]
    prompt = ChatPromptTemplate.from_template("{context}\n{question}")
    chain = RunnableParallel(
        context=RunnableLambda(lambda q: docs), question=RunnableLambda(lambda q: q)
    ).assign(answer=prompt | FakeListChatModel(responses=["Paris."]))
    output = await target_from_object(chain)(sample("Where is Paris?"))
    assert output.error is None
    assert output.response == "Paris."
    assert [(c.doc_uri, c.content) for c in output.retrieved_context or []] == [
        ("fr.md", "Paris is in France.")
    ]


async def test_real_llamaindex_query_engine() -> None:
    pytest.importorskip("llama_index.core", reason="needs the 'llamaindex' extra")
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.llms import MockLLM

    index = VectorStoreIndex.from_documents(
        [Document(text="Paris is in France.", metadata={"source": "fr.md"})],
        embed_model=MockEmbedding(embed_dim=8),
    )
    engine = index.as_query_engine(llm=MockLLM(max_tokens=4), similarity_top_k=1)
    output = await target_from_object(engine)(sample("Where is Paris?"))
    assert output.error is None
    assert output.response
    chunks = output.retrieved_context or []
    assert [c.doc_uri for c in chunks] == ["fr.md"]
    assert chunks[0].score is not None


async def test_real_llamaindex_chat_engine_gets_the_history() -> None:
    pytest.importorskip("llama_index.core", reason="needs the 'llamaindex' extra")
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.llms import MockLLM

    index = VectorStoreIndex.from_documents(
        [Document(text="UNION ALL keeps duplicates.", metadata={"source": "sql.md"})],
        embed_model=MockEmbedding(embed_dim=8),
    )
    engine = index.as_chat_engine(chat_mode="context", llm=MockLLM(max_tokens=4))
    target = target_from_object(engine)
    assert target.supports_history
    output = await target(DIALOGUE)
    assert output.error is None
    assert output.response
    assert [c.doc_uri for c in output.retrieved_context or []] == ["sql.md"]


class _EchoModel:  # becomes an mlflow PythonModel subclass in the test
    def predict(self, context: Any, model_input: Any, params: Any = None) -> list[dict[str, Any]]:
        question = model_input["question"].iloc[0]
        return [{"answer": f"echo {question}", "contexts": ["c1"]}]


def test_real_mlflow_pyfunc_model(tmp_path: Path) -> None:
    pytest.importorskip("mlflow", reason="needs the 'mlflow' extra")
    import mlflow.pyfunc
    import pandas as pd
    from mlflow.models import infer_signature

    model_class = type("EchoModel", (_EchoModel, mlflow.pyfunc.PythonModel), {})
    folder = tmp_path / "model"
    signature = infer_signature(pd.DataFrame({"question": ["q"]}))
    mlflow.pyfunc.save_model(str(folder), python_model=model_class(), signature=signature)
    config = EvalConfig.model_validate(
        {"metrics": ["rouge_l"], "target": {"kind": "mlflow_model", "uri": str(folder)}}
    )
    target = build_target(config)
    output = asyncio.run(target(sample("Where is Paris?")))
    assert output.error is None
    assert output.response == "echo Where is Paris?"
    assert [c.content for c in output.retrieved_context or []] == ["c1"]


def test_mlflow_model_kind_refuses_a_missing_uri_and_stray_keys() -> None:
    for spec, message in (
        ({"kind": "mlflow_model"}, "needs 'uri'"),
        ({"kind": "mlflow_model", "uri": "m", "urls": "x"}, "takes no urls"),
    ):
        config = EvalConfig.model_validate({"metrics": ["rouge_l"], "target": spec})
        with pytest.raises(TargetSetupError, match=message):
            build_target(config)
