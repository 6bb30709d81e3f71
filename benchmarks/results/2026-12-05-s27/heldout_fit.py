"""Trees fitted on four of five article folds of the whole suite; the fifth fold's units
written out.

Paths come from the environment: SEEDS (the pickle dump_all.py writes), SAMPLE_RUN
(a seed-1 `bench recall` base.jsonl), BENCH (the bench folder, e.g. ../shared/bench),
OLD_TREES (a trees.json to compare against). Run from the repository root.
MW: MeasEval's weight (3); OUT, HELD_UNITS: where the trees and the held units go.
"""

import json
import os
import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/
from fit_seed_confidence import article, fitted

units = pickle.loads(Path(os.environ["SEEDS"]).read_bytes())
articles = sorted({article(uid) for uid, _ in units})
fold_of = {a: i % 5 for i, a in enumerate(articles)}
HOLD = 4
train = [u for uid, u in units if fold_of[article(uid)] != HOLD]
held = {uid for uid, _ in units if fold_of[article(uid)] == HOLD}
print("train units", len(train), "held", len(held))
W = {"measeval": float(os.environ.get("MW", "3"))}  # MeasEval's weight
_, data = fitted(train, "trees", 1.0, W)
Path(os.environ.get("OUT", "trees_heldout.json")).write_text(
    json.dumps(data, separators=(",", ":")) + "\n"
)
with open(os.environ.get("HELD_UNITS", "held_units.jsonl"), "w") as out:
    for name in ("craft", "measeval"):
        for line in (
            (Path(os.environ["BENCH"]) / "units" / f"{name}.jsonl")
            .read_text()
            .splitlines(keepends=True)
        ):
            if json.loads(line)["unit_id"] in held:
                out.write(line)
print("written")
