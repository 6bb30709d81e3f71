"""Order-independent matches of a name's content words within GAP words (argv[1])
among seed-1 CRAFT units:
how many are new seeds and gold. SEEDS: a pickle of one sample's seeds; BENCH: the bench folder.
"""

import glob
import os
import pickle
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pyoxigraph as ox

from ontoretrieve.index.mention_text import STOPWORDS, fold_word, tokenize

GAP = int(sys.argv[1]) if len(sys.argv) > 1 else 3
units = pickle.loads(Path(os.environ["SEEDS"]).read_bytes())
units = [u for u in units if u["source"] == "craft"]
names = defaultdict(set)  # iri -> set of frozenset stems
kinds = {}
NAMING = ("label", "hasExactSynonym")
LOOSE = ("hasRelatedSynonym", "hasNarrowSynonym", "hasBroadSynonym")
for f in glob.glob(os.path.join(os.environ["BENCH"], "catalog/obo/*.ttl")):
    for q in ox.parse(path=f, format=ox.RdfFormat.TURTLE):
        p = q.predicate.value.rsplit("#", 1)[-1]
        if isinstance(q.object, ox.Literal) and p in (*NAMING, *LOOSE):
            words = [t.text for t in tokenize(q.object.value) if t.is_word]
            stems = [fold_word(w) for w in words if w.lower() not in STOPWORDS]
            if len(stems) >= 2 and len(set(stems)) == len(stems):
                names[q.subject.value].add((tuple(stems), p in NAMING))
by_stem = defaultdict(list)
for iri, ns in names.items():
    for stems, naming in ns:
        by_stem[stems[0]].append((iri, stems, naming))
print("names", sum(len(v) for v in names.values()))
tot = Counter()
ex = []
for u in units:
    toks = [t for t in tokenize(u["text"])]
    # sentence-ish segments: split at . ; tokens
    pos = defaultdict(list)
    wi = 0
    seg = 0
    seq = []
    for t in toks:
        if t.text in ".;:?!":
            seg += 1
            continue
        if not t.is_word:
            continue
        if t.text.lower() in STOPWORDS:
            wi += 1
            continue
        s = fold_word(t.text)
        pos[s].append((wi, seg))
        seq.append(s)
        wi += 1
    text_stems = " " + " ".join(seq) + " "
    seeds = {s["iri"] for s in u["seeds"]}
    gold = {i for g in u["gold"] for i in g}
    cands = {}
    for s0 in list(pos):
        for iri, stems, naming in by_stem.get(s0, ()):
            if not all(s in pos for s in stems):
                continue
            if " " + " ".join(stems) + " " in text_stems:
                continue  # contiguous already
            # any occurrence combination within GAP span
            ok = False
            for p0, g0 in pos[stems[0]]:
                lo, hi = p0, p0
                good = True
                for s in stems[1:]:
                    best = (
                        min((abs(p - p0), p) for p, g in pos[s] if g == g0)
                        if any(g == g0 for _, g in pos[s])
                        else None
                    )
                    if best is None:
                        good = False
                        break
                    lo, hi = min(lo, best[1]), max(hi, best[1])
                if good and hi - lo + 1 <= len(stems) + GAP:
                    ok = True
                    break
            if ok:
                cands[iri] = cands.get(iri, False) or naming
    for iri, naming in cands.items():
        tot["cand", naming] += 1
        tot["cand_seed", iri in seeds] += 1
        if iri in gold:
            tot["gold", naming, iri in seeds] += 1
            if iri not in seeds and len(ex) < 40:
                ex.append((u["id"], iri.rsplit("/", 1)[-1], sorted(names[iri])[:2]))
print(sorted(tot.items(), key=str))
print("units", len(units), "gold", sum(len(u["gold"]) for u in units))
for e in ex:
    print(e)
