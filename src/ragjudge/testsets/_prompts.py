"""The generation prompts: one per kind of sample, asking the generator model for one
JSON object (question, reference answer, facts, and the earlier turns of a dialogue)
written from the candidate's chunks.

Instructions are in English whatever the language of the knowledge base; a line names
the language the sample is written in. Every text that is not ours — the chunks, their
``doc_uri`` and the persona — stays inside ``<<<BEGIN …>>>`` / ``<<<END …>>>`` markers,
defused by :func:`~ragjudge.metrics._prompts.delimit`, so a chunk cannot pass itself
off as instructions. Changing any wording here changes :data:`PROMPT_VERSION`, which
every generated sample carries in its provenance.
"""

from __future__ import annotations

from ragjudge.metrics._prompts import DATA_NOTICE, delimit, delimit_contexts
from ragjudge.models import ChatMessage
from ragjudge.testsets._types import Kind, Language, SourcePlan, Style

__all__ = [
    "GENERATION_PURPOSE",
    "MAX_FACTS",
    "MAX_TURNS",
    "PROMPT_VERSION",
    "generation_messages",
    "unanswerable_reference",
]

PROMPT_VERSION = "1"
"""The version of the generation and check prompts (bumped whenever one changes)."""

GENERATION_PURPOSE = "generate (write a sample)"

MAX_FACTS = 5
MAX_TURNS = 2

_UNANSWERABLE = {
    "en": "The knowledge base does not contain the answer to this question.",
    "ja": "ナレッジベースにはこの質問の答えが含まれていません。",
}
_LANGUAGE_NAMES = {"en": "English", "ja": "Japanese"}

_INTRO = (
    "You write one test sample for evaluating an assistant that answers questions from "
    "a knowledge base. The sample is written from the passages of the knowledge base "
    "shown below."
)

_TASKS: dict[Kind, str] = {
    "single": (
        "Write one factual question that the passage answers, its reference answer and "
        "the facts a correct answer states."
    ),
    "multi": (
        "Write one question whose answer needs BOTH passages: a part of the answer must "
        "come from each, so neither passage alone answers it. Give its reference answer, "
        "which combines them, and the facts a correct answer states."
    ),
    "comparative": (
        "Write one question that compares what the two passages say (a difference or a "
        "similarity between the things they describe), its reference answer, which "
        "states both sides, and the facts a correct answer states."
    ),
    "unanswerable": (
        "The passage only shows the topic. Write one plausible question on the same "
        "topic that a user might ask but that the passage does NOT answer: ask about a "
        "detail close to what it says (a figure, a date, a cause, a consequence) that it "
        "does not give. Do not ask about something unrelated. The answer is exactly: "
        "{reference} Leave the facts empty."
    ),
    "conversational": (
        "Write a short dialogue between a user and the assistant: {turns} earlier turns "
        "(a user's question and the assistant's answer, taken from the passage), then "
        "the user's last question. The last question depends on the earlier turns: it "
        "uses a pronoun or leaves out what they already named, so it cannot be "
        "understood alone. Its answer comes from the passage and is NOT already given "
        "in the earlier turns. Give the reference answer to the last question and the "
        "facts a correct answer to it states."
    ),
}

_REAL_QUESTION = (
    "- Ask what a real user of this knowledge base would ask: a specific question, "
    "not one that general knowledge alone answers."
)
_NO_SOURCE_MENTION = (
    '- Never mention "the passage", "the text", "the context", "the document" or '
    '"according to the document": the user has not seen them.'
)
_ON_ITS_OWN = "- The question makes sense on its own, without the passages."
_GROUNDED = "- The reference answer says only what the passages say."
_FACTS = (
    "- Each fact is one short statement that can be checked against the passages; "
    "give 1 to {max_facts} facts."
)


def _rules(kind: Kind) -> str:
    """The rules every sample follows, as far as they apply to ``kind``."""
    rules = [_REAL_QUESTION, _NO_SOURCE_MENTION]
    if kind != "conversational":
        rules.append(_ON_ITS_OWN)
    if kind != "unanswerable":
        rules += [_GROUNDED, _FACTS.format(max_facts=MAX_FACTS)]
    return "Rules:\n" + "\n".join(rules)


_STYLES: dict[Style, str] = {
    "plain": "Word the question plainly, in one clear sentence.",
    "terse": (
        "Word the question tersely: a few keywords, as typed into a search box, not a "
        "full sentence."
    ),
    "verbose": (
        "Word the question verbosely: two or three sentences that tell the user's "
        "situation and why they ask, then the question."
    ),
    "misspelt": (
        "Word the question casually, as typed in a hurry. Spell the words correctly: "
        "typing mistakes are added afterwards."
    ),
}
_MISSPELT_JAPANESE = (
    "Word the question casually, as typed in a hurry on a phone: colloquial, with kana "
    "where kanji would usually be written and without polite endings."
)

_SHAPES: dict[Kind, str] = {
    "single": '{"question": "...", "answer": "...", "facts": ["...", "..."]}',
    "multi": '{"question": "...", "answer": "...", "facts": ["...", "..."]}',
    "comparative": '{"question": "...", "answer": "...", "facts": ["...", "..."]}',
    "unanswerable": '{"question": "...", "answer": "...", "facts": []}',
    "conversational": (
        '{"turns": [{"user": "...", "assistant": "..."}], "question": "...", '
        '"answer": "...", "facts": ["...", "..."]}'
    ),
}


def unanswerable_reference(language: Language) -> str:
    """The reference answer of an unanswerable sample, in ``language``."""
    return _UNANSWERABLE[language]


def generation_messages(plan: SourcePlan) -> list[ChatMessage]:
    """The one user message asking for the sample ``plan`` describes."""
    sections = [
        f"{_INTRO}\n{DATA_NOTICE}",
        _passages_section(plan),
        _persona_section(plan.persona),
        _task_section(plan),
        _reply_section(plan.kind),
    ]
    return [{"role": "user", "content": "\n\n".join(s for s in sections if s)}]


def _passages_section(plan: SourcePlan) -> str:
    heading = "# The passage" if len(plan.chunks) == 1 else "# The passages"
    return f"{heading}\n{delimit_contexts(plan.chunks, label='PASSAGE')}"


def _persona_section(persona: str | None) -> str:
    if not persona or not persona.strip():
        return ""
    return (
        "# Who asks\nThe question is asked by:\n"
        f"{delimit('PERSONA', persona.strip())}\n"
        "Write the question as this person would ask it."
    )


def _task_section(plan: SourcePlan) -> str:
    task = _TASKS[plan.kind].format(
        reference=unanswerable_reference(plan.language), turns=f"1 or {MAX_TURNS}"
    )
    lines = [
        "# The task",
        task,
        _rules(plan.kind),
        _style_line(plan.style, plan.language),
        language_line(plan.language, dialogue=plan.kind == "conversational"),
    ]
    return "\n".join(lines)


def _style_line(style: Style, language: Language) -> str:
    if style == "misspelt" and language == "ja":
        return _MISSPELT_JAPANESE
    return _STYLES[style]


def language_line(language: Language, *, dialogue: bool = False) -> str:
    """The line naming the language a sample is written in (the JSON keys stay English)."""
    name = _LANGUAGE_NAMES[language]
    line = f"Write the question, the answer and the facts in {name}."
    return f"{line} Write the earlier turns in {name} too." if dialogue else line


def _reply_section(kind: Kind) -> str:
    return (
        "# Reply\n"
        "Reply with ONE JSON object, with these keys and nothing else around it:\n"
        f"{_SHAPES[kind]}"
    )
