"""A retriever behind an HTTP search endpoint."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragjudge._util.redact import scrub_url
from ragjudge.schema import ContextChunk
from ragjudge.targets._targets import DEFAULT_MAX_REPLY_BYTES
from ragjudge.targets.http._client import HttpClient, check_url
from ragjudge.targets.http._paths import ResponseFormatError, json_type, resolve_path


class HttpRetriever:
    """A retriever behind an HTTP search endpoint, e.g. the RAG system's own search.

    ``search(query, k)`` POSTs ``{query_field: query, k_field: k}`` to ``url`` and
    reads the list at ``results_path``; each result is an object with the text under
    ``content_key``, the document under ``doc_uri_key`` (its position when absent) and
    an optional numeric ``score``, or a plain string. Failures raise
    :class:`HttpCallError` or :class:`ResponseFormatError` (a metric records them as
    its score's error); a reply over ``max_reply_bytes`` (decompressed) is such an
    error too. Requests follow the rules of :class:`HttpClient`: the configured
    ``headers`` never go to another origin and errors hold no secret.
    """

    def __init__(
        self,
        url: str,
        *,
        query_field: str = "query",
        k_field: str = "k",
        results_path: str = "results",
        content_key: str = "content",
        doc_uri_key: str = "doc_uri",
        headers: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        self.url = check_url(url)
        self.query_field = query_field
        self.k_field = k_field
        self.results_path = results_path
        self.content_key = content_key
        self.doc_uri_key = doc_uri_key
        self.http = HttpClient(
            headers=headers,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_reply_bytes=max_reply_bytes,
        )

    def __repr__(self) -> str:
        return f"HttpRetriever({scrub_url(self.url)!r})"

    async def search(self, query: str, k: int = 5) -> list[ContextChunk]:
        """The at most ``k`` chunks the endpoint returns for ``query``, in its order."""
        if k < 0:
            raise ValueError(f"k must not be negative, got {k}")
        if k == 0:
            return []
        body = {self.query_field: query, self.k_field: k}
        reply = await self.http.request_json("POST", self.url, json_body=body)
        results = resolve_path(reply.body, self.results_path)
        if not isinstance(results, list):
            raise ResponseFormatError(
                f"{self.results_path!r} in the search response is {json_type(results)}, not a list"
            )
        return [self._chunk(item, i) for i, item in enumerate(results[:k])]

    def _chunk(self, item: Any, index: int) -> ContextChunk:
        where = f"{self.results_path}.{index}"
        if isinstance(item, str):
            return ContextChunk(doc_uri=where, content=item)
        if not isinstance(item, dict):
            raise ResponseFormatError(f"{where!r} in the search response is {json_type(item)}")
        content = item.get(self.content_key)
        if not isinstance(content, str):
            raise ResponseFormatError(
                f"{where + '.' + self.content_key!r} in the search response is "
                f"{'missing' if content is None else json_type(content)}, not text"
            )
        uri = item.get(self.doc_uri_key)
        score = item.get("score")
        return ContextChunk(
            doc_uri=str(uri) if uri else where,
            content=content,
            score=float(score) if isinstance(score, int | float) else None,
        )

    async def aclose(self) -> None:
        """Close the HTTP client of the running loop."""
        await self.http.aclose()
