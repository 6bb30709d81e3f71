"""Benchmark: retrievals of hostile texts as long as the server accepts.

A text at ``server.max_text_chars`` built to load one stage: one word repeated
(every word a mention, every mention inside others' reach), a catalog's
longest label repeated (long keys, every prefix extended), a real paragraph
repeated (many windows), a number and a unit symbol repeated, an
abbreviation defined again and again, one "word" with no space, page text
(every word broken at a line end, one word broken line after line, ligatures
and soft hyphens everywhere), and short forms repeated in a text whose
document, as long, defines them (on code without documents: not run). Each
is retrieved once by a warm engine; the seconds per stage say which stage a
hostile client could make slow. With
``--before DIR`` (an older checkout, same venv) the same texts run on that code
too, in a process of its own, on ``--before-data-dir`` when given (a copy,
where its code keeps its own files).

    python benchmarks/hostile_texts.py ../shared/bench/units/craft.jsonl \\
        --data-dir /work/data/bench [--before /tmp/old] [--before-data-dir COPY] \\
        [--out report.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from common import CHECKOUT_PREAMBLE, emit, stamp

_CHILD = CHECKOUT_PREAMBLE + """
import inspect, json, time
from pathlib import Path
data_dir, paragraph = sys.argv[2:4]
from ontoretrieve import Engine, load_settings
from ontoretrieve.index.build import mention_store, query_state

settings = load_settings(data_dir=Path(data_dir))
limit = settings.server.max_text_chars
store = mention_store(settings)
longest = max((form for h in sorted(query_state(settings).ontologies)
               for which, _, _, form, _ in (store.keyed(h) or [])
               if which == "folded" and len(form) < 400),
              key=lambda form: len(form.split()))

def filled(piece):
    return (piece * (limit // len(piece) + 1))[:limit]

texts = {"one word repeated": filled("cell "),
         "the longest label repeated": filled(longest + " "),
         "a paragraph repeated": filled(paragraph + " "),
         "a quantity repeated": filled("5 mV "),
         "an abbreviation defined again and again": filled("embryonic stem (ES) cells "),
         "one word without a space": "a" * limit,
         "every word broken at a line end": filled("mito-\\nchondrial "),
         "one word broken line after line": filled("ab-\\n"),
         "ligatures and soft hyphens": filled("e\\ufb04\\u00adux \\u00ad\\n")}
documents = {"short forms its document defines": (
    filled("ES cells in BAT, "),
    filled("embryonic stem (ES) cells in brown adipose tissue (BAT); "))}
takes_documents = "document" in inspect.signature(Engine.retrieve).parameters
report = {"limit": limit, "longest_label_words": len(longest.split()), "texts": {}}
with Engine.open(settings) as engine:
    engine.retrieve("warm up: a cell in 5 mV")
    for name, text in [*texts.items(), *documents.items()]:
        document = None
        if isinstance(text, tuple):
            if not takes_documents:
                continue
            text, document = text
        started = time.perf_counter()
        context = engine.retrieve(text, document=document) if document else engine.retrieve(text)
        report["texts"][name] = {
            "seconds": round(time.perf_counter() - started, 2),
            "stages": {k: round(v, 2) for k, v in context.seconds.items() if v >= 0.05},
            "context_triples": context.metrics.context_triples}
        print(name, report["texts"][name], file=sys.stderr, flush=True)
print(json.dumps(report))
"""


def _side(checkout: Path | None, data_dir: Path, paragraph: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(checkout or ""), str(data_dir), paragraph],
        capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    if done.returncode != 0:
        raise SystemExit(f"the run failed ({done.returncode}): {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("units", type=Path, help="a units file: its first text is repeated")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--before", type=Path, help="a checkout of an older commit")
    parser.add_argument("--before-data-dir", type=Path,
                        help="the before side's data directory (default: --data-dir)")
    parser.add_argument("--out", type=Path, help="write the report here too")
    args = parser.parse_args()
    paragraph = json.loads(args.units.read_text(encoding="utf-8").splitlines()[0])["text"]
    report = {**stamp(), "this": _side(None, args.data_dir, paragraph)}
    if args.before:
        report["before"] = _side(args.before, args.before_data_dir or args.data_dir,
                                  paragraph)
    emit(report, args.out)


if __name__ == "__main__":
    main()
