"""Gold rate of seeds by how many seeds of the unit share their ontology (namespace proxy)."""
import json, sys, collections, re
def ns(iri):
    m = re.match(r"http://purl.obolibrary.org/obo/([A-Za-z]+)_", iri)
    if m: return m.group(1)
    m = re.search(r"(ont_\d+_\w+)", iri)
    if m: return m.group(1)
    return re.sub(r"[#/][^#/]*$", "", iri)
rows = [json.loads(l) for l in open(sys.argv[1])]
for src in ("craft", "measeval", "text2kg"):
    tab = collections.defaultdict(lambda: [0, 0])
    for r in rows:
        if r["source"] != src: continue
        seeds = r["retrieved_term_iris"]; gold = {i for g in r["gold"] for i in g}
        c = collections.Counter(ns(s) for s in seeds)
        for rk, s in enumerate(seeds):
            sup = c[ns(s)]; b = 1 if sup == 1 else 2 if sup == 2 else 3 if sup <= 4 else 5
            tab[b][0] += 1; tab[b][1] += s in gold
    print(src, {k: (v[0], round(100 * v[1] / v[0], 1)) for k, v in sorted(tab.items())})
