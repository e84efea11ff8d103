"""What the ``likert`` and ``rubric`` judges share: the conversation they are shown (every message of the
request, then the response as the last assistant turn) and the prompt's language."""

from __future__ import annotations

from typing import Any, Literal

from ragjudge.metrics._base import MetricOptions
from ragjudge.schema import Output, Sample
from ragjudge.text._normalise import contains_kana

__all__ = ["Language", "LanguageOptions", "conversation", "prompt_language"]

Language = Literal["auto", "ja", "en"]


class LanguageOptions(MetricOptions):
    """The option both judges take."""

    language: Language = "auto"
    """The prompt's language (``ja`` or ``en``); ``auto``: Japanese when the request or
    the response holds kana, English otherwise. The judge is asked to explain in the
    same language."""


def prompt_language(language: Language, sample: Sample, output: Output) -> Literal["ja", "en"]:
    """The language of the prompt for this sample."""
    if language != "auto":
        return language
    texts = [m.content for m in sample.request.messages] + [output.response or ""]
    return "ja" if any(contains_kana(t) for t in texts) else "en"


def conversation(sample: Sample, response: str) -> dict[str, Any]:
    """The template values of the prompt's ``<<conversation>>``: every request message
    (with its role) and the response under judgement, the last assistant turn."""
    turns = [{"role": m.role, "content": m.content} for m in sample.request.messages]
    return {"turns": turns, "response": response}
