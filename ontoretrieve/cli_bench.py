"""``ontoretrieve bench``: benchmark tools (``compare`` so far; ``recall`` and ``perf`` to come)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ontoretrieve.bench.compare import (
    Comparison,
    Metric,
    compare_runs,
    gold_from_units,
    read_jsonl,
    read_run,
)
from ontoretrieve.cli import AsJson, _errors_to_exit, _print_json, _short, app, out
from ontoretrieve.errors import OntoRetrieveError

__all__ = ["bench_app"]

bench_app = typer.Typer(help="Benchmark tools.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")


@bench_app.command("compare")
def compare_command(
    run_a: Annotated[Path, typer.Argument(help="The baseline run (JSONL, one row per unit).")],
    run_b: Annotated[Path, typer.Argument(help="The run to compare with it.")],
    metric: Annotated[str, typer.Option(
        "--metric", help="context (gold among context subjects) or seed.")] = "context",
    units: Annotated[list[Path] | None, typer.Option(
        "--units", help="Bench units files with the gold, for runs whose rows carry none.")
    ] = None,
    resamples: Annotated[int, typer.Option("--resamples", min=100)] = 2000,
    show: Annotated[int, typer.Option("--show", help="Terms gained and lost to list.")] = 10,
    as_json: AsJson = False,
) -> None:
    """Paired per-term comparison of two runs, with a bootstrap interval on the difference."""
    with _errors_to_exit():
        if metric not in ("context", "seed"):
            raise OntoRetrieveError(f"--metric {metric!r}: use context or seed")
        gold = None
        if units:
            gold = {}
            for path in units:
                gold.update(gold_from_units(read_jsonl(path, "unit_id")))
        chosen: Metric = "context" if metric == "context" else "seed"
        result = compare_runs(read_run(run_a), read_run(run_b), metric=chosen, gold=gold,
                              resamples=resamples)
    if as_json:
        _print_json(result.model_dump(mode="json"))
        return
    _print_comparison(result, show)


def _print_comparison(c: Comparison, show: int) -> None:
    verdict = "noise" if c.noise else ("better" if c.difference > 0 else "worse")
    out.print(f"{c.metric} term recall over {c.units} paired units, {c.gold_terms} gold terms: "
              f"A {c.recall_a:.1%}  B {c.recall_b:.1%}  difference {c.difference:+.2%} "
              f"({c.confidence:.0%} interval {c.ci_low:+.2%} .. {c.ci_high:+.2%}): {verdict}")
    for source, (a, b) in c.by_source.items():
        out.print(f"  {source}: A {a:.1%}  B {b:.1%}  ({b - a:+.2%})")
    out.print(f"gained {len(c.gained)}, lost {len(c.lost)}"
              + (f"; {len(c.unpaired)} units in one run only" if c.unpaired else ""))
    for label, pairs in (("+", c.gained), ("-", c.lost)):
        for unit, term in pairs[:show]:
            out.print(f"  {label} {unit}  {_short(term, 70, keep='end')}")
