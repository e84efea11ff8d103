"""The answer instruction appended to a spec's prompt when the spec (or the metric)
names its ``eval_type``: where the judge must put its choice, in the prompt's
language."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["answer_instruction"]

_ENGLISH = {
    "cot_classify": (
        "First reason it through step by step, so that your conclusion is sound, and do "
        "not give your answer at the start. Then write your answer, exactly one of "
        "{choices} with no quotes or punctuation, alone on the last line of your reply."
    ),
    "classify_cot": (
        "Write your answer first, exactly one of {choices} with no quotes or "
        "punctuation, alone on the first line of your reply. Then, from the next line "
        "on, explain your reasoning step by step."
    ),
    "classify": (
        "Reply with exactly one of {choices} and nothing else: no quotes, no "
        "punctuation, no explanation."
    ),
}

_JAPANESE = {
    "cot_classify": (
        "まず、結論が確かなものになるよう、段階を追って考えを書いてください。答えを冒頭に"
        "書かないでください。そのうえで、返答の最後の行に{choices}のうち一つだけを、"
        "引用符や句読点を付けずに単独で書いてください。"
    ),
    "classify_cot": (
        "返答の最初の行に{choices}のうち一つだけを、引用符や句読点を付けずに単独で"
        "書いてください。次の行から、そう判断した理由を段階を追って説明してください。"
    ),
    "classify": (
        "{choices}のうち一つだけを返答してください。引用符、句読点、説明は付けないでください。"
    ),
}


def answer_instruction(eval_type: str, choices: Sequence[str], language: str) -> str:
    """Where to put the answer for ``eval_type``, listing ``choices``, in English or
    (``language="ja"``) Japanese."""
    if language == "ja":
        listed = "".join(f"「{c}」" for c in choices)
        return _JAPANESE[eval_type].format(choices=listed)
    quoted = [f'"{c}"' for c in choices]
    listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return _ENGLISH[eval_type].format(choices=listed)
