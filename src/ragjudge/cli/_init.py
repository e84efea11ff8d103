"""``ragjudge init``: write a commented ``eval.yaml`` for the user's case — reference
answers or not, retrieval logged or not, which judge — and a three-row sample
evaluation set beside it when there is none, so ``ragjudge run eval.yaml`` works at
once and shows the shape the data takes."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import click
import typer
from rich.text import Text

from ragjudge.cli._common import fail, out

__all__ = ["JudgeChoice", "Recipe", "eval_yaml", "register", "sample_rows"]


class JudgeChoice(StrEnum):
    openai = "openai"
    local = "local"
    anthropic = "anthropic"
    gemini = "gemini"


_JUDGES = {
    JudgeChoice.openai: """\
judge:
  model: openai/gpt-4o            # reads OPENAI_API_KEY from the environment
  temperature: 0
""",
    JudgeChoice.local: """\
judge:
  model: openai/llama3.1          # openai/<the model name your server serves>
  base_url: http://localhost:11434/v1   # Ollama; vLLM serves http://localhost:8000/v1
  temperature: 0
""",
    JudgeChoice.anthropic: """\
judge:
  # through LiteLLM: pip install 'ragjudge[litellm]'; reads ANTHROPIC_API_KEY
  model: litellm/anthropic/claude-3-5-sonnet-latest
  temperature: 0
""",
    JudgeChoice.gemini: """\
judge:
  # through LiteLLM: pip install 'ragjudge[litellm]'; reads GEMINI_API_KEY
  model: litellm/gemini/gemini-1.5-pro
  temperature: 0
""",
}


@dataclass(frozen=True)
class Recipe:
    """The user's case: what the evaluation set holds and which judge grades it."""

    reference: bool
    """The rows hold reference answers (``expected_response``)."""
    retrieval: bool
    """The rows (or the target) give the contexts the answer was written from."""
    judge: JudgeChoice

    @property
    def preset(self) -> str:
        """The name of the metric preset recommended for this case."""
        kind = "rag" if self.retrieval else "answer"
        return f"{kind}-{'with' if self.reference else 'without'}-reference"


def eval_yaml(recipe: Recipe, data: str) -> str:
    """The commented ``eval.yaml`` of ``recipe`` reading the evaluation set ``data``."""
    fields = ["request", "response"]
    if recipe.reference:
        fields.append("expected_response")
    if recipe.retrieval:
        fields.append("retrieved_context")
    return f"""\
# The evaluation: run it with `ragjudge run eval.yaml` (add --dry-run first to see the
# judge calls and their estimated cost without calling anything). Paths are relative
# to this file. Every key: ragjudge run --help, and docs/everyday.md.
name: my-rag-app

# One row per question: JSON Lines, CSV, Parquet or JSON. Each row here holds
# {", ".join(fields)}.
data: {data}

# Where the answers come from: `data` (the rows hold them in `response`), or your
# application as module:function (e.g. my_app:answer, called with each question).
target: data

# A recommended starting set for your case; `ragjudge metrics --presets` says what
# each preset holds, `ragjudge metrics` lists every metric.
metrics:
{_preset_lines(recipe.preset)}
{_JUDGES[recipe.judge]}
report: true        # write the HTML report (.ragjudge/reports/RUN.html) when the run ends

# In CI, gate on a mean (ragjudge run exits 5 when it is below; SCORE as
# `ragjudge show` names it), here or as --fail-under SCORE=0.8:
# fail_under:
#   SCORE: 0.8
"""


def _preset_lines(name: str) -> str:
    """The preset entry, with the preset's case and its metrics as comments."""
    from ragjudge.config._presets import preset_named

    preset = preset_named(name)
    width = max(len(m.name) for m in preset.metrics)
    lines = [f"  - preset: {name}    # {preset.case}", "  # it scores:"]
    lines += [f"  #   {m.name:<{width}}  {m.why}" for m in preset.metrics]
    lines.append("  # add further metrics as entries of their own, e.g. - token_f1")
    return "\n".join(lines) + "\n"


