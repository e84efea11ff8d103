import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from ragjudge._util.known_secrets import register_secrets
from ragjudge.models._types import JudgeCallRecord
from ragjudge.schema import Output, Sample, Score, Usage
from ragjudge.store import _frames as frames
from ragjudge.store._file import APPLICATION_ID
from ragjudge.store._store import Store, StoreError
from unwritable import unwritable


def _samples() -> list[Sample]:
    return [
        Sample(request_id="a", request="q1", expected_response="r1", metadata={"product": "db"}),
        Sample(request_id="b", request="q2", expected_response="r2", metadata={"product": "os"}),
    ]


def test_run_round_trip_and_resume_bookkeeping(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        run_id = store.create_run(
            name="t",
            config={"metrics": ["rouge_l"]},
            versions={"ragjudge": "0"},
            samples=_samples(),
            trials=2,
        )
        store.save_output(run_id, "a", Output(response="x", usage=Usage(input_tokens=3)))
        store.save_scores(run_id, "a", 0, [Score(metric="rouge_l", value=0.5, rationale="why")])
        store.save_scores(run_id, "a", 1, [Score.failed("rouge_l", "judge failed")])
    with Store(path) as store:  # reopened: everything committed is there
        run = store.run(run_id[:12])
        assert run.run_id == run_id and run.status == "running" and run.trials == 2
        assert [s.request_id for s in store.samples(run_id)] == ["a", "b"]
        assert store.outputs(run_id)["a"].usage.input_tokens == 3
        assert store.finished_scores(run_id) == {("a", 0, "rouge_l"), ("a", 1, "rouge_l")}
        scores = store.scores(run_id)
        assert scores[0][2].rationale == "why"
        assert scores[1][2].value is None and scores[1][2].error == "judge failed"
        store.set_status(run_id, "completed")
        assert store.run(run_id).finished_at is not None


def test_scores_are_unique_per_sample_trial_metric(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = store.create_run(name=None, config={}, versions={}, samples=_samples(), trials=1)
        store.save_scores(run_id, "a", 0, [Score(metric="m", value=0.1)])
        store.save_scores(run_id, "a", 0, [Score(metric="m", value=0.2)])
        rows = sqlite3.connect(store.path).execute("SELECT value FROM scores").fetchall()
        assert rows == [(0.2,)]


def test_frames_carry_metadata_and_metric_columns(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = store.create_run(name=None, config={}, versions={}, samples=_samples(), trials=1)
        store.save_output(run_id, "a", Output(response="ans"))
        store.save_scores(run_id, "a", 0, [Score(metric="m", value=1.0)])
        store.save_scores(run_id, "b", 0, [Score.failed("m", "no response")])
        frame = store.score_frame(run_id)
        assert list(frame["metadata.product"]) == ["db", "os"]
        assert frame["error"].tolist()[1] == "no response"
        samples = store.sample_frame(run_id)
        assert samples.loc[0, "response"] == "ans"
        assert samples.loc[1, "m.error"] == "no response"


def test_judge_calls_get_ids(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        record = JudgeCallRecord(
            provider="scripted",
            model="s",
            messages=[{"role": "user", "content": "hi"}],
            config={},
            text="[RESULT] 4",
            parsed=4,
            usage=Usage(input_tokens=2, output_tokens=3),
        )
        first = store.save_judge_call("r1", record)
        second = store.save_judge_call("r1", record)
        assert second == first + 1
        calls = store.judge_calls("r1")
        assert calls["text"].tolist() == ["[RESULT] 4", "[RESULT] 4"]


def test_unknown_or_ambiguous_run(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        store.create_run(name=None, config={}, versions={}, samples=[], trials=1, run_id="r-1")
        store.create_run(name=None, config={}, versions={}, samples=[], trials=1, run_id="r-2")
        with pytest.raises(KeyError, match="no run"):
            store.run("zzz")
        with pytest.raises(KeyError, match="ambiguous"):
            store.run("r-")


def test_sample_metadata_and_one_export_row_per_trial(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = store.create_run(name=None, config={}, versions={}, samples=_samples(), trials=2)
        assert store.sample_metadata(run_id) == {"a": {"product": "db"}, "b": {"product": "os"}}
        store.save_scores(run_id, "a", 1, [Score(metric="m", value=0.5)])
        store.save_scores(run_id, "a", 0, [Score(metric="m", value=1.0)])
        rows = store.sample_frame(run_id)
        assert list(zip(rows["request_id"], rows["trial"], strict=True)) == [
            ("a", 0),
            ("a", 1),
            ("b", 0),  # a sample without scores still gets its row
        ]
        assert rows["m"].tolist()[:2] == [1.0, 0.5]


# --------------------------------------------------------------------------- unusable paths


def test_a_folder_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a folder; a store is a SQLite file"):
        Store(tmp_path)


def test_a_file_that_is_not_sqlite_is_refused_and_left_as_is(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("these are not runs\n" * 20, encoding="utf-8")

    with pytest.raises(StoreError, match=r"notes\.txt: it is not a SQLite database"):
        Store(notes)
    assert notes.read_text(encoding="utf-8") == "these are not runs\n" * 20


def test_another_programs_database_is_refused_untouched(tmp_path: Path) -> None:
    other = tmp_path / "cache.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE responses (key TEXT)")

    with pytest.raises(StoreError, match=r"cache\.db is another program's database \(responses\)"):
        Store(other)
    with sqlite3.connect(other) as conn:
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master")]
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert tables == ["responses"] and mode == "delete"


# store-foreign-sqlite: another program's SQLite file got ragjudge's tables, then a traceback
def test_a_database_with_a_runs_table_of_its_own_is_refused_untouched(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, athlete TEXT, km REAL)")
        conn.execute("INSERT INTO runs (athlete, km) VALUES ('someone', 10.5)")
    before = other.read_bytes()

    with pytest.raises(
        StoreError, match=r"other\.db is another program's database \(its runs table is not"
    ):
        Store(other, write=True)
    assert other.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_a_database_another_program_marked_as_its_own_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "app.db"
    Store(other).close()  # ragjudge's tables, but the header says it is another program's
    with sqlite3.connect(other) as conn:
        conn.execute("PRAGMA application_id = 7")

    with pytest.raises(StoreError, match=r"app\.db is another program's database \(its app"):
        Store(other)


def test_a_new_store_is_marked_and_a_store_from_before_marks_still_opens(tmp_path: Path) -> None:
    new, older = tmp_path / "new.db", tmp_path / "older.db"
    Store(new).close()
    with sqlite3.connect(older) as conn:  # the runs table of the first stores
        conn.execute(
            "CREATE TABLE runs (run_id TEXT PRIMARY KEY, name TEXT, status TEXT NOT NULL,"
            " created_at TEXT NOT NULL, finished_at TEXT, config_json TEXT NOT NULL,"
            " versions_json TEXT NOT NULL, n_samples INTEGER NOT NULL, trials INTEGER NOT NULL)"
        )

    with Store(older, write=True) as store:
        assert store.runs() == []
    for path in (new, older):
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def test_a_store_in_a_folder_that_cannot_be_written_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()

    with unwritable(folder), pytest.raises(StoreError) as raised:
        Store(folder / "runs.db", write=True)

    assert str(raised.value) == (
        f"cannot write the store {folder / 'runs.db'}: its folder {folder} cannot be written"
    )


def test_a_read_only_store_is_read_and_a_writer_is_told_before_it_writes(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        run_id = store.create_run(name="r", config={}, versions={}, samples=_samples(), trials=1)

    with unwritable(path):
        with Store(path) as store:
            assert [r.run_id for r in store.runs()] == [run_id]
            with pytest.raises(StoreError, match=r"runs\.db: the file is read-only"):
                store.set_status(run_id, "completed")
        with pytest.raises(StoreError) as raised:
            Store(path, write=True)

    assert str(raised.value) == f"cannot write the store {path}: the file is read-only"


def test_a_store_under_a_file_names_the_file(tmp_path: Path) -> None:
    blocking = tmp_path / "results"
    blocking.write_text("", encoding="utf-8")

    with pytest.raises(StoreError, match=r"results is a file, not a folder"):
        Store(blocking / "sub" / "runs.db")


def test_export_frame_never_overwrites_a_sample_column(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = store.create_run(
            name=None, config={}, versions={}, samples=_samples()[:1], trials=1
        )
        # a run stored before score names were checked
        store.save_scores(run_id, "a", 0, [Score(metric="response", value=1.0)])
        with pytest.raises(ValueError, match="cannot export the score 'response'"):
            store.sample_frame(run_id)


def test_export_frame_refuses_columns_written_twice() -> None:
    sample = _samples()[0]
    scores = [("a", 0, Score.failed("x", "judge failed"))]

    frame = frames.sample_frame([sample], {}, scores)
    assert frame.loc[0, "x.error"] == "judge failed" and frame.loc[0, "metadata.product"] == "db"
    with pytest.raises(ValueError, match=r"cannot export the score 'x\.error'"):
        frames.sample_frame([sample], {}, [*scores, ("a", 0, Score(metric="x.error", value=1))])
    with pytest.raises(ValueError, match=r"column\(s\) x, x\.error would be written twice"):
        frames.sample_frame([sample], {}, scores * 2)


def test_the_score_frame_from_columns_is_the_frame_of_score_objects(tmp_path: Path) -> None:
    metadata: list[dict[str, object]] = [
        {"lang": "en", "n": 1, "ok": True, "tags": ["a"]},
        {"lang": "ja", "n": 2.5, "extra": {"k": "v"}},
        {},
        {"lang": None, "ok": False},
        {"only_unscored": "x"},  # a sample with no applicable score adds no column
    ]
    samples = [
        Sample(request_id=f"s{i}", request="q", expected_response="r", metadata=m)
        for i, m in enumerate(metadata)
    ]
    with Store(tmp_path / "runs.db") as store:
        run_id = store.create_run(name=None, config={}, versions={}, samples=samples, trials=2)
        # stored out of sample order, with errors, trials and a metric that did not apply
        for trial in (1, 0):
            for sample in reversed(samples[:4]):
                store.save_scores(
                    run_id,
                    sample.request_id,
                    trial,
                    [
                        Score(metric="m", value=0.25 * trial),
                        Score.failed("judged", "judge failed"),
                        Score.not_applicable("maybe", "no context"),
                    ],
                )
        store.save_scores(run_id, "s4", 0, [Score.not_applicable("maybe", "no context")])
        expected = frames.score_frame(store.sample_metadata(run_id), store.scores(run_id))
        frame = store.score_frame(run_id)
    pd.testing.assert_frame_equal(frame, expected, check_exact=True)
    assert len(frame) == 16 and "metadata.only_unscored" not in frame.columns


def test_an_empty_run_has_an_empty_score_frame(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = store.create_run(name=None, config={}, versions={}, samples=_samples(), trials=1)
        expected = frames.score_frame(store.sample_metadata(run_id), store.scores(run_id))
        pd.testing.assert_frame_equal(store.score_frame(run_id), expected)


SECRET = "si-SECRET-88d1e0aa"


def _readable(path: Path) -> str:
    """The store's bytes (with its write-ahead log) and a dump of every table."""
    raw = b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())
    with sqlite3.connect(path) as conn:
        return raw.decode("utf-8", errors="replace") + "\n".join(conn.iterdump())


def _write_everything(store: Store, secret: str) -> str:
    """One run with the secret in every kind of text the store keeps; its id."""
    url = f"http://h/answer?sid={secret}"
    run_id = store.create_run(
        name="secrets",
        config={"target": {"url": url}, "note": f"quoted {secret!r}"},
        versions={},
        samples=_samples(),
        trials=1,
    )
    output = Output(response=f"echo {secret}", error=f"HTTP 401 from {url}", trace={"url": url})
    store.save_output(run_id, "a", output)
    store.save_scores(
        run_id, "a", 0, [Score(metric="m", value=1.0, rationale=secret, details={"k": [secret]})]
    )
    record = JudgeCallRecord(
        provider="openai",
        model="m",
        messages=[{"role": "user", "content": f'judge "{secret}"'}],
        config={},
    )
    call_id = store.begin_judge_call(run_id, record)
    store.end_judge_call(call_id, record.model_copy(update={"error": f"echoed {secret}"}))
    store.add_run_event(run_id, "note", {"text": f"read {url}"})
    return run_id


def test_a_known_secret_is_masked_in_everything_the_store_writes(tmp_path: Path) -> None:
    register_secrets([SECRET])
    with Store(tmp_path / "runs.db") as store:
        run_id = _write_everything(store, SECRET)
        output = store.outputs(run_id)["a"]
        assert output.response == "echo ***" and output.trace == {"url": "http://h/answer?sid=***"}
        assert output.error == "HTTP 401 from http://h/answer?sid=***"
        score = store.scores(run_id)[0][2]
        assert score.rationale == "***" and score.details == {"k": ["***"]}
        call = store.judge_calls(run_id).iloc[0]
        assert json.loads(call["messages_json"])[0]["content"] == 'judge "***"'
        assert call["error"] == "echoed ***"
        assert store.run(run_id).config["target"] == {"url": "http://h/answer?sid=***"}
        assert store.run_events(run_id, "note") == [{"text": "read http://h/answer?sid=***"}]
    assert SECRET not in _readable(tmp_path / "runs.db")


def test_text_is_stored_as_given_when_no_secret_is_known(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = _write_everything(store, SECRET)
        assert store.outputs(run_id)["a"].response == f"echo {SECRET}"
