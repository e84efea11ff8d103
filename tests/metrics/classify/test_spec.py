"""Classification specs: reading, checking (a bad field names the file and the key),
the library of built-in and user specs, and arg sets."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ragjudge.metrics import create_metric
from ragjudge.metrics.classify import SpecError, arg_sets, build_spec, find_spec, list_specs

GOOD = """\
tone:
  prompt: "Is {completion} polite? {criteria}"
  choice_strings: ["Yes", "No"]
  choice_scores: {"Yes": 1, "No": 0}
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_every_built_in_spec_is_checked_and_listed() -> None:
    specs = {s.name: s for s in list_specs()}
    assert sorted(specs) == ["battle", "battle_ja", "closedqa", "closedqa_ja", "fact", "fact_ja"]
    fact = specs["fact"]
    assert fact.choice_strings == ("A", "B", "C", "D", "E")
    assert fact.choice_scores is None  # counts only, as openai-evals
    assert fact.scorings["consistent"] == {"A": 1, "B": 1, "C": 1, "D": 0, "E": 1}
    assert fact.scorings["complete"]["A"] == 0.5
    assert specs["closedqa"].args["criteria"].keys() == {"relevant", "concise", "correct"}  # type: ignore[union-attr]
    assert specs["battle"].input_outputs == {"input1": "completion1", "input2": "completion2"}
    assert [specs[n].language for n in ("fact", "fact_ja", "battle_ja")] == ["en", "ja", "ja"]


def test_choice_strings_scores_and_eval_types() -> None:
    spec = build_spec(
        {"prompt": "Rate {completion}", "choice_strings": "12345", "choice_scores": "from_strings"},
        name="rating",
        source="inline",
    )
    assert spec.choice_scores == {"1": 1.0, "2": 2.0, "3": 3.0, "4": 4.0, "5": 5.0}
    assert spec.eval_type == "cot_classify" and not spec.gives_eval_type
    picked = build_spec(
        {"prompt": "Best of {completion}?", "choice_strings": "from_n_ABC",
         "completion_sample_templates": {"completion": "{i_ABC}. {output}\n"}},
        name="best", source="inline", multicomp_n=3,
    )  # fmt: skip
    assert picked.choice_strings == ("A", "B", "C") and picked.multicomp_n == 3
    japanese = build_spec(
        {"prompt": "{completion}は丁寧ですか。", "choice_strings": ["はい", "いいえ"],
         "eval_type": "cot_classify_jp"},
        name="ja", source="inline",
    )  # fmt: skip
    assert (japanese.eval_type, japanese.language, japanese.gives_eval_type) == (
        "cot_classify",
        "ja",
        True,
    )


def test_unquoted_yes_no_keys_of_yaml_are_read_as_the_choices(tmp_path: Path) -> None:
    write(tmp_path, "yn.yaml", 'yn:\n  prompt: "{completion}"\n  choice_strings: ["Yes", "No"]\n'
          "  choice_scores: {Yes: 1, No: 0}\n")  # fmt: skip
    assert find_spec(str(tmp_path / "yn.yaml")).choice_scores == {"Yes": 1.0, "No": 0.0}
    write(tmp_path, "bare.yaml", 'yn:\n  prompt: "{completion}"\n  choice_strings: [Yes, No]\n')
    with pytest.raises(
        SpecError, match=r"bare.yaml: spec 'yn': choice_strings: YAML reads an unquoted"
    ):
        find_spec(str(tmp_path / "bare.yaml"))
    numbers = write(tmp_path, "n.yaml", 'n:\n  prompt: "{completion}"\n  choice_strings: [1, 2]\n')
    assert find_spec(str(numbers)).choice_strings == ("1", "2")


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ('  prompt: "{completion}"\n  choice_strings: YN\n  choice_score: {"Y": 1}\n', "choice_score: unknown field"),
        ('  prompt: "{completion}"\n  choice_strings: YN\n  choice_scores: {"Y": 1, "Z": 0}\n', "choice_scores.Z: not one of"),
        ('  prompt: "{completion}"\n  choice_strings: YN\n  choice_scores: {"Y": 1}\n', "choice_scores: no score for the choice(s) N"),
        ('  prompt: "{completion}"\n  choice_strings: YN\n  eval_type: classify_twice\n', "eval_type: 'classify_twice'"),
        ('  prompt: "{completion.text}"\n  choice_strings: YN\n', "prompt: {completion.text} is not a slot"),
        ('  prompt: "no slot here"\n  choice_strings: YN\n', "prompt: it has no {key} slot"),
        ('  prompt: "{completion"\n  choice_strings: YN\n', "prompt: "),
        ("  choice_strings: YN\n", "prompt: missing"),
        ('  prompt: "{completion}"\n  choice_strings: YN\n  multicomp_n: 0\n', "multicomp_n: "),
        ('  prompt: "{completion}"\n  choice_strings: YN\n  args: {criteria: {}}\n', "args.criteria: give at least one"),
        ('  prompt: "{completion}"\n  choice_strings: [Y, Y]\n', "choice_strings: Y given twice"),
        ('  prompt: "{completion}"\n  choice_strings: YN\n  input_outputs: {input: completion, other: completion}\n', "input_outputs: two inputs"),
        ('  prompt: "{completion}"\n  choice_strings: from_n\n', "needs multicomp_n of 2"),
        ('  prompt: "{completion}"\n  choice_strings: YN\n  choice_scores: {Y: .nan, N: 0}\n', "choice_scores.Y: not a finite number (nan)"),
        ('  prompt: "{completion}"\n  choice_strings: YN\n  choice_scores: {Y: 1, N: -.inf}\n', "choice_scores.N: not a finite number (-inf)"),
        (f'  prompt: "{{completion}}"\n  choice_strings: YN\n  choice_scores: {{Y: 1{"0" * 400}, N: 0}}\n', "choice_scores.Y: not a finite number (too large)"),
        ('  prompt: "{completion}"\n  choice_strings: YN\n  scorings: {strict: {Y: .inf, N: 0}}\n', "scorings.strict.Y: not a finite number"),
        ('  prompt: "{completion}"\n  choice_strings: ["1", "nan"]\n  choice_scores: from_strings\n', "choice_scores.nan: not a finite number"),
    ],
)  # fmt: skip
def test_a_bad_field_is_an_error_naming_the_file_spec_and_key(
    tmp_path: Path, body: str, named: str
) -> None:
    path = write(tmp_path, "bad.yaml", "mine:\n" + body)
    with pytest.raises(SpecError) as caught:
        find_spec(str(path))
    message = str(caught.value)
    assert str(path) in message and "spec 'mine'" in message and named in message, message


