"""Filling a spec's ``{key}`` slots for one sample, keeping data apart from the spec.

The spec's prompt and ``args`` are trusted text (:class:`Instruction`). Every value from
the data — the request, the response, references, contexts, metadata, completions of
the other ``input_outputs`` pairs — becomes a delimited block named after its slot
(``{completion}`` → ``<<<BEGIN COMPLETION>>>``); a list becomes numbered blocks
(``IDEAL 1``, ``IDEAL 2``) and the several completions of a multi-completion sample are
laid out by the spec's ``completion_sample_templates``, whose own text is trusted.
Nothing from the data is ever formatted as a template, so a ``{key}`` inside a response
stays text.
"""

from __future__ import annotations

import json
import string
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragjudge.metrics._base import MetricContext, MetricFailure, require_response
from ragjudge.metrics._prompts import Instruction
from ragjudge.metrics.classify._spec import ClassifySpec, prompt_parts
from ragjudge.schema import ContextChunk, Message, Output, Request, Sample

__all__ = [
    "SAMPLE_SLOTS",
    "Item",
    "SlotFiller",
    "block",
    "metadata_slots",
    "request_text",
    "text",
]

Item = list[Any]
"""One piece of a prompt: ``[Instruction("text"), Instruction(trusted)]`` or
``[Instruction("block"), Instruction(label), data, source or None]``."""

SAMPLE_SLOTS = {
    "input": "the request (the conversation when it has several messages)",
    "completion": "the response",
    "ideal": "the reference answer(s)",
    "expected_facts": "the expected facts",
    "contexts": "the retrieved contexts (doc_uri shown as their source)",
    "expected_contexts": "the expected retrieved contexts",
}
"""The slots every sample fills (besides ``input_outputs``, metadata keys and args)."""

_REQUIRES = {
    "ideal": "expected_response",
    "expected_facts": "expected_facts",
    "contexts": "retrieved_context",
    "expected_contexts": "expected_retrieved_context",
}


def text(trusted: str) -> Item:
    """Trusted text (the spec's own words)."""
    return [Instruction("text"), Instruction(trusted)]


def block(label: str, data: str, source: str | None = None) -> Item:
    """Evaluated ``data`` in a block named ``label`` (``source``: an evaluated label)."""
    return [Instruction("block"), Instruction(label), data, source]


def required_fields(spec: ClassifySpec) -> tuple[str, ...]:
    """The sample fields the spec's slots read, besides the response."""
    return tuple(dict.fromkeys(_REQUIRES[s] for s in spec.slots if s in _REQUIRES))


def metadata_slots(spec: ClassifySpec, arg_slots: Collection[str] = ()) -> list[str]:
    """The prompt's slots only a row's metadata fills: neither a sample slot, an
    ``input_outputs`` pair nor an arg."""
    filled = {*SAMPLE_SLOTS, *spec.input_outputs, *spec.input_outputs.values(), *arg_slots}
    return [slot for slot in spec.slots if slot not in filled]


def request_text(request: Request) -> str:
    """The request as the judge reads it: the query, or every message as ``role: text``."""
    if len(request.messages) == 1:
        return request.query
    return messages_text(request.messages)


def messages_text(messages: Sequence[Message]) -> str:
    """Chat messages as ``role: content`` lines."""
    return "\n".join(f"{m.role}: {m.content}" for m in messages)


@dataclass
class SlotFiller:
    """The data slots of one sample; :meth:`items` lays out a prompt with them and one
    arg set's values (trusted text)."""

    spec: ClassifySpec
    values: dict[str, list[Item]]

    def items(self, prompt: str, args: Mapping[str, str]) -> list[Item]:
        """The pieces of ``prompt`` with every slot filled."""
        pieces: list[Item] = []
        for literal, slot in prompt_parts(prompt):
            if literal:
                pieces.append(text(literal))
            if slot is None:
                continue
            if slot in args:
                pieces.append(text(args[slot]))
            elif slot in self.values:
                pieces.extend(self.values[slot])
            else:
                raise MetricFailure(_unknown_slot(self.spec, slot, args))
        return pieces

    @classmethod
    async def of(
        cls,
        spec: ClassifySpec,
        sample: Sample,
        output: Output,
        ctx: MetricContext,
        *,
        arg_slots: Sequence[str] = (),
        given: Mapping[str, str] | None = None,
    ) -> SlotFiller:
        """Read every slot the prompt uses from the sample, the output and (for the
        completions the data lacks) the target; ``given`` fills slots with evaluated
        text of the caller's (the two responses of a battle)."""
        given = given or {}
        values: dict[str, list[Item]] = {}
        pairs = _Pairs(spec, sample, output, ctx)
        for slot in spec.slots:
            if slot in arg_slots:
                continue
            if slot in given:
                values[slot] = [block(slot.upper(), given[slot])]
                continue
            found = await pairs.items(slot)
            if found is None:
                found = _sample_items(slot, sample, output)
            if found is not None:
                values[slot] = found
        return cls(spec, values)


def _unknown_slot(spec: ClassifySpec, slot: str, args: Mapping[str, str]) -> str:
    known = [*SAMPLE_SLOTS, *spec.input_outputs, *spec.input_outputs.values(), *args]
    return (
        f"{spec.where}: the prompt's {{{slot}}} is neither a field of the row "
        f"({', '.join(dict.fromkeys(known))}), a metadata key of this row, nor an arg"
    )


