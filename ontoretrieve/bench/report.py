"""The recall run's report: markdown tables, PNG plots and one self-contained HTML page.

Reads only the run's ``summary.json`` (written by ``bench recall``), so a report
can be remade from a finished run. Plots (matplotlib, the ``bench`` extra):

- ``recall_vs_context.png`` and ``recall_vs_triples.png``: context term recall
  against mean context size in estimated LLM tokens and in triples, per source a
  curve through the contexts cut to each budget and whole, swept settings dashed,
  ablations as labelled points;
- ``funnel.png``: per source, the share of gold terms alive at each stage
  (recall@10, recall@50, all seeds, context);
- ``ontologies.png``: context term recall per gold ontology, with its number of
  gold terms;
- ``recall_vs_tokens.png``: per source, context term recall with the context
  cut to each token budget of the curve, one line per variant, each variant's
  own default size marked.

The HTML page embeds the plots as data URIs, so it can be mailed or archived;
each has a caption that says what it shows. Under the tables, a drill-down
(``drilldown``) opens each unit of the first variant: its text, its gold terms
and where each was found or why it was missed (``report.html#unit-ID`` opens
one).
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ontoretrieve.bench.drilldown import drilldown_html
from ontoretrieve.bench.summary import RunSummary, SourceSummary
from ontoretrieve.errors import OntoRetrieveError

__all__ = ["markdown_summary", "read_summary", "write_report"]

PLOTS = ("recall_vs_context.png", "funnel.png", "ontologies.png", "recall_vs_tokens.png",
         "recall_vs_triples.png")
CAPTIONS = {
    PLOTS[0]: "How much of the gold the contexts hold against how big they are on average "
              "(estimated tokens): per source, the contexts built for budgets of 500 to "
              "8,000 tokens and, as a star, at their default size; swept settings dashed, "
              "other variants as crosses. Up and to the left is better.",
    PLOTS[4]: "The same in triples: context recall against the mean number of triples of "
              "the contexts built for each budget and at their default size (star).",
    PLOTS[1]: "Where gold terms are lost, per source: the share found among the first 10 "
              "and 50 fused candidates, among all seeds, and in the final context.",
    PLOTS[2]: "Per ontology of the gold, the share of its gold terms in the contexts "
              "(green) and among the seeds (blue), with its number of gold terms at the "
              "right: which ontologies the engine serves worst.",
    PLOTS[3]: "Context recall when every context is cut to a token budget (500 to 8,000 "
              "estimated tokens), one line per setting; a cross marks each setting's own "
              "average size. The curve is what a prompt of that size would hold.",
}
"""What each plot shows, in words, under it on the page."""


def read_summary(out_dir: Path) -> dict[str, Any]:
    """A run's ``summary.json`` with its variants' summaries as ``RunSummary``."""
    path = out_dir / "summary.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        data["variants"] = {name: {**v, "summary": RunSummary.model_validate(v["summary"])}
                            for name, v in data["variants"].items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OntoRetrieveError(f"{path}: not a bench recall summary: {exc}") from None
    return data


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def _source_rows(name: str, s: SourceSummary) -> list[str]:
    return [name, str(s.units), str(s.gold_terms), _pct(s.seed_term_recall),
            _pct(s.recall_at_10), _pct(s.recall_at_50), _pct(s.context_term_recall),
            f"{100 * s.graph_stage_net:+.1f}", _pct(s.derived_gold_recall),
            _pct(s.on_topic_precision),
            f"{s.context_triples.mean:.0f} / {s.context_triples.p95:.0f}",
            f"{s.context_tokens.mean:.0f} / {s.context_tokens.p95:.0f}",
            "n/a" if s.bare_subjects is None else
            f"{s.bare_subjects.mean:.1f} ({_pct(s.bare_subject_share)})",
            str(s.empty_contexts),
            f"{s.latency_ms['total'].p50:.0f} / {s.latency_ms['total'].p95:.0f}"
            if "total" in s.latency_ms else "n/a"]


_SOURCE_HEADER = ["source", "units", "gold terms", "seed recall", "R@10", "R@50",
                  "context recall", "graph net (pt)", "derived recall", "on-topic precision",
                  "triples mean / p95", "tokens mean / p95", "bare IRIs mean (share)", "empty",
                  "latency ms p50 / p95"]


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _workers_note(data: Mapping[str, Any]) -> str:
    """Said after the warm-up when workers made the rows (their latencies then measured
    beside each other).

    >>> _workers_note({"workers": 2})
    ' (2 workers, their sum); rows made by 2 workers, latencies measured side by side'
    >>> _workers_note({})
    ''
    """
    workers = data.get("workers") or 1
    if workers < 2:
        return ""
    return (f" ({workers} workers, their sum); rows made by {workers} workers, latencies "
            "measured side by side")


def markdown_summary(data: Mapping[str, Any]) -> str:
    """Tables per variant (sources and overall), then the base run's ontologies."""
    parts = [f"# bench recall: {data.get('date', '')}", "",
             f"Units: {data.get('units_per_source')}; sample {data.get('sample')} per source, "
             f"seed {data.get('seed')}; warm-up {data.get('warm_up_seconds')} s"
             f"{_workers_note(data)}; "
             f"peak RSS {data.get('peak_rss_mib')} MiB; units that name their ontology "
             f"{'scoped to it' if data.get('scoped', True) else 'unscoped'}.", ""]
    for name, variant in data["variants"].items():
        summary: RunSummary = variant["summary"]
        rows = [_source_rows(source, s) for source, s in summary.sources.items()]
        rows.append(_source_rows("**all**", summary.overall))
        parts += [f"## {name}", "", f"Settings: `{' '.join(variant['sets']) or 'defaults'}`",
                  "", _table(_SOURCE_HEADER, rows), ""]
        budgets = list(summary.overall.recall_at_tokens)
        if budgets:
            parts += ["Context term recall with the context cut to a budget (estimated "
                      "tokens):", "", _table(["source", *budgets], [
                          [source, *(_pct(s.recall_at_tokens.get(b)) for b in budgets)]
                          for source, s in [*summary.sources.items(),
                                            ("**all**", summary.overall)]]), ""]
    base: RunSummary = next(iter(data["variants"].values()))["summary"]
    parts += ["## Per gold ontology (first variant)", "", _table(
        ["ontology", "gold terms", "seed recall", "context recall", "context subjects"],
        [[name, str(o.gold_terms), _pct(o.seed_term_recall), _pct(o.context_term_recall),
          str(o.context_subjects)] for name, o in base.ontologies.items()]), ""]
    if base.never_found:
        parts += ["Gold ontologies none of whose gold terms reached a context: "
                  + ", ".join(f"{k} ({v})" for k, v in base.never_found.items()), ""]
    if base.unknown_unit_ontologies:
        parts += ["Units naming an ontology the catalog does not hold (no on-topic precision "
                  "for them): " + ", ".join(f"{k} ({v})" for k, v in
                                            base.unknown_unit_ontologies.items()), ""]
    if base.contributed_nothing:
        parts += ["Ontologies in contexts that never contributed a gold term "
                  "(context subjects supplied): " + ", ".join(
                      f"{k} ({v})" for k, v in list(base.contributed_nothing.items())[:15]), ""]
    return "\n".join(parts)