def test_file_level_problems_name_the_file(tmp_path: Path) -> None:
    twice = write(tmp_path, "twice.yaml", GOOD + GOOD)
    with pytest.raises(SpecError, match=r"twice.yaml: the key 'tone' is given twice \(line 5\)"):
        find_spec(str(twice))
    with pytest.raises(SpecError, match=r"absent.yaml: no such spec file"):
        find_spec(str(tmp_path / "absent.yaml"))
    broken = write(tmp_path, "broken.yaml", "tone: [unclosed\n")
    with pytest.raises(SpecError, match=r"broken.yaml: not valid YAML"):
        find_spec(str(broken))
    long = write(tmp_path, "long.yaml", GOOD.replace('"Yes": 1', '"Yes": ' + "9" * 5000))
    with pytest.raises(SpecError, match=r"long.yaml, line 4: a whole number of 5,000 digits"):
        find_spec(str(long))


def test_specs_by_name_path_and_folder(tmp_path: Path) -> None:
    write(tmp_path, "tone.yaml", GOOD)
    (tmp_path / "more").mkdir()
    pair = write(tmp_path / "more", "pair.yaml", GOOD + GOOD.replace("tone", "kind"))
    assert find_spec("tone", [tmp_path]).source == str(tmp_path / "tone.yaml")
    assert find_spec(f"{pair}#kind").name == "kind"
    with pytest.raises(SpecError, match=r"holds several specs \(tone, kind\); name one"):
        find_spec(str(pair))
    with pytest.raises(SpecError, match="unknown spec 'nope'; known specs: battle"):
        find_spec("nope", [])


def test_a_folder_spec_replaces_a_built_in_but_two_files_may_not_share_a_name(
    tmp_path: Path,
) -> None:
    write(tmp_path, "fact.yaml", GOOD.replace("tone", "fact"))
    assert find_spec("fact", [tmp_path]).choice_strings == ("Yes", "No")
    write(tmp_path, "again.yaml", GOOD.replace("tone", "fact"))
    with pytest.raises(SpecError, match="spec 'fact' is also defined in"):
        find_spec("fact", [tmp_path])


def test_a_spec_file_with_one_top_level_spec_is_named_after_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "polite.yaml", 'prompt: "{completion}"\nchoice_strings: YN\n')
    assert find_spec(str(path)).name == "polite"


def test_a_bad_spec_stops_the_metric_at_construction(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "bad.yaml",
        'x:\n  prompt: "{completion}"\n  choice_strings: YN\n  choice_scores: {"Q": 1}\n',
    )
    with pytest.raises(ValueError, match=r"bad.yaml: spec 'x': choice_scores.Q"):
        create_metric({"metric": "classify", "spec": str(path)})
    with pytest.raises(
        ValueError,
        match="choice_scores 'lenient' is unknown; known: from_strings, consistent, complete",
    ):
        create_metric({"metric": "classify", "spec": "fact", "choice_scores": "lenient"})
    with pytest.raises(ValueError, match="option 'invalid' must be one of"):
        create_metric({"metric": "classify", "invalid": "zero"})
    with pytest.raises(ValueError, match="no choice_scores, so with counts: false"):
        create_metric({"metric": "classify", "spec": "fact", "counts": False})


def test_arg_sets_are_every_combination_of_named_values() -> None:
    assert arg_sets({}) == {"": {}}
    assert arg_sets({"tone": "formal"}) == {"": {"tone": "formal"}}
    assert arg_sets({"criteria": {"a": "A?", "b": "B?"}, "tone": "formal"}) == {
        "a": {"criteria": "A?", "tone": "formal"},
        "b": {"criteria": "B?", "tone": "formal"},
    }
    both = arg_sets({"criteria": {"a": "A?", "b": "B?"}, "lang": {"en": "English", "ja": "日本語"}})
    assert list(both) == [
        "criteria=a,lang=en",
        "criteria=a,lang=ja",
        "criteria=b,lang=en",
        "criteria=b,lang=ja",
    ]
    assert both["criteria=b,lang=ja"] == {"criteria": "B?", "lang": "日本語"}


# spec-nan-choice-score: a NaN choice score passed the up-front spec check
def test_choice_scores_a_metric_gives_must_be_finite() -> None:
    with pytest.raises(SpecError, match=r"spec 'fact': choice_scores\.A: not a finite number"):
        create_metric({"metric": "classify", "spec": "fact", "choice_scores": {c: float("nan") for c in "ABCDE"}})  # fmt: skip
