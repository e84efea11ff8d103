"""The weighted verdict through real HTTP: the local OpenAI-compatible test server sends
the distribution a test chose, the OpenAI provider reads it, the reply cache keeps it,
and the metric stores the hand-computed weighted score; an endpoint without log
probabilities gives the verdict as written, with a note."""

from __future__ import annotations

import pytest

from ragjudge.metrics import MetricContext, create_metric
from ragjudge.models import ModelSettings, ResponseCache, get_model
from ragjudge.models.scripted import ReplyScript
from ragjudge.schema import Output, Sample
from ragjudge.testing.server import OpenAITestServer

REPLY = "Courteous and clear.\n[RESULT] 4"
SAMPLE = Sample(request_id="r", request="Where is the Louvre?")


async def judged(server: OpenAITestServer, cache: ResponseCache | None = None) -> list[object]:
    judge = get_model(
        "openai/test-model",
        base_url=server.base_url,
        api_key="test-key",
        settings=ModelSettings(cache=cache is not None, max_retries=0),
        cache=cache,
    )
    metric = create_metric({"metric": "custom_judge", "name": "tone", "top_logprobs": 5})
    ctx = MetricContext(judge=judge)
    try:
        return [await metric.score(SAMPLE, Output(response="In Paris."), ctx) for _ in range(2)]
    finally:
        await judge.aclose()


async def test_the_weighted_score_is_the_verdicts_weighted_by_their_probabilities() -> None:
    # At the verdict: 4 with 0.6, 3 with 0.25, 5 with 0.1, and 0.05 on a token that is
    # no answer ("four"). Renormalised over the scale: 0.6/0.95, 0.25/0.95, 0.1/0.95.
    chances = {"4": {"4": 0.6, "3": 0.25, "5": 0.1, "four": 0.05}}
    server = OpenAITestServer(replies=ReplyScript(default=REPLY), token_alternatives=chances)
    with server:
        first, again = await judged(server, ResponseCache(":memory:"))

    expected = (4 * 0.6 + 3 * 0.25 + 5 * 0.1) / 0.95  # 3.8421…
    [score] = first  # type: ignore[misc]
    assert score.value == pytest.approx(expected)
    assert score.details["weighted"] == pytest.approx(expected)
    assert score.details["argmax"] == 4.0 and score.details["verdict"] == "4"
    assert score.details["distribution"] == pytest.approx(
        {"1": 0.0, "2": 0.0, "3": 0.25 / 0.95, "4": 0.6 / 0.95, "5": 0.1 / 0.95}
    )
    assert [request["logprobs"] for request in server.requests_log] == [True]
    assert server.requests_log[0]["top_logprobs"] == 5
    [cached] = again  # type: ignore[misc]
    assert cached.value == pytest.approx(expected)  # the cached reply kept its log probabilities


async def test_an_endpoint_without_log_probabilities_gives_the_verdict_with_a_note() -> None:
    server = OpenAITestServer(replies=ReplyScript(default=REPLY))
    with server:
        [score], _ = await judged(server)  # type: ignore[misc]

    assert score.value == 4.0 and score.error is None
    assert score.details["note"].startswith(
        "the judge endpoint returned no token log probabilities"
    )
    assert "distribution" not in score.details
