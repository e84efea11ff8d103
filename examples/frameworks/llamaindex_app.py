"""A LlamaIndex query engine evaluated as it is: ragjudge calls ``query_engine.aquery``
with each question and reads the ``Response``: its text and its ``source_nodes`` (each
note's name and retrieval score).

    pip install 'ragjudge[llamaindex]'
    ragjudge run examples/frameworks/llamaindex.yaml

The engine searches by keywords and answers with the first sentence of the best note,
so the example needs no embeddings, no model and no network; an engine from
``index.as_query_engine()`` is evaluated the same way.
"""

from __future__ import annotations

from framework_notes import first_sentence, search
from llama_index.core.base.response.schema import Response
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode


class NotesQueryEngine(CustomQueryEngine):
    """Keyword retrieval over the notes, and an extractive answer."""

    def custom_query(self, query_str: str) -> Response:
        nodes = [
            NodeWithScore(
                node=TextNode(text=text, id_=name, metadata={"source": name}), score=score
            )
            for name, text, score in search(query_str)
        ]
        answer = first_sentence(nodes[0].node.get_content()) if nodes else "I don't know."
        return Response(response=answer, source_nodes=nodes)


query_engine = NotesQueryEngine()
