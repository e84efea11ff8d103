"""Each RAG metric of seed 004 on the seed's own worked example, with a scripted judge
giving the seed's verdicts (and a fixed embedder giving the seed's similarities)."""

from __future__ import annotations

import json

import pytest
from ragas_helpers import FixedEmbedder, Judge, score, statements, verdicts

from ragjudge.metrics import create_metric
from ragjudge.schema import ContextChunk, Output, Sample

# The seed's Oppenheimer example (in Japanese, as the seed writes it).
QUESTION = (
    "映画『オッペンハイマー』の監督は誰で、J・ロバート・オッペンハイマー役を演じたのは誰ですか？"
)
ANSWER = (
    "クリストファー・ノーランが映画『オッペンハイマー』を監督しました。"
    "キリアン・マーフィーが J・ロバート・オッペンハイマーを演じています。"
)
CONTEXT = (
    "『オッペンハイマー』は 2023 年の伝記スリラー映画で、クリストファー・ノーランが脚本・監督を務めています。"
    "カイ・バードとマーティン・J・シャーウィンによる 2005 年の伝記『アメリカン・プロメテウス』に基づいています。"
    "キリアン・マーフィーがオッペンハイマーを演じています。"
    "エミリー・ブラントがオッペンハイマーの妻キャサリン『キティ』・オッペンハイマーを演じています。"
)
STATEMENTS = [
    "クリストファー・ノーランが映画『オッペンハイマー』を監督しました。",
    "キリアン・マーフィーが J・ロバート・オッペンハイマーを演じています。",
]


def sample(**fields: object) -> Sample:
    return Sample.model_validate({"request_id": "s", "request": QUESTION, **fields})


def output(contexts: list[str] | None = None) -> Output:
    chunks = [ContextChunk(doc_uri=f"d{i}", content=c) for i, c in enumerate(contexts or [CONTEXT])]
    return Output(response=ANSWER, retrieved_context=chunks)


async def test_faithfulness_two_supported_statements_of_two() -> None:
    judge = Judge(statements=statements(*STATEMENTS), faithfulness=verdicts("yes", "Yes"))
    found = await score(create_metric("faithfulness"), sample(), output(), judge.model())
    assert found.value == 1.0
    assert [s["statement"] for s in found.details["statements"]] == STATEMENTS
    assert judge.calls == {"statements": 1, "faithfulness": 1}


async def test_answer_relevancy_is_the_mean_similarity_of_the_generated_questions() -> None:
    questions = json.dumps(
        {
            "questions": [
                "映画『オッペンハイマー』の監督は誰ですか？",
                "映画『オッペンハイマー』で J・ロバート・オッペンハイマーを演じたのは誰ですか？",
            ],
            "noncommittal": 0,
        },
        ensure_ascii=False,
    )
    judge = Judge(questions=questions)
    metric = create_metric({"metric": "answer_relevancy", "questions": 2})
    found = await score(
        metric, sample(), output(), judge.model(), local=FixedEmbedder([0.95, 0.90])
    )
    assert found.value == pytest.approx((0.95 + 0.90) / 2)  # 0.925
    assert judge.calls == {"questions": 1}


async def test_context_relevancy_two_needed_sentences_of_four() -> None:
    sentences = CONTEXT.split("。")
    needed = "\n".join(f"{s}。" for s in (sentences[0], sentences[2]))
    judge = Judge(extract=needed)
    found = await score(create_metric("context_relevancy"), sample(), output(), judge.model())
    assert found.details["context_sentences"] == 4
    assert found.value == pytest.approx(2 / 4)


# The seed's own context relevancy example: four context sentences; the judge's
# extraction rewrites the first (dates, wording) and copies the fourth.
EINSTEIN = (
    "アルベルト・アインシュタイン（1879 年 3 月 14 日 - 1955 年 4 月 18 日）は、ドイツ生まれの理論物理学者で、"
    "広く認められた史上最も偉大で影響力のある科学者の一人です。"
    "相対性理論の開発で最もよく知られていますが、量子力学にも重要な貢献をしました。"
    "彼の質量とエネルギーの等価性の公式 E = mc^2 は『世界で最も有名な方程式』と呼ばれています。"
    "彼は 1921 年に物理学でノーベル賞を受賞しました。"
)
EINSTEIN_EXTRACTED = (
    "アルベルト・アインシュタインは 1879 年 3 月 14 日に生まれ、ドイツ生まれの理論物理学者で、"
    "史上最も偉大で影響力のある科学者の一人とされています。"
    "彼は 1921 年に物理学でノーベル賞を受賞しました。"
)


