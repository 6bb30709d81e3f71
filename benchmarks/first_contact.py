"""Benchmark: a new user's first catalog, what a few plain sentences retrieve from it.

Indexes one catalog folder into a fresh data directory (the embedded default, as
the README's first command does) and retrieves each line of a texts file at the
default budget, printing per text the seeds (local names), the context's tokens and
terms, how many restrictions and ``owl:disjointWith`` statements its Turtle holds and
how many blank-node labels (``_:b0``) it writes.
No gold: the texts are the project's own examples of what such a user types, so
the report shows behaviour, not recall. With ``--before DIR`` (an older checkout,
same venv) the same texts run on that code too, on its own copy of the index.

    python benchmarks/first_contact.py ../shared/bench/catalog/pizza \\
        benchmarks/first_contact_pizza.txt --work /tmp/first-contact [--before /tmp/old] \\
        [--out report.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from common import CHECKOUT_PREAMBLE, emit, stamp

_CHILD = CHECKOUT_PREAMBLE + """
import json
from pathlib import Path
catalog, data_dir, texts = sys.argv[2:5]
from ontoretrieve import Engine, load_settings

settings = load_settings(data_dir=Path(data_dir))
rows = []
with Engine.open(settings) as engine:
    engine.catalog_load(Path(catalog))
    for text in Path(texts).read_text(encoding="utf-8").splitlines():
        if not text.strip():
            continue
        context = engine.retrieve(text)
        turtle = context.serialize("turtle")
        rows.append({"text": text,
                     "seeds": [s.iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1]
                               for s in context.seeds],
                     "tokens": context.metrics.context_tokens,
                     "terms": len(context.terms),
                     "restrictions": turtle.count("owl:Restriction"),
                     "disjoint_with": turtle.count("owl:disjointWith"),
                     "blank_labels": turtle.count("_:b")})
print(json.dumps(rows))
"""


def _side(checkout: Path | None, catalog: Path, data_dir: Path, texts: Path
          ) -> list[dict[str, Any]]:
    shutil.rmtree(data_dir, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(checkout or ""), str(catalog), str(data_dir),
         str(texts)], capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    if done.returncode != 0:
        raise SystemExit(f"the run failed ({done.returncode}): {done.stderr[-2000:]}")
    rows: list[dict[str, Any]] = json.loads(done.stdout.splitlines()[-1])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("catalog", type=Path, help="a catalog file or folder")
    parser.add_argument("texts", type=Path, help="one text per line")
    parser.add_argument("--work", type=Path, required=True,
                        help="a scratch folder: each side's data directory goes here")
    parser.add_argument("--before", type=Path, help="a checkout of an older commit")
    parser.add_argument("--out", type=Path, help="write the report here too")
    args = parser.parse_args()
    report: dict[str, Any] = {**stamp(), "catalog": str(args.catalog),
                              "this": _side(None, args.catalog, args.work / "this", args.texts)}
    if args.before:
        report["before"] = _side(args.before, args.catalog, args.work / "before", args.texts)
    emit(report, args.out)


if __name__ == "__main__":
    main()