def sample_rows(recipe: Recipe) -> list[dict[str, object]]:
    """Three rows of the shape ``recipe`` reads, to try the config on."""
    rows: list[dict[str, object]] = []
    for number, (question, answer, context) in enumerate(_SAMPLES, start=1):
        row: dict[str, object] = {"request_id": f"q{number}", "request": question}
        row["response"] = answer
        if recipe.reference:
            row["expected_response"] = answer
        if recipe.retrieval:
            row["retrieved_context"] = [{"content": context, "doc_uri": f"docs/{number}.md"}]
        rows.append(row)
    return rows


_SAMPLES = (
    (
        "How do I reset my password?",
        "Open Settings, choose Security and click 'Reset password'.",
        "Passwords are reset under Settings > Security > Reset password.",
    ),
    (
        "Which file formats can I upload?",
        "PDF, Word and plain-text files.",
        "Uploads accept PDF, DOCX and TXT files up to 20 MB.",
    ),
    (
        "Can I export my data?",
        "Yes: Settings > Account > Export writes a ZIP of everything.",
        "Settings > Account > Export creates a ZIP archive of your data.",
    ),
)


def _asked(value: bool | None, question: str, default: bool) -> bool:
    """The flag's value, else the user's answer at a terminal, else ``default``."""
    if value is not None:
        return value
    if not sys.stdin.isatty():
        return default
    return typer.confirm(question, default=default)


def _asked_judge(value: JudgeChoice | None) -> JudgeChoice:
    if value is not None:
        return value
    if not sys.stdin.isatty():
        return JudgeChoice.openai
    answer = typer.prompt(
        "Judge: openai, local (Ollama / vLLM), anthropic or gemini",
        default=JudgeChoice.openai.value,
        type=click.Choice([c.value for c in JudgeChoice]),
    )
    return JudgeChoice(answer)


def init(
    output: Annotated[
        Path, typer.Option("--output", "-o", help="The config file to write.")
    ] = Path("eval.yaml"),
    reference: Annotated[
        bool | None,
        typer.Option(
            "--reference/--no-reference",
            help="The rows hold reference answers (asked at a terminal; default yes).",
        ),
    ] = None,
    retrieval: Annotated[
        bool | None,
        typer.Option(
            "--retrieval/--no-retrieval",
            help="The rows hold the retrieved contexts (asked at a terminal; default no).",
        ),
    ] = None,
    judge: Annotated[
        JudgeChoice | None,
        typer.Option(
            help="Who judges: OpenAI, a local OpenAI-compatible server (Ollama, vLLM), "
            "or Anthropic / Gemini through LiteLLM (asked at a terminal; default openai)."
        ),
    ] = None,
    data: Annotated[
        str, typer.Option(help="The evaluation set the config reads (relative to it).")
    ] = "evalset.jsonl",
) -> None:
    """Write a commented eval.yaml for your case, and a three-row sample evaluation set
    beside it when DATA does not exist; an existing file is never overwritten."""
    if output.exists():
        raise fail(f"{output} exists and is left as it is; remove it or give --output")
    recipe = Recipe(
        reference=_asked(reference, "Do your rows hold reference answers?", True),
        retrieval=_asked(retrieval, "Do your rows hold the retrieved contexts?", False),
        judge=_asked_judge(judge),
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(eval_yaml(recipe, data), encoding="utf-8")
    out.print(Text(f"wrote {output}"))
    data_path = output.parent / data
    if not data_path.exists():
        lines = (json.dumps(row, ensure_ascii=False) for row in sample_rows(recipe))
        data_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out.print(Text(f"wrote {data_path} (3 sample rows: replace them with yours)"))
    out.print(Text(f"next: ragjudge run {output} --dry-run, then ragjudge run {output}"))


def register(app: typer.Typer) -> None:
    """Add ``init`` to the ``ragjudge`` app."""
    app.command("init")(init)
