"""A LangChain retrieval chain evaluated as it is: ``chain`` is a Runnable, and ragjudge
calls its ``ainvoke`` with each question and reads the ``answer`` message and the
``context`` documents (their ``source`` metadata is the document's name).

    pip install 'ragjudge[langchain]'
    ragjudge run examples/frameworks/langchain.yaml

The "model" answers with the first sentence of the best note, so the example runs
offline; put a real chat model in its place (``ChatOpenAI(...)``) for a real app.
"""

from __future__ import annotations

from framework_notes import first_sentence, search
from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.prompt_values import PromptValue
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough


def retrieve(question: str) -> list[Document]:
    return [
        Document(page_content=text, metadata={"source": name, "score": score})
        for name, text, score in search(question)
    ]


def extractive_model(prompt: PromptValue) -> AIMessage:
    """Answers with the first sentence of the first note in the prompt."""
    text = prompt.to_string()
    context = text.split("Notes:\n", 1)[1].split("\n", 1)[0]
    words = len(text.split())
    return AIMessage(
        content=first_sentence(context) if context else "I don't know.",
        usage_metadata={"input_tokens": words, "output_tokens": 12, "total_tokens": words + 12},
    )


prompt = ChatPromptTemplate.from_template("Notes:\n{notes}\nQuestion: {question}")


def notes_text(inputs: dict[str, object]) -> str:
    documents = inputs["context"]
    assert isinstance(documents, list)
    return "\n".join(doc.page_content for doc in documents)


chain = RunnableParallel(context=RunnableLambda(retrieve), question=RunnablePassthrough()).assign(
    answer=RunnablePassthrough.assign(notes=notes_text) | prompt | RunnableLambda(extractive_model)
)