def write_report(out_dir: Path) -> list[Path]:
    """Write ``summary.md``, the plots and ``report.html`` into ``out_dir``; their paths."""
    data = read_summary(out_dir)
    written = [out_dir / "summary.md"]
    written[0].write_text(markdown_summary(data), encoding="utf-8")
    plots = _plots(data, out_dir)
    written += plots
    page = out_dir / "report.html"
    page.write_text(_html(data, plots, _base_rows(data, out_dir)), encoding="utf-8")
    return [*written, page]


def _base_rows(data: Mapping[str, Any], out_dir: Path) -> list[dict[str, Any]]:
    """The first variant's unit rows, for the drill-down (none when the file is gone)."""
    path = out_dir / f"{next(iter(data['variants']))}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _plots(data: Mapping[str, Any], out_dir: Path) -> list[Path]:
    try:
        import matplotlib
    except ImportError as exc:
        raise OntoRetrieveError("plots need matplotlib: pip install 'ontoretrieve[bench]'"
                                ) from exc
    matplotlib.use("Agg")  # files only; never a display
    import matplotlib.pyplot as plt

    variants: dict[str, Any] = data["variants"]
    summaries: dict[str, RunSummary] = {n: v["summary"] for n, v in variants.items()}
    base_name = next(iter(summaries))
    base = summaries[base_name]
    sources = list(base.sources)
    paths = []

    paths.append(_size_plot(plt, summaries, sources, "tokens", out_dir / PLOTS[0]))
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    stages = [("R@10", "recall_at_10"), ("R@50", "recall_at_50"),
              ("seeds", "seed_term_recall"), ("context", "context_term_recall")]
    width = 0.8 / max(len(stages), 1)
    for i, (label, field) in enumerate(stages):
        xs = [j + i * width for j in range(len(sources))]
        ys = [100 * getattr(base.sources[s], field) for s in sources]
        ax.bar(xs, ys, width, label=label)
    ax.set_xticks([j + width * (len(stages) - 1) / 2 for j in range(len(sources))], sources)
    ax.set_ylabel("gold terms found (%)")
    ax.set_ylim(0, 100)
    ax.set_title(f"Funnel per stage ({base_name})")
    ax.legend(fontsize=8, ncols=4)
    ax.grid(axis="y", alpha=0.3)
    paths.append(_save(fig, out_dir / PLOTS[1]))

    names = sorted(base.ontologies, key=lambda n: base.ontologies[n].context_term_recall)
    fig, ax = plt.subplots(figsize=(7.5, max(2.5, 0.28 * len(names) + 1)))
    ax.barh(names, [100 * base.ontologies[n].context_term_recall for n in names],
            color="tab:green", label="context")
    ax.barh(names, [100 * base.ontologies[n].seed_term_recall for n in names], height=0.4,
            color="tab:blue", label="seeds")
    for y, name in enumerate(names):
        ax.annotate(f"{base.ontologies[name].gold_terms}", (101, y), fontsize=7,
                    va="center", annotation_clip=False)
    ax.set_xlim(0, 100)
    ax.set_xlabel("term recall (%); gold terms at the right")
    ax.set_title(f"Recall per gold ontology ({base_name})")
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(fontsize=8, loc="lower right")
    paths.append(_save(fig, out_dir / PLOTS[2]))
    paths.append(_tokens_plot(plt, summaries, sources, out_dir / PLOTS[3]))
    paths.append(_size_plot(plt, summaries, sources, "triples", out_dir / PLOTS[4]))
    return paths


