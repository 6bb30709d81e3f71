"""Performance of indexing and retrieval at several catalog sizes, in one run.

For each target size (about 1k, 10k and 100k atoms by default) a catalog is
assembled from the source catalog's files, smallest first, and replicated
under new IRIs when the files run out (``replicate``); then, each step in a
child process so that its peak RSS is its own:

1. ``ontoretrieve index --catalog`` into a fresh data directory: wall time,
   atoms embedded and reused, peak RSS;
2. raw embedding throughput (the packaged model, no index) on a fixed-seed
   sample of the same dense texts the index embedded, in the given order and
   sorted by length, and the ratio of the index's dense texts per second to
   the better of the two;
3. ``ontoretrieve bench recall`` on the query units: latency per unit by stage
   (p50, p95) and the query process's peak RSS.

Results go to ``perf.json`` and ``perf.md`` in the output folder.

>>> pick_files([("a", 600), ("b", 300), ("c", 50)], 1000)
[('c', 0), ('b', 0), ('a', 0), ('c', 1)]
"""

from __future__ import annotations

import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ontoretrieve.catalog.files import discover_files, parse_file
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.index.atomize import Atom, AtomSource, atomize
from ontoretrieve.index.build import make_embedder
from ontoretrieve.index.embed import Embedder
from ontoretrieve.settings import Settings

__all__ = ["dense_texts", "file_atoms", "perf_markdown", "pick_files", "replicate",
           "run_cli_json", "run_perf"]

Progress = Callable[[str], None]


def file_atoms(path: Path, settings: Settings) -> list[Atom]:
    """The atoms an index build makes of one ontology file."""
    parsed = parse_file(path)
    return atomize(parsed.triples, AtomSource(str(path), None, parsed.content_hash),
                   settings.index, settings.triggers)


def dense_texts(atoms: Sequence[Atom]) -> list[str]:
    """The texts the dense encoder embeds for ``atoms`` (core, then neighbourhood, each).

    >>> from types import SimpleNamespace as A
    >>> dense_texts([A(core_text="c", neighborhood_text=None),
    ...              A(core_text="d", neighborhood_text="n")])
    ['c', 'd', 'n']
    """
    return [t for a in atoms for t in (a.core_text, a.neighborhood_text) if t]


def pick_files(sizes: Sequence[tuple[str, int]], target: int) -> list[tuple[str, int]]:
    """Files (name, copy number), smallest first, until ``target`` atoms; then copies of them.

    The last file may overshoot the target; the measured size is what gets reported.
    """
    ordered = sorted(((name, atoms) for name, atoms in sizes if atoms > 0),
                     key=lambda s: (s[1], s[0]))
    if not ordered:
        raise OntoRetrieveError("the source catalog has no atoms")
    chosen: list[tuple[str, int]] = []
    total = copy = 0
    while total < target:
        for name, atoms in ordered:
            if total >= target:
                break
            chosen.append((name, copy))
            total += atoms
        copy += 1
    return chosen


def replicate(triples: Sequence[ox.Triple], copy: int) -> list[ox.Triple]:
    """The triples with every IRI the file describes renamed for copy ``copy`` (0: unchanged).

    >>> t = ox.Triple(ox.NamedNode("http://x/A"), ox.NamedNode("http://x/p"), ox.Literal("a"))
    >>> replicate([t], 2)[0].subject.value
    'http://x/A-copy2'
    """
    if copy == 0:
        return list(triples)
    own = {t.subject for t in triples if isinstance(t.subject, ox.NamedNode)}

    def rename(term: Any) -> Any:
        return ox.NamedNode(f"{term.value}-copy{copy}") if term in own else term

    return [ox.Triple(rename(t.subject), t.predicate, rename(t.object)) for t in triples]


def run_cli_json(args: list[str]) -> tuple[dict[str, Any], float, float]:
    """Run the CLI with --json in a child: its JSON, wall seconds and peak RSS (MiB)."""
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "ontoretrieve", *args, "--json"],
                                 stdout=stdout, stderr=stderr,
                                 env={**os.environ, "HF_HUB_OFFLINE": "1"})
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        stdout.seek(0)
        stderr.seek(0)
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            raise OntoRetrieveError(f"`ontoretrieve {' '.join(args)}` failed: "
                                    f"{stderr.read()[-800:]}")
        return json.load(stdout), seconds, usage.ru_maxrss / 1024


