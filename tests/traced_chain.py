"""An OTLP JSON file written by the real instrumentation: OpenInference's LangChain
instrumentor tracing a langchain-core chain (a retriever returning Documents, a tool
call and a fake chat model reporting its tokens), exported by the OpenTelemetry SDK and
encoded as OTLP's protobuf JSON mapping (base64 ids)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

QUESTION = "What is the capital of France?"
ANSWER = "Paris, with 2.1 million people."


def write_langchain_trace(path: Path, *, lines: bool = False) -> Path:
    """Run the chain once under the instrumentor and write what the SDK exported to
    ``path``: one request, or (``lines``) one JSON line as the collector writes them."""
    from google.protobuf.json_format import MessageToJson
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        assert _chain().invoke(QUESTION) == ANSWER
    finally:
        instrumentor.uninstrument()
    request = json.loads(MessageToJson(encode_spans(exporter.get_finished_spans())))
    text = json.dumps(request, separators=(",", ":")) + "\n" if lines else json.dumps(request)
    path.write_text(text, encoding="utf-8")
    return path


def _chain() -> Any:
    from langchain_core.documents import Document
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableLambda
    from langchain_core.tools import tool

    class Atlas(BaseRetriever):
        def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
            return [
                Document(
                    page_content="Paris is the capital of France.",
                    id="doc-paris",
                    metadata={"source": "atlas/france.md"},
                ),
                Document(page_content="Lyon is in France.", id="doc-lyon"),
            ]

    @tool
    def population(city: str) -> str:
        """The population of a city."""
        return "2.1 million"

    usage = {"input_tokens": 42, "output_tokens": 7, "total_tokens": 49}
    model = GenericFakeChatModel(messages=iter([AIMessage(content=ANSWER, usage_metadata=usage)]))

    def answer(question: str) -> Any:
        documents = Atlas().invoke(question)
        people = population.invoke({"city": "Paris"})
        return model.invoke(f"{documents[0].page_content} {people} {question}").content

    return RunnableLambda(answer).with_config(run_name="rag_chain")
