"""Variants, settings overrides, perf catalog assembly and the report files."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest

from ontoretrieve.bench.perf import perf_markdown, pick_files, replicate
from ontoretrieve.bench.report import PLOTS, write_report
from ontoretrieve.bench.runner import ABLATIONS, parse_sets, plan_variants
from ontoretrieve.bench.summary import summarize
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.settings import load_settings


def test_every_ablation_is_valid_settings_and_keeps_the_index_fingerprint() -> None:
    from ontoretrieve.index.build import configured_fingerprint

    base = load_settings()
    for name, pairs in ABLATIONS.items():
        settings = load_settings(**parse_sets(pairs))
        assert configured_fingerprint(settings) == configured_fingerprint(base), name


@pytest.mark.parametrize("pair", ["top_k=3", "fusion.top_k", ".x=1", "fusion.=1"])
def test_malformed_set_is_named(pair: str) -> None:
    with pytest.raises(OntoRetrieveError, match=r"expected GROUP\.FIELD=VALUE"):
        parse_sets([pair])


def test_variants_carry_the_base_sets_and_bad_names_are_refused() -> None:
    plan = plan_variants(["fusion.top_k=50"], ["sparse_only"], "expand.max_total_triples=300")
    assert plan[1].sets[0] == "fusion.top_k=50" and plan[1].sets[1:] == list(
        ABLATIONS["sparse_only"])
    assert plan[2].sets == ["fusion.top_k=50", "expand.max_total_triples=300"]
    with pytest.raises(OntoRetrieveError, match="--ablation 'nope'"):
        plan_variants([], ["nope"], None)
    with pytest.raises(OntoRetrieveError, match="--sweep"):
        plan_variants([], [], "expand.max_total_triples")


def test_pick_files_reaches_the_target_and_replicates_when_files_run_out() -> None:
    files = [("big", 900), ("mid", 90), ("small", 10), ("none", 0)]
    assert pick_files(files, 95) == [("small", 0), ("mid", 0)]
    assert pick_files(files, 5) == [("small", 0)]
    picked = pick_files(files, 2000)
    atoms = dict(files)
    assert sum(atoms[n] for n, _ in picked) >= 2000
    assert ("none", 0) not in picked and max(c for _, c in picked) >= 1
    assert len(set(picked)) == len(picked)  # a copy of a file is taken once


def test_replicas_rename_what_the_file_describes_only() -> None:
    a, b, p = (ox.NamedNode(f"http://x/{n}") for n in "abp")
    ext = ox.NamedNode("http://other/C")
    triples = [ox.Triple(a, p, b), ox.Triple(b, p, ext)]
    copy = replicate(triples, 1)
    assert copy[0] == ox.Triple(ox.NamedNode("http://x/a-copy1"), p,
                                ox.NamedNode("http://x/b-copy1"))
    assert copy[1].object == ext and copy[1].predicate == p


def test_report_writes_markdown_plots_and_a_self_contained_page(tmp_path: Path) -> None:
    rows = [{"id": "u", "source": "s", "gold": [["a"]], "retrieved_term_iris": ["a"],
             "context_subjects": ["a"], "gold_ontologies": {"a": "o1"},
             "subject_ontologies": {"o1": 1, "o2": 3}, "context_tokens": 50,
             "seconds": {"total": 0.1}}]
    smaller = [{**rows[0], "context_subjects": [], "context_tokens": 10}]
    summary = {"date": "2026-11-30", "command": "ontoretrieve bench recall <x>",
               "units_per_source": {"s": 1}, "variants": {
                   "base": {"sets": [], "summary": summarize(rows).model_dump()},
                   "expand.max_total_triples=10": {
                       "sets": ["expand.max_total_triples=10"],
                       "summary": summarize(smaller).model_dump()},
                   "no_expansion": {"sets": ["expand.graph_stage=false"],
                                    "summary": summarize(smaller).model_dump()}}}
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    written = write_report(tmp_path)
    names = {p.name for p in written}
    assert {"summary.md", "report.html", *PLOTS} <= names
    for plot in PLOTS:
        assert (tmp_path / plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (tmp_path / "report.html").read_text()
    assert page.count("data:image/png;base64,") == len(PLOTS)
    assert "&lt;x&gt;" in page  # the command is escaped
    markdown = (tmp_path / "summary.md").read_text()
    assert "| s | 1 | 1 | 100.0 %" in markdown and "o2 (3)" in markdown
    assert "Where gold terms are lost" in page  # captions in words, not file names


def test_report_drills_down_to_each_unit(tmp_path: Path) -> None:
    rows = [{"id": "good", "source": "s", "text": "A <b>5 mV</b> signal.",
             "gold": [["mV"], ["day"]], "retrieved_term_iris": ["mV", "V"],
             "context_subjects": ["mV", "V", "day"], "gold_ontologies": {"mV": "u", "day": "t"},
             "subject_ontologies": {"u": 2, "t": 1}, "context_tokens": 50,
             "seed_spans": {"mV": ["5 mV"]}, "seconds": {"total": 0.1}},
            {"id": "bad", "source": "s", "text": "Later.", "gold": [["day"], ["gone"]],
             "retrieved_term_iris": [], "context_subjects": [],
             "gold_ontologies": {"day": "t"}, "subject_ontologies": {},
             "context_tokens": 0, "seconds": {"total": 0.1}}]
    summary = {"variants": {"base": {"sets": [], "summary": summarize(rows).model_dump()}}}
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    (tmp_path / "base.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    write_report(tmp_path)
    page = (tmp_path / "report.html").read_text()
    units = page.split("<h2 id='units'>", 1)[1]
    assert units.index("unit-bad") < units.index("unit-good")  # the worst first
    assert "A &lt;b&gt;5 mV&lt;/b&gt; signal." in units         # the text, escaped
    assert "seed #1</td><td>named by &quot;5 mV&quot;" in units
    assert "not a seed; the graph stage added it" in units       # day: context only
    assert "its ontology t supplied nothing to this context" in units
    assert "not in the catalog" in units and "Seeds not in the gold: V" in units


def test_a_summary_that_is_not_one_is_named(tmp_path: Path) -> None:
    (tmp_path / "summary.json").write_text("{}")
    with pytest.raises(OntoRetrieveError, match="not a bench recall summary"):
        write_report(tmp_path)


def test_perf_markdown_lists_sizes_and_stages() -> None:
    size = {"atoms": 1000, "catalog_files": 3, "copies": 0, "index_wall_seconds": 9.5,
            "atoms_embedded": 1000, "atoms_reused": 0, "index_dense_texts_per_second": 150.0,
            "raw_dense_texts_per_second": {"given_order": 80.0, "sorted_by_length": 200.0},
            "index_over_raw": 0.75,
            "index_peak_rss_mib": 900, "query_units": 5, "query_peak_rss_mib": 800,
            "latency_ms": {"total": {"p50": 40.0, "p95": 80.0, "mean": 45.0},
                           "embedding": {"p50": 9.0, "p95": 12.0, "mean": 9.5}}}
    text = perf_markdown({"date": "d", "machine": "m", "catalog": "c", "units": ["u"],
                          "sizes": [size]})
    assert "| 1,000 | 3 (0) | 9.5 |" in text and "| 80.0 / 200.0 | 0.75 |" in text
    assert "| 1,000 | 5 | 9 / 12 | 40 / 80 | 800 |" in text
