"""Application objects of RAG frameworks as targets, recognised by their shape.

No framework is imported here: an object is told by the methods it has.

- a LangChain Runnable (``ainvoke``/``invoke``): it receives the query, or the request
  dict when the evaluation set held one, or ``{KEY: query}`` when its input schema
  names the keys it takes;
- a LlamaIndex query engine (``aquery``/``query``): it receives the query;
- a LlamaIndex chat engine (``achat``/``chat``): it receives the query and the
  earlier messages of a dialogue as ``chat_history``;
- a model with ``predict`` (an MLflow pyfunc model): it receives the request as the
  evaluation set held it.

Their replies — a string, a chat message, a LlamaIndex ``Response``, a dict, a
dataclass or a pydantic object — are read by :func:`reply_fields`, with the field names
an evaluation set's columns may have (``answer``, ``output``, ``contexts``,
``source_documents``, …).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ragjudge.errors import TargetSetupError
from ragjudge.loading._peers import QA_SYNONYMS
from ragjudge.schema import Sample

__all__ = ["ACCEPTED_SHAPES", "FrameworkCall", "framework_call", "reply_fields"]

ACCEPTED_SHAPES = (
    "a function (sync or async), a LangChain Runnable (invoke/ainvoke), a LlamaIndex "
    "query engine (query/aquery) or chat engine (chat/achat), or a model with predict "
    "(an MLflow pyfunc model)"
)

_RESPONSE_KEYS = ("response", *QA_SYNONYMS["response"], "result", "content", "text")
# A LlamaIndex chat reply's ``sources`` are tool outputs: its ``source_nodes`` come first.
_CONTEXT_KEYS = (
    "retrieved_context",
    "source_nodes",
    "source_documents",
    *QA_SYNONYMS["retrieved_context"],
)
_DOC_URI_KEYS = ("doc_uri", "source", "id", "url", "file_path", "file_name")
_HISTORY_INPUT_KEYS = ("chat_history", "history", "messages")
_QUERY_INPUT_KEYS = ("input", *QA_SYNONYMS["request"])


@dataclass(frozen=True)
class FrameworkCall:
    """How to call an application object: ``fn(sample)`` (sync or async) gives its
    reply; ``kind`` names the shape; ``takes_history`` says whether a dialogue's
    earlier messages reach it."""

    fn: Callable[[Sample], Any]
    kind: str
    takes_history: bool


def framework_call(obj: Any) -> FrameworkCall | None:
    """The call of ``obj`` when it has a framework shape (see the module); None for a
    plain function, a class or an object of no known shape."""
    if inspect.isroutine(obj) or isinstance(obj, type):
        return None
    for method, build in _SHAPES:
        if callable(getattr(obj, method, None)):
            return build(obj)
    return None


def _runnable(obj: Any) -> FrameworkCall:
    keys = _input_keys(obj)
    takes_history = any(key in keys for key in _HISTORY_INPUT_KEYS)

    def value(sample: Sample) -> Any:
        return _runnable_input(sample, keys)

    if callable(getattr(obj, "ainvoke", None)):

        async def ainvoke(sample: Sample) -> Any:
            return await obj.ainvoke(value(sample))

        return FrameworkCall(ainvoke, "LangChain Runnable", takes_history)
    return FrameworkCall(lambda sample: obj.invoke(value(sample)), "Runnable", takes_history)


def _input_keys(obj: Any) -> list[str]:
    """The keys a Runnable's input dict takes, when its input schema names them."""
    schema = getattr(obj, "input_schema", None)
    dump = getattr(schema, "model_json_schema", None)
    if not callable(dump):
        return []
    try:
        described = dump()
    except Exception:  # a schema that cannot describe itself names no keys
        return []
    properties = described.get("properties") if isinstance(described, dict) else None
    if described.get("type") != "object" or not isinstance(properties, dict):
        return []
    return [str(key) for key in properties]