def run_perf(settings: Settings, catalog: Path, units: Sequence[Path], out_dir: Path, *,
             sizes: Sequence[int] = (1_000, 10_000, 100_000), sample: int | None = None,
             raw_texts: int = 3_000, seed: int = 13, progress: Progress | None = None
             ) -> dict[str, Any]:
    """Measure every size (see the module docstring); returns what ``perf.json`` holds."""
    say = progress or (lambda message: None)
    say(f"atomizing {catalog}")
    files = _atomized(catalog, settings)
    embedder = make_embedder(settings)
    results = []
    for size in sizes:
        picked = pick_files(sorted(files.atoms.items()), size)
        folder, data = out_dir / f"catalog-{size}", out_dir / f"data-{size}"
        say(f"{size}: writing {len(picked)} files")
        _write_catalog(folder, picked, files.paths)
        shutil.rmtree(data, ignore_errors=True)
        say(f"{size}: indexing")
        report, wall, index_rss = run_cli_json(["index", "--catalog", str(folder),
                                                "--data-dir", str(data)])
        pool = [t for name, _ in picked for t in files.texts[name]]
        dense_per_atom = len(pool) / max(sum(files.atoms[n] for n, _ in picked), 1)
        chosen = random.Random(seed).sample(pool, min(raw_texts, len(pool)))
        say(f"{size}: raw embedding of {len(chosen)} texts")
        raw = _raw_rates(embedder, chosen)
        index_rate = report["atoms_embedded"] * dense_per_atom / wall
        say(f"{size}: querying")
        queries, _, query_rss = run_cli_json(
            _query_args(out_dir / f"queries-{size}", data, units, sample))
        base = queries["variants"]["base"]["summary"]["overall"]
        results.append({
            "target_atoms": size, "atoms": report["atoms_total"],
            "atoms_embedded": report["atoms_embedded"], "atoms_reused": report["atoms_reused"],
            "catalog_files": len(picked), "copies": max(c for _, c in picked),
            "catalog_triples": sum(
                v["triple_count"] for v in (report.get("catalog_load") or {}).get("added", [])),
            "index_wall_seconds": round(wall, 1), "index_embed_seconds": report["embed_seconds"],
            "index_dense_texts_per_second": round(index_rate, 1),
            "raw_dense_texts_per_second": {k: round(v, 1) for k, v in raw.items()},
            "index_over_raw": round(index_rate / max(raw.values()), 3),
            "index_peak_rss_mib": round(index_rss),
            "query_units": base["units"],
            "latency_ms": base["latency_ms"],
            "query_peak_rss_mib": round(query_rss),
            "context_triples_mean": base["context_triples"]["mean"],
        })
        say(f"{size}: done")
    return {"date": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                       f"{platform.python_version()}",
            "catalog": str(catalog), "units": [str(u) for u in units],
            "raw_sample_texts": raw_texts, "sizes": results}


@dataclass(frozen=True)
class _Atomized:
    """The catalog's files by name: their paths, atom counts and dense texts."""

    paths: dict[str, Path]
    atoms: dict[str, int]
    texts: dict[str, list[str]]


def _atomized(catalog: Path, settings: Settings) -> _Atomized:
    found = _Atomized({}, {}, {})
    for path in discover_files(catalog)[0]:
        atoms = file_atoms(path, settings)
        found.paths[str(path)] = path
        found.atoms[str(path)] = len(atoms)
        found.texts[str(path)] = dense_texts(atoms)
    return found


def _write_catalog(folder: Path, picked: Sequence[tuple[str, int]],
                   paths: Mapping[str, Path]) -> None:
    """The picked files into a fresh ``folder``: copy 0 as itself, the others renamed."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, copy in picked:
        path = paths[name]
        if copy == 0:
            # The file's own name, so that units naming their ontology by file still match.
            target = folder / path.name
            if target.exists():
                target = folder / f"{path.parent.name}-{path.name}"
            shutil.copyfile(path, target)
        else:
            triples = replicate(parse_file(path).triples, copy)
            (folder / f"copy{copy}-{path.stem}.nt").write_bytes(
                ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES) or b"")


def _raw_rates(embedder: Embedder, chosen: Sequence[str]) -> dict[str, float]:
    """Texts a second the bare encoder embeds, in the given order and sorted by length.

    Both orders: fastembed pads a batch to its longest text, so the given (random) order
    is much slower than sorted; the index sorts, so the fair ratio is to the best.
    """
    raw: dict[str, float] = {}
    for order, batch in (("given_order", list(chosen)),
                         ("sorted_by_length", sorted(chosen, key=len))):
        started = time.perf_counter()
        embedder.embed_documents(batch)
        raw[order] = len(batch) / (time.perf_counter() - started)
    return raw


def _query_args(out: Path, data: Path, units: Sequence[Path], sample: int | None
                ) -> list[str]:
    args = ["bench", "recall", "--out", str(out), "--data-dir", str(data)]
    for path in units:
        args += ["--units", str(path)]
    return args + (["--sample", str(sample)] if sample else [])


def perf_markdown(data: dict[str, Any]) -> str:
    """The run as markdown tables (index, then query latency by stage)."""
    lines = [f"# bench perf: {data['date']}", "", f"{data['machine']}; catalog "
             f"{data['catalog']}; units {', '.join(data['units'])}", "",
             "| atoms | files (copies) | index wall s | embedded / reused | index texts/s | "
             "raw texts/s given / sorted | index / best raw | index peak RSS MiB |",
             "|" + " --- |" * 8]
    for s in data["sizes"]:
        lines.append(f"| {s['atoms']:,} | {s['catalog_files']} ({s['copies']}) | "
                     f"{s['index_wall_seconds']} | {s['atoms_embedded']:,} / "
                     f"{s['atoms_reused']:,} | {s['index_dense_texts_per_second']} | "
                     f"{s['raw_dense_texts_per_second']['given_order']} / "
                     f"{s['raw_dense_texts_per_second']['sorted_by_length']} | "
                     f"{s['index_over_raw']} | "
                     f"{s['index_peak_rss_mib']} |")
    stages = sorted({stage for s in data["sizes"] for stage in s["latency_ms"]},
                    key=lambda st: (st == "total", st))
    lines += ["", "Latency per unit, ms p50 / p95 (query process peak RSS last):", "",
              "| atoms | units | " + " | ".join(stages) + " | peak RSS MiB |",
              "|" + " --- |" * (len(stages) + 3)]
    for s in data["sizes"]:
        cells = [f"{s['latency_ms'][st]['p50']:.0f} / {s['latency_ms'][st]['p95']:.0f}"
                 if st in s["latency_ms"] else "" for st in stages]
        lines.append(f"| {s['atoms']:,} | {s['query_units']} | " + " | ".join(cells)
                     + f" | {s['query_peak_rss_mib']} |")
    return "\n".join(lines) + "\n"
