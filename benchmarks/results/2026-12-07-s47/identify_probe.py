import time, sys
import pyoxigraph as ox
from pathlib import Path
from ontoretrieve.catalog.files import identify
tr = [q.triple if hasattr(q,'triple') else q for q in ox.parse(path="/work/shared/bench/catalog/" + sys.argv[1])]
st = [(t.subject, t.predicate, t.object) for t in tr]
for r in range(3):
    s=time.perf_counter(); a=identify(tr, "go"); m=time.perf_counter(); b=identify(st, "go") if sys.argv[2]=="new" else None; e=time.perf_counter()
    print(sys.argv[2], len(tr), "triples %.3f statements %.3f" % (m-s, e-m), a.iri, a.version)