def _runnable_input(sample: Sample, keys: list[str]) -> Any:
    """The request dict as held, or the query, for a Runnable whose input keys are
    unknown; else a dict of those keys: the request dict's values, the query under
    the question's key and the earlier messages under the history's."""
    request = sample.request
    given = request.original if isinstance(request.original, dict) else {}
    if not keys:
        return given or request.query
    value = {key: given[key] for key in keys if key in given}
    query_key = next((k for k in keys if k in _QUERY_INPUT_KEYS), None) or next(
        (k for k in keys if k not in _HISTORY_INPUT_KEYS), keys[0]
    )
    value.setdefault(query_key, request.query)
    for key in keys:
        if key in _HISTORY_INPUT_KEYS and key not in value:
            value[key] = [m.model_dump() for m in request.history]
    return value


def _query_engine(obj: Any) -> FrameworkCall:
    if callable(getattr(obj, "aquery", None)):

        async def aquery(sample: Sample) -> Any:
            return await obj.aquery(sample.request.query)

        return FrameworkCall(aquery, "LlamaIndex query engine", False)
    return FrameworkCall(lambda sample: obj.query(sample.request.query), "query engine", False)


def _chat_engine(obj: Any) -> FrameworkCall:
    if callable(getattr(obj, "achat", None)):

        async def achat(sample: Sample) -> Any:
            return await obj.achat(sample.request.query, chat_history=_chat_history(sample))

        return FrameworkCall(achat, "LlamaIndex chat engine", True)

    def chat(sample: Sample) -> Any:
        return obj.chat(sample.request.query, chat_history=_chat_history(sample))

    return FrameworkCall(chat, "chat engine", True)


def _chat_history(sample: Sample) -> list[Any]:
    """The earlier messages as LlamaIndex ``ChatMessage`` objects where LlamaIndex is
    installed (it is, when one of its engines is the target), else as dicts."""
    history = [m.model_dump() for m in sample.request.history]
    if not history:
        return []
    try:
        from llama_index.core.llms import ChatMessage
    except ImportError:
        return history
    return [ChatMessage(role=m["role"], content=m["content"]) for m in history]


def _predictor(obj: Any) -> FrameworkCall:
    def predict(sample: Sample) -> Any:
        return only_prediction(obj.predict(sample.request.original))

    return FrameworkCall(predict, "model with predict", False)


def only_prediction(result: Any) -> Any:
    """The one prediction of a batch a model returns for one input: a list's or a
    tuple's single item, a DataFrame's first row, a Series' or an array's first
    value; anything else as it is."""
    if isinstance(result, list | tuple) and len(result) == 1:
        return result[0]
    to_dict = getattr(result, "to_dict", None)
    if hasattr(result, "iloc") and hasattr(result, "columns") and callable(to_dict):
        rows = to_dict(orient="records")
        return rows[0] if len(rows) == 1 else rows
    if hasattr(result, "iloc") and len(result) == 1:
        return result.iloc[0]
    if hasattr(result, "tolist") and getattr(result, "ndim", 0) == 1 and len(result) == 1:
        return result.tolist()[0]
    return result


_SHAPES: tuple[tuple[str, Callable[[Any], FrameworkCall]], ...] = (
    ("ainvoke", _runnable),
    ("invoke", _runnable),
    ("aquery", _query_engine),
    ("query", _query_engine),
    ("achat", _chat_engine),
    ("chat", _chat_engine),
    ("predict", _predictor),
)


def reply_fields(result: Any) -> dict[str, Any] | None:
    """A reply as ``{response, retrieved_context, usage, trace, tool_calls, messages}``
    (the fields it holds),
    read from a chat message, a LlamaIndex response, a dict, a dataclass or a pydantic
    object by the names evaluation-set columns may have; None for a reply of no such
    shape. A plain string is left to the caller."""
    fields = _fields_of(result)
    if fields is None:
        return None
    reply: dict[str, Any] = {}
    response = _first(fields, _RESPONSE_KEYS)
    if response is not None:
        reply["response"] = _text_of(response)
    contexts = _first(fields, _CONTEXT_KEYS)
    if contexts is not None:
        reply["retrieved_context"] = (
            [context_item(c) for c in contexts] if isinstance(contexts, list | tuple) else contexts
        )
    usage = _usage_of(fields, response)
    if usage is not None:
        reply["usage"] = usage
    if fields.get("trace") is not None:
        reply["trace"] = fields["trace"]
    for key in ("tool_calls", "messages"):
        if fields.get(key) is not None:
            reply[key] = fields[key]
    return reply