def _size_plot(plt: Any, summaries: Mapping[str, RunSummary], sources: list[str],
               unit: str, path: Path) -> Path:
    """Context recall against mean context size (``tokens`` or ``triples``): per source,
    the first variant's contexts at each curve budget and at their own size (a star), so
    a run of one variant still draws a curve; swept settings joined by a dashed line,
    other variants as labelled crosses."""
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    names = list(summaries)
    swept = [n for n in names[1:] if "=" in n]
    others = [n for n in names[1:] if n not in swept]

    def whole(s: SourceSummary) -> float:
        return s.context_tokens.mean if unit == "tokens" else s.context_triples.mean

    xs: list[float] = []
    for source in sources:
        base = summaries[names[0]].sources[source]
        budgets = sorted(base.size_at_tokens, key=int)
        points = [(base.size_at_tokens[b][unit], 100 * base.recall_at_tokens.get(b, 0.0))
                  for b in budgets if unit in base.size_at_tokens[b]]
        default = (whole(base), 100 * base.context_term_recall)
        points = sorted([*points, default])
        xs += [p[0] for p in points]
        line, = ax.plot([p[0] for p in points], [p[1] for p in points],
                        marker="o", label=source)
        colour = line.get_color()
        ax.scatter([default[0]], [default[1]], marker="*", s=140, color=colour,
                   zorder=3)  # the first variant at its own (default) size
        if swept:
            sweep = sorted((whole(summaries[n].sources[source]),
                            100 * summaries[n].sources[source].context_term_recall)
                           for n in [names[0], *swept] if source in summaries[n].sources)
            ax.plot([p[0] for p in sweep], [p[1] for p in sweep], linestyle="--",
                    marker="s", color=colour, alpha=0.7)
        for k, name in enumerate(others):
            if source not in summaries[name].sources:
                continue
            s = summaries[name].sources[source]
            ax.scatter([whole(s)], [100 * s.context_term_recall], marker="x", color=colour)
            # Staggered so that ablations landing on one spot stay readable.
            ax.annotate(name, (whole(s), 100 * s.context_term_recall), fontsize=7,
                        xytext=(4, 4 - 9 * k), textcoords="offset points", color=colour)
    logarithmic = bool(xs) and min(xs) > 0  # sizes span orders of magnitude
    ax.set_xscale("log" if logarithmic else "linear")
    ax.set_xlabel(f"mean context size ({'estimated LLM tokens' if unit == 'tokens' else unit})"
                  + (", log scale" if logarithmic else ""))
    ax.set_ylabel("context term recall (%)")
    ax.set_title(f"Recall against context size in {unit}"
                 + (f" ({swept[0].split('=')[0]} swept, dashed)" if swept else ""))
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)


