"""Seeds (confidence order off) of every unscoped unit of a run, pickled for fitting."""

import json
import pickle
import sys
import time
from pathlib import Path

from ontoretrieve.query.seeder import SeedRetriever
from ontoretrieve.settings import load_settings

rows_file, data_dir, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
settings = load_settings(data_dir=data_dir, seeds={"confidence_order": False})
retriever = SeedRetriever.open(settings)
units = []
t0 = time.time()
for _n, line in enumerate(rows_file.read_text().splitlines()):
    row = json.loads(line)
    if row.get("unit_ontology_named"):
        continue
    gold = {iri for group in row["gold"] for iri in group}
    units.append((row["id"], (row["source"], gold, retriever.seeds(row["text"]).seeds)))
    if len(units) % 200 == 0:
        print(len(units), round(time.time() - t0), flush=True)
pickle.dump(units, out.open("wb"))
print("done", len(units), round(time.time() - t0))
