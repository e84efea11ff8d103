import pytest

from checked_row import score
from ragjudge.metrics import create_metric
from ragjudge.schema import Output, Usage

USED = Usage(input_tokens=1000, output_tokens=500)


def test_latency_is_the_targets_seconds_lower_is_better() -> None:
    found = score("latency", None, output=Output(response="a", latency=1.25))
    assert found.value == 1.25 and found.details == {"seconds": 1.25}
    [meaning] = create_metric("latency").meanings().values()
    assert meaning.direction == "lower" and meaning.high is None


def test_latency_within_max_seconds_passes() -> None:
    spec = {"metric": "latency", "max_seconds": 2.0}
    assert score(spec, None, output=Output(response="a", latency=2.0)).value == 1.0
    slow = score(spec, None, output=Output(response="a", latency=2.5))
    assert slow.value == 0.0 and slow.details == {"seconds": 2.5, "limit": 2.0}
    [meaning] = create_metric(spec).meanings().values()
    assert meaning.binary and meaning.direction == "higher"


def test_latency_without_a_measure_is_an_error() -> None:
    found = score("latency", None, output=Output(response="a"))
    assert found.value is None and found.error == "the target reported no latency for this sample"


def test_cost_prices_the_targets_tokens() -> None:
    spec = {"metric": "cost", "input_price": 2.0, "output_price": 8.0}
    found = score(spec, None, output=Output(response="a", usage=USED))
    # 1000 × 2 / 1e6 + 500 × 8 / 1e6
    assert found.value == pytest.approx(0.006)
    limited = {**spec, "max_dollars": 0.005}
    over = score(limited, None, output=Output(response="a", usage=USED))
    assert over.value == 0.0 and over.details["dollars"] == pytest.approx(0.006)


def test_cost_at_a_models_published_price() -> None:
    spec = {"metric": "cost", "model": "gpt-4o-mini"}
    found = score(spec, None, output=Output(response="a", usage=USED))
    assert found.value == pytest.approx((1000 * 0.15 + 500 * 0.6) / 1e6)


def test_cost_without_reported_usage_is_an_error() -> None:
    found = score({"metric": "cost", "input_price": 1.0, "output_price": 1.0}, "a")
    assert found.error == "the target reported no token usage for this sample"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "give the price as input_price and output_price"),
        ({"input_price": 1.0}, "give both input_price and output_price"),
        ({"model": "no-such-model-xyz"}, "option 'model' is invalid: the published price list"),
        ({"input_price": -1.0, "output_price": 1.0}, "option 'input_price' must be at least 0"),
    ],
)
def test_bad_cost_options_are_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        create_metric({"metric": "cost", **options})
