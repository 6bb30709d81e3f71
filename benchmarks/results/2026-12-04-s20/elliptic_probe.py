"""Usage: python elliptic_probe.py RUN.jsonl DATA_DIR OUT.json

Elliptic mentions the lexical cohesion test drops: their window fit and gold flag."""

import json
import sys
from pathlib import Path

import numpy as np

from ontoretrieve import load_settings
from ontoretrieve.index import mention_match as mm
from ontoretrieve.index.mention_forms import FormKind
from ontoretrieve.query.mention_lane import _window_at
from ontoretrieve.query.seeder import NOTHING_PREPARED, CoreVectors, SeedRetriever
from ontoretrieve.query.windows import make_windows_with_metrics

rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
r = SeedRetriever.open(load_settings(data_dir=Path(sys.argv[2])), reader=True)
orig = mm._cohesive
mm._cohesive = lambda found, tokens: found
out = []
s = r.settings
for u in rows:
    if u.get("scoped"):
        continue
    gold = {i for v in u["gold"] for i in v}
    text = u["text"]
    found = r.dictionary.find(text)
    ell = [m for m in found if m.kind == FormKind.ELLIPTIC.value]
    if not ell:
        continue
    keep_ids = {id(m) for m in orig(ell, mm.tokenize(text))}
    windows, _ = make_windows_with_metrics(
        text, s.windows, r.embedder.count_tokens, r.embedder.sequence_limit
    )
    wv = NOTHING_PREPARED.dense_queries(r.embedder, [w.text for w in windows])
    vecs = CoreVectors(r.index)(sorted({m.iri for m in ell}))
    for m in ell:
        v = vecs.get(m.iri)
        fit = None if v is None else float(np.dot(wv[_window_at(windows, m.start)], v))
        out.append(
            {
                "id": u["id"],
                "iri": m.iri,
                "span": m.text,
                "form": m.form,
                "shared": m.shared_by,
                "contained": m.contained,
                "cohesive": id(m) in keep_ids,
                "fit": fit,
                "gold": m.iri in gold,
            }
        )
r.close()
Path(sys.argv[3]).write_text(json.dumps(out))