async def test_context_relevancy_of_the_seed_example_is_one_half() -> None:
    judge = Judge(extract=EINSTEIN_EXTRACTED)
    row = sample(request="アルベルト・アインシュタインについて教えてください。")
    found = await score(create_metric("context_relevancy"), row, output([EINSTEIN]), judge.model())
    assert found.details["context_sentences"] == 4
    assert found.value == pytest.approx(0.5)
    matched = [m["context_sentence"] for m in found.details["matches"]]
    assert matched[0].startswith("アルベルト・アインシュタイン（1879")
    assert matched[1] == "彼は 1921 年に物理学でノーベル賞を受賞しました。"
    assert found.details["unmatched"] == []


async def test_context_recall_two_attributable_sentences_of_three() -> None:
    reference = "ノーランが監督した。マーフィーが主演した。公開は 2023 年 7 月だった。"
    judge = Judge(recall=verdicts("yes", "yes", "no"))
    metric = create_metric("context_recall")
    found = await score(metric, sample(expected_response=reference), output(), judge.model())
    assert found.value == pytest.approx(2 / 3)
    assert [s["verdict"] for s in found.details["sentences"]] == ["yes", "yes", "no"]


async def test_context_precision_three_useful_chunks_of_three() -> None:
    chunks = [CONTEXT, "ノーランは監督である。", "マーフィーは俳優である。"]
    judge = Judge(usefulness=verdicts("yes", "yes", "yes"))
    metric = create_metric("context_precision")
    found = await score(metric, sample(expected_response=ANSWER), output(chunks), judge.model())
    assert found.value == 1.0


async def test_answer_correctness_f1_half_and_similarity_point_six() -> None:
    question = "太陽は何によって動力を得ていますか？その主な機能は何ですか？"
    answer = "太陽は核分裂によって動力を得ています。太陽の主な機能は太陽系に光を提供することです。"
    reference = (
        "太陽は水素原子がヘリウムに融合する核融合によって動力を得ています。"
        "この核融合プロセスは大量のエネルギーを放出します。"
    )

    def statements_of(prompt: str) -> str:
        if "核分裂" in prompt:
            return statements(
                "太陽は核分裂によって動力を得ています。",
                "太陽の主な機能は太陽系に光を提供することです。",
            )
        return statements(
            "太陽は水素原子がヘリウムに融合する核融合によって動力を得ています。",
            "この核融合プロセスは大量のエネルギーを放出します。",
        )

    classification = json.dumps(
        {
            "TP": [{"answer_statement": 2, "reason": "光を提供する"}],
            "FP": [{"answer_statement": 1, "reason": "核分裂ではなく核融合"}],
            "FN": [
                {"reference_statement": 1, "reason": "核融合が述べられていない"},
                {"reference_statement": 2, "reason": "エネルギー放出がない"},
            ],
        },
        ensure_ascii=False,
    )
    judge = Judge(statements=statements_of, classify=classification)
    row = Sample(request_id="sun", request=question, expected_response=reference)
    found = await score(
        create_metric("answer_correctness"),
        row,
        Output(response=answer),
        judge.model(),
        local=FixedEmbedder([0.6]),
    )
    # The seed's formula, TP / (TP + 0.5·(FP + FN)), gives 1 / (1 + 0.5 × 3) = 0.4 for
    # its counts; its text writes "= 1 ÷ 2 = 0.5", an arithmetic slip (1 + 0.5 × 3 is
    # 2.5). ragjudge follows the formula, as RAGAS's code does.
    assert [len(found.details[k]) for k in ("TP", "FP", "FN")] == [1, 1, 2]
    assert found.details["f1"] == pytest.approx(0.4)
    assert found.value == pytest.approx(0.75 * 0.4 + 0.25 * 0.6)  # 0.45


def test_the_seeds_answer_correctness_figures_for_fp_plus_fn_two() -> None:
    from ragjudge.metrics.ragas.answer_correctness import f1

    # the seed's 0.5 and 0.525 are what the formula gives when FP + FN = 2
    assert f1(1, 1, 1) == pytest.approx(0.5)
    assert 0.75 * f1(1, 1, 1) + 0.25 * 0.6 == pytest.approx(0.525)
    assert f1(0, 3, 2) == 0.0  # no true positive: 0, not a division
    assert f1(2, 0, 0) == 1.0
