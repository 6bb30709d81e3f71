"""Paired run comparison: gained and lost terms, the bootstrap interval, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ontoretrieve.bench.compare import compare_runs, read_run
from ontoretrieve.cli import app
from ontoretrieve.errors import OntoRetrieveError


def run(hits: list[list[str]], source: str = "s") -> list[dict[str, object]]:
    return [{"id": f"u{i}", "source": source, "gold": [["x"], ["y"], ["z", "z2"]],
             "context_subjects": found, "retrieved_term_iris": found[:1]}
            for i, found in enumerate(hits)]


def test_identical_runs_differ_by_nothing_and_are_noise() -> None:
    a = run([["x"], ["y", "z2"], []] * 10)
    c = compare_runs(a, a, resamples=300)
    assert c.difference == 0 and c.ci_low == c.ci_high == 0 and c.noise
    assert not c.gained and not c.lost


def test_a_large_consistent_gain_is_not_noise() -> None:
    a = run([["x"]] * 40)
    b = run([["x", "y", "z"]] * 40)
    c = compare_runs(a, b, resamples=500)
    assert c.recall_a == pytest.approx(1 / 3) and c.recall_b == 1.0
    assert c.ci_low > 0 and not c.noise
    assert len(c.gained) == 80 and ("u0", "z") in c.gained  # an any-of group once
    assert c.by_source == {"s": (pytest.approx(1 / 3, abs=1e-6), 1.0)}


def test_one_unit_of_forty_changing_is_noise() -> None:
    a = run([["x"]] * 40)
    b = run([["x", "y"]] + [["x"]] * 39)
    c = compare_runs(a, b, resamples=1000)
    assert c.difference > 0 and c.noise and c.lost == []


def test_seed_metric_reads_the_seeds() -> None:
    a = run([["x", "y"]] * 5)
    assert compare_runs(a, a, metric="seed", resamples=100).recall_a == pytest.approx(1 / 3)


def test_unpaired_units_are_listed_and_gold_can_come_from_units() -> None:
    a = [{"id": "u1", "context_subjects": ["x"]}, {"id": "only-a", "context_subjects": []}]
    b = [{"id": "u1", "context_subjects": []}]
    with pytest.raises(OntoRetrieveError, match="no gold"):
        compare_runs(a, b)
    c = compare_runs(a, b, gold={"u1": [["x"]]}, resamples=100)
    assert c.unpaired == ["only-a"] and c.lost == [("u1", "x")]


def test_bad_run_files_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"id": "u1"}\n{oops\n')
    with pytest.raises(OntoRetrieveError, match=r"run\.jsonl:2: not JSON"):
        read_run(path)
    path.write_text('{"id": "u1"}\n[1, 2]\n')
    with pytest.raises(OntoRetrieveError, match=r"run\.jsonl:2: expected an object with 'id'"):
        read_run(path)


def test_cli_compare_prints_a_verdict_and_json(tmp_path: Path) -> None:
    for name, hits in (("a", [["x"]] * 30), ("b", [["x", "y", "z"]] * 30)):
        (tmp_path / f"{name}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in run(hits)))
    runner = CliRunner()
    text = runner.invoke(app, ["bench", "compare", str(tmp_path / "a.jsonl"),
                               str(tmp_path / "b.jsonl")])
    assert text.exit_code == 0 and "better" in text.stdout and "gained 60" in text.stdout
    body = runner.invoke(app, ["bench", "compare", str(tmp_path / "a.jsonl"),
                               str(tmp_path / "b.jsonl"), "--json"])
    assert json.loads(body.stdout)["noise"] is False
    bad = runner.invoke(app, ["bench", "compare", str(tmp_path / "a.jsonl"),
                              str(tmp_path / "missing.jsonl")])
    assert bad.exit_code == 2 and "cannot read" in bad.output


def test_recall_at_a_token_budget_is_compared_from_the_recorded_curve() -> None:
    from ontoretrieve.bench.compare import check_metric
    from ontoretrieve.errors import OntoRetrieveError

    a = [{"id": "u", "gold": [["x"], ["y"]], "gold_at_tokens": {"500": [], "8000": ["x"]}}]
    b = [{"id": "u", "gold": [["x"], ["y"]], "gold_at_tokens": {"500": ["x"], "8000": ["x", "y"]}}]
    assert compare_runs(a, b, metric=check_metric("context@8000"), resamples=50).gained == [
        ("u", "y")]
    assert compare_runs(a, b, metric="context@500", resamples=50).recall_b == 0.5
    with pytest.raises(OntoRetrieveError, match="no recall at 1000 tokens"):
        compare_runs(a, b, metric="context@1000", resamples=50)
    with pytest.raises(OntoRetrieveError, match="context@TOKENS"):
        check_metric("context@")


def test_named_recall_leaves_out_gold_the_context_holds_as_a_bare_iri() -> None:
    from ontoretrieve.errors import OntoRetrieveError

    gold = [["x"], ["y"]]
    a = [{"id": "u", "gold": gold, "context_subjects": ["x", "y"], "gold_unnamed": ["y"],
          "gold_at_tokens": {"500": ["x", "y"]}, "gold_unnamed_at_tokens": {"500": ["x", "y"]}}]
    b = [{"id": "u", "gold": gold, "context_subjects": ["x", "y"], "gold_unnamed": [],
          "gold_at_tokens": {"500": ["x"]}, "gold_unnamed_at_tokens": {"500": []}}]
    assert compare_runs(a, b, metric="context", resamples=50).difference == 0
    named = compare_runs(a, b, metric="named", resamples=50)
    assert (named.recall_a, named.recall_b, named.gained) == (0.5, 1.0, [("u", "y")])
    at = compare_runs(a, b, metric="named@500", resamples=50)
    assert (at.recall_a, at.recall_b) == (0.0, 0.5)
    old = [{"id": "u", "gold": gold, "context_subjects": ["x"]}]
    with pytest.raises(OntoRetrieveError, match="leaves unnamed"):
        compare_runs(old, b, metric="named", resamples=50)
    old_at = [{**old[0], "gold_at_tokens": {"500": ["x"]}}]
    with pytest.raises(OntoRetrieveError, match="no naming at 500 tokens"):
        compare_runs(old_at, b, metric="named@500", resamples=50)
