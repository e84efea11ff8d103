from ragjudge.config import EvalConfig
from ragjudge.config._fingerprint import config_fingerprint


def fingerprint(**settings: object) -> str:
    base: dict[str, object] = {"metrics": ["rouge_l"], "judge": "openai/gpt-4o-mini"}
    return config_fingerprint(EvalConfig.model_validate({**base, **settings}).to_record())


def test_settings_that_do_not_change_scores_keep_the_fingerprint() -> None:
    plain = fingerprint()
    assert fingerprint(name="other", data="logs/2026-11-02.jsonl", limit=10) == plain
    assert fingerprint(concurrency=3, max_cost=5.0, fail_under={"rouge_l": 0.5}) == plain
    limited = {
        "model": "openai/gpt-4o-mini",
        "rpm": 60,
        "prices": {"gpt-4o-mini": {"input": 1, "output": 2}},
    }
    assert fingerprint(judge=limited) == plain


def test_settings_that_change_scores_change_the_fingerprint() -> None:
    plain = fingerprint()
    assert fingerprint(metrics=["rouge_l", "exact_match"]) != plain
    assert fingerprint(judge="openai/gpt-4o") != plain
    assert fingerprint(judge={"model": "openai/gpt-4o-mini", "temperature": 0.7}) != plain
    assert fingerprint(trials=2) != plain
