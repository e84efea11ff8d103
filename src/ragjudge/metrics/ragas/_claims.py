"""Claims checked against a source text, shared by ``factual_correctness`` and
``noise_sensitivity``: the claims are the statements that ``faithfulness`` and
``answer_correctness`` extract (the same call, shared), and the check of one list of
claims against one source is made once per sample and trial, whichever metric asks."""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.metrics._judged import Judging
from ragjudge.metrics._prompts import Instruction
from ragjudge.metrics.ragas._common import CountedVerdicts, ItemVerdict, shared_ask

PURPOSE = "ragas.claim_support"
CHUNK_PURPOSE = "ragas.chunk_claims"
"""The purpose of the checks of claims against a retrieved chunk (``noise_sensitivity``)."""

REFERENCE = Instruction("a reference answer (the ground truth)")
"""How the prompt names a reference answer as the source."""
DOCUMENT = Instruction("a retrieved document")
"""How the prompt names a retrieved chunk as the source."""


async def supported(
    j: Judging, claims: Sequence[str], source: str, kind: Instruction, purpose: str = PURPOSE
) -> list[bool]:
    """For each claim, in order, whether ``source`` (named to the judge as ``kind``)
    supports it; one call for all of them, shared by the metrics of the sample."""
    verdicts = await supported_verdicts(j, claims, source, kind, purpose)
    return [v.verdict == "yes" for v in verdicts]


async def supported_verdicts(
    j: Judging, claims: Sequence[str], source: str, kind: Instruction, purpose: str = PURPOSE
) -> list[ItemVerdict]:
    """The judge's verdict and reason for each claim against ``source``."""
    return await shared_ask(
        j,
        ("claim support", str(kind), source, tuple(claims)),
        CountedVerdicts(len(claims)),
        "claim_support.jinja",
        purpose=purpose,
        kind=kind,
        source=source,
        claims=list(claims),
    )