def _tokens_plot(plt: Any, summaries: Mapping[str, RunSummary], sources: list[str],
                 path: Path) -> Path:
    """Recall against the token budget, one panel per source, one line per variant
    (empty panels for a run that recorded no curve)."""
    fig, axes = plt.subplots(1, len(sources), figsize=(3.6 * len(sources), 3.8),
                             sharey=True, squeeze=False)
    for ax, source in zip(axes[0], sources, strict=True):
        for name, summary in summaries.items():
            s = summary.sources.get(source)
            if s is None or not s.recall_at_tokens:
                continue
            budgets = sorted(s.recall_at_tokens, key=int)
            line, = ax.plot([int(b) for b in budgets],
                            [100 * s.recall_at_tokens[b] for b in budgets], marker="o",
                            label=name)
            ax.scatter([max(s.context_tokens.mean, 1)], [100 * s.context_term_recall],
                       marker="x", color=line.get_color())  # the variant's own size
        ax.set_xscale("log")
        ticks = sorted({int(b) for x in summaries.values() if source in x.sources
                        for b in x.sources[source].recall_at_tokens})
        ax.set_xticks(ticks, [f"{t / 1000:g}k" for t in ticks])
        ax.minorticks_off()
        ax.set_title(source)
        ax.set_xlabel("token budget (x: default size)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("context term recall (%)")
    axes[0][0].set_ylim(0, 100)
    if axes[0][0].get_legend_handles_labels()[0]:
        axes[0][0].legend(fontsize=8)
    return _save(fig, path)


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def _html(data: Mapping[str, Any], plots: list[Path],
          unit_rows: Sequence[Mapping[str, Any]] = ()) -> str:
    e = html.escape
    body = [f"<h1>ontoretrieve bench recall</h1><p>{e(str(data.get('date', '')))} &middot; "
            f"command: <code>{e(str(data.get('command', '')))}</code></p>",
            f"<p>units per source: {e(json.dumps(data.get('units_per_source')))}; warm-up "
            f"{e(str(data.get('warm_up_seconds')))} s{e(_workers_note(data))}; peak RSS "
            f"{e(str(data.get('peak_rss_mib')))} MiB</p>"]
    for plot in plots:
        encoded = base64.b64encode(plot.read_bytes()).decode()
        caption = CAPTIONS.get(plot.name, plot.stem)
        body.append(f'<figure><img alt="{e(plot.stem)}" src="data:image/png;base64,'
                    f'{encoded}"><figcaption>{e(caption)}</figcaption></figure>')
    for name, variant in data["variants"].items():
        summary: RunSummary = variant["summary"]
        rows = [_source_rows(source, s) for source, s in summary.sources.items()]
        rows.append(_source_rows("all", summary.overall))
        body.append(f"<h2>{e(name)}</h2><p><code>{e(' '.join(variant['sets']) or 'defaults')}"
                    f"</code></p>" + _html_table(_SOURCE_HEADER, rows))
    base: RunSummary = next(iter(data["variants"].values()))["summary"]
    body.append("<h2>Per gold ontology</h2>" + _html_table(
        ["ontology", "gold terms", "seed recall", "context recall", "context subjects"],
        [[n, str(o.gold_terms), _pct(o.seed_term_recall), _pct(o.context_term_recall),
          str(o.context_subjects)] for n, o in base.ontologies.items()]))
    body.append("<h2>Ontologies that contributed nothing</h2>" + _html_table(
        ["ontology", "context subjects supplied"],
        [[k, str(v)] for k, v in base.contributed_nothing.items()]))
    if unit_rows:
        body.append(drilldown_html(unit_rows, next(iter(data["variants"]))))
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto}"
             "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
             "padding:2px 6px;text-align:right}td:first-child{text-align:left}"
             "img{max-width:100%}figcaption{font-size:13px;color:#444}"
             "details{border-bottom:1px solid #ddd;padding:4px 0}summary{cursor:pointer}"
             "blockquote{background:#f6f6f6;padding:6px 10px;margin:6px 0}"
             "table.gold td,table.gold th{text-align:left}"
             "tr.missed td{color:#a00}tr.found td{color:#060}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>bench recall</title>"
            f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n")


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"
