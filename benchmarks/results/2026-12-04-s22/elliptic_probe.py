"""Uncohesive elliptic mentions on a bench sample: their fit to the window, gold or not."""
import json, sys, random, collections
import numpy as np
import ontoretrieve.index.mention_match as mm
from ontoretrieve.settings import load_settings
from ontoretrieve.query.seeder import SeedRetriever, CoreVectors
from ontoretrieve.query.windows import make_windows_with_metrics
from ontoretrieve.query.mention_lane import _window_at
from ontoretrieve.index.mention_forms import FormKind
EL = FormKind.ELLIPTIC.value
rows = [json.loads(l) for l in open(sys.argv[1])]
src = sys.argv[2]
settings = load_settings(data_dir="/work/data/bench")
sr = SeedRetriever.open(settings)
orig = mm._cohesive
mm._cohesive = lambda ms, toks: ms
out = []
for r in rows:
    if r["source"] != src: continue
    text = r["text"]; gold = {i for g in r["gold"] for i in g}
    found = sr.dictionary.find(text)
    kept = {(m.iri, m.start) for m in orig(found, mm.tokenize(text))}
    ell = [m for m in found if m.kind == EL]
    if not ell: continue
    windows, _ = make_windows_with_metrics(text, settings.windows, sr.embedder.count_tokens, sr.embedder.sequence_limit)
    wv = sr.embedder.embed_queries([w.text for w in windows]) if hasattr(sr.embedder, "embed_queries") else None
    vec = CoreVectors(sr.index)(sorted({m.iri for m in ell}))
    seen = set()
    for m in ell:
        if (m.iri, r["id"]) in seen: continue
        seen.add((m.iri, r["id"]))
        if m.iri not in vec: continue
        fit = max(float(np.dot(w, vec[m.iri])) for w in wv)
        wfit = float(np.dot(wv[_window_at(windows, m.start)], vec[m.iri]))
        sup = len({x.iri for x in found if x.ontology_hash == m.ontology_hash and x.kind in ("label", "exact") and not x.contained})
        out.append((m.iri in gold, (m.iri, m.start) in kept, round(fit, 3), round(wfit, 3), m.text, m.form, m.shared_by, sup))
json.dump(out, open(sys.argv[3], "w"))

unc = [o for o in out if not o[1]]
for th in (0, 3, 5, 8, 10, 15, 20):
    sel = [o for o in unc if o[7] >= th]
    print(th, len(sel), sum(o[0] for o in sel), sorted(collections.Counter(o[5] for o in sel if not o[0]).items(), key=lambda kv: -kv[1])[:6])