class _Pairs:
    """The ``input_outputs`` slots: the first pair is the row's request and response;
    the others come from the row's metadata, or the target answers their input."""

    def __init__(
        self, spec: ClassifySpec, sample: Sample, output: Output, ctx: MetricContext
    ) -> None:
        self.spec, self.sample, self.output, self.ctx = spec, sample, output, ctx
        pairs = list(spec.input_outputs.items())
        self.first_input, self.first_output = pairs[0]
        self.input_of = {out: key for key, out in pairs}

    async def items(self, slot: str) -> list[Item] | None:
        if slot in self.spec.input_outputs:
            return [block(slot.upper(), self._input(slot))]
        if slot not in self.input_of:
            return None
        completions = await self._completions(slot)
        template = self.spec.completion_sample_templates.get(slot)
        if template is None or len(completions) == 1:
            return [block(slot.upper(), completions[0])]
        return _laid_out(slot.upper(), completions, template)

    def _input(self, key: str) -> str:
        """The input of a pair: the row's metadata value, else the request."""
        if key in self.sample.metadata:
            return _metadata_text(self.sample.metadata[key])
        return request_text(self.sample.request)

    async def _completions(self, out: str) -> list[str]:
        """The completion(s) of a pair: the response for the first pair, the row's
        metadata for the others; the target answers for any still missing."""
        n = self.spec.multicomp_n if out in self.spec.completion_sample_templates else 1
        recorded = self.sample.metadata.get(out)
        if n > 1 and isinstance(recorded, list) and _all_text(recorded):
            return [str(r) for r in recorded]
        found: list[str] = []
        if out == self.first_output:
            found.append(require_response(self.output))
        elif isinstance(recorded, str):
            found.append(recorded)
        while len(found) < n:
            found.append(await self._ask_target(out))
        return found

    async def _ask_target(self, out: str) -> str:
        target = self.ctx.target
        if target is None or not getattr(target, "supplies_response", True):
            raise MetricFailure(
                f"{self.spec.where}: {{{out}}} needs completions the row does not hold "
                f"(metadata {out!r}) and the target does not answer (responses come "
                "from the data)"
            )
        key = self.input_of[out]
        raw = self.sample.metadata.get(key, self.sample.request.original)
        request = Request.parse({"messages": raw} if isinstance(raw, list) else raw)
        asked = self.sample.model_copy(update={"request": request})
        answer: Output = await target(asked)
        if answer.response is None:
            raise MetricFailure(f"target failed for {{{out}}}: {answer.error or 'no response'}")
        return answer.response


def _all_text(values: list[Any]) -> bool:
    return bool(values) and all(isinstance(v, str) for v in values)


def _laid_out(label: str, completions: list[str], template: str) -> list[Item]:
    """Several completions, each placed by ``template`` (its ``{i}``, ``{i_abc}``,
    ``{i_ABC}`` and ``{n}`` filled; ``{output}`` becomes the completion's block)."""
    pieces: list[Item] = []
    n = len(completions)
    for i, completion in enumerate(completions):
        numbers = {
            "i": str(i + 1),
            "i_abc": string.ascii_lowercase[i % 26],
            "i_ABC": string.ascii_uppercase[i % 26],
            "n": str(n),
        }
        for literal, slot in prompt_parts(template):
            if literal:
                pieces.append(text(literal))
            if slot == "output":
                pieces.append(block(f"{label} {i + 1}", completion))
            elif slot is not None:
                pieces.append(text(numbers[slot]))
    return pieces


def _sample_items(slot: str, sample: Sample, output: Output) -> list[Item] | None:
    if slot == "input":
        return [block("INPUT", request_text(sample.request))]
    if slot == "completion":
        return [block("COMPLETION", require_response(output))]
    if slot == "ideal":
        return _numbered("IDEAL", [r for r in sample.references if r.strip()])
    if slot == "expected_facts":
        return _numbered("FACT", sample.expected_facts or [])
    if slot in ("contexts", "expected_contexts"):
        chunks = output.retrieved_context if slot == "contexts" else None
        if slot == "expected_contexts":
            chunks = sample.expected_retrieved_context
        return _chunk_items(slot.upper().removesuffix("S"), chunks or [])
    if slot in sample.metadata:
        return [block(slot.upper(), _metadata_text(sample.metadata[slot]))]
    return None


def _numbered(label: str, texts: list[str]) -> list[Item]:
    if not texts:
        raise MetricFailure(f"the row has no {label.lower()} to show the judge")
    if len(texts) == 1:
        return [block(label, texts[0])]
    return _separated([block(f"{label} {i}", t) for i, t in enumerate(texts, start=1)])


def _chunk_items(label: str, chunks: list[ContextChunk]) -> list[Item]:
    if not chunks:
        raise MetricFailure(f"the row has no {label.lower()}s to show the judge")
    found = [
        block(f"{label} {i}", chunk.content or "", chunk.doc_uri)
        for i, chunk in enumerate(chunks, start=1)
    ]
    return _separated(found)


def _separated(blocks: list[Item]) -> list[Item]:
    pieces: list[Item] = []
    for position, found in enumerate(blocks):
        if position:
            pieces.append(text("\n"))
        pieces.append(found)
    return pieces


def _metadata_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(m, dict) and "content" in m for m in value):
        try:
            return messages_text([Message.model_validate(m) for m in value])
        except ValueError:
            pass
    return json.dumps(value, ensure_ascii=False)