def _fields_of(result: Any) -> Mapping[str, Any] | None:
    if isinstance(result, Mapping):
        return result
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
    model_fields = getattr(type(result), "model_fields", None)
    if isinstance(model_fields, Mapping):  # a pydantic object, a LangChain message among them
        return {name: getattr(result, name) for name in model_fields}
    if hasattr(result, "source_nodes") and hasattr(result, "response"):
        return {"response": result.response, "source_nodes": result.source_nodes}
    return None


def _first(fields: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    return next((fields[k] for k in keys if fields.get(k) is not None), None)


def _text_of(value: Any) -> Any:
    """A message's text (``.content``, its text blocks joined); other values as
    they are."""
    if isinstance(value, str | Mapping):
        return value
    if isinstance(value, list):
        return _joined_text_blocks(value)
    content = getattr(value, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return _joined_text_blocks(content)
    nested = _fields_of(value)
    if nested is not None:
        return _first(nested, _RESPONSE_KEYS) or value
    return value


def _joined_text_blocks(blocks: list[Any]) -> Any:
    """The text of a message's content blocks (strings and ``{"type": "text", "text":
    ...}``); the list as it is when it holds no text."""
    found = [
        block if isinstance(block, str) else block.get("text")
        for block in blocks
        if isinstance(block, str) or (isinstance(block, Mapping) and block.get("type") == "text")
    ]
    texts = [text for text in found if isinstance(text, str)]
    return "".join(texts) if texts else blocks


def _usage_of(fields: Mapping[str, Any], response: Any) -> Any:
    """Token counts: a ``usage`` field, else a LangChain message's ``usage_metadata``
    (the reply's own, or its response message's)."""
    if fields.get("usage") is not None:
        return _plain(fields["usage"])
    for holder in (fields, _fields_of(response) or {}):
        if holder.get("usage_metadata") is not None:
            return _plain(holder["usage_metadata"])
    return None


def _plain(value: Any) -> Any:
    fields = _fields_of(value)
    return dict(fields) if fields is not None else value


def context_item(item: Any) -> Any:
    """One retrieved context in the form :func:`~ragjudge.targets._targets.context_chunk`
    reads: a LangChain document (``page_content``, ``metadata``) or a LlamaIndex node
    with its score (``node``, ``score``) becomes ``{content, doc_uri, score}``; other
    items are left as they are."""
    node = getattr(item, "node", None)
    if node is not None and callable(getattr(node, "get_content", None)):
        return _node_chunk(node, getattr(item, "score", None))
    if callable(getattr(item, "get_content", None)) and hasattr(item, "node_id"):
        return _node_chunk(item, None)
    if isinstance(item, Mapping) and "page_content" in item:
        return _document_chunk(item["page_content"], item.get("metadata"), item.get("id"))
    if hasattr(item, "page_content"):
        return _document_chunk(item.page_content, item.metadata, getattr(item, "id", None))
    return item


def _document_chunk(content: Any, metadata: Any, doc_id: Any) -> dict[str, Any]:
    meta = metadata if isinstance(metadata, Mapping) else {}
    chunk: dict[str, Any] = {"content": content}
    uri = _first(meta, _DOC_URI_KEYS) or doc_id
    if uri:
        chunk["doc_uri"] = str(uri)
    score = _first(meta, ("score", "relevance_score"))
    if score is not None:
        chunk["score"] = score
    return chunk


def _node_chunk(node: Any, score: Any) -> dict[str, Any]:
    meta = getattr(node, "metadata", None)
    meta = meta if isinstance(meta, Mapping) else {}
    uri = _first(meta, _DOC_URI_KEYS) or getattr(node, "ref_doc_id", None) or node.node_id
    chunk: dict[str, Any] = {"content": node.get_content(), "doc_uri": str(uri)}
    if score is not None:
        chunk["score"] = score
    return chunk


def no_known_shape(obj: Any, where: str) -> TargetSetupError:
    """The error for a target object ragjudge cannot call."""
    return TargetSetupError(
        f"{where} is a {type(obj).__name__}, which ragjudge cannot call; a target is "
        f"{ACCEPTED_SHAPES}"
    )
