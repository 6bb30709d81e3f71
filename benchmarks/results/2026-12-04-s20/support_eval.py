"""Usage: python support_eval.py SEED_PROBE.json (seed_probe.py of session 19): per-ontology support of tier-0 seeds and orders by it."""
import sys
import json, collections
d=json.load(open(sys.argv[1]))
def ont(i):
    if "obolibrary" in i: return i.rsplit('/',1)[1].split('_')[0]
    p=i.replace('#','/').split('/'); return "/".join(p[2:-1])
by=collections.Counter(); g=collections.Counter()
def recall_at(order_fn, N, src):
    hit=tot=0
    for u in d:
        if u["source"]!=src: continue
        seeds=order_fn(u)
        top={s["iri"] for s in seeds[:N]}
        gold=set(u["gold"]); tot+=len(gold); hit+=len(gold&top)
    return 100*hit/tot
def support(u):
    c=collections.Counter(ont(s["iri"]) for s in u["seeds"] if s["tier"]==0)
    return c
for u in d:
    c=support(u)
    for s in u["seeds"]:
        if s["tier"]!=0: continue
        k=min(c[ont(s["iri"])],6); by[(u["source"],k)]+=1; g[(u["source"],k)]+=s["gold"]
for k in sorted(by): print(k, by[k], g[k], "%.1f%%"%(100*g[k]/by[k]))
base=lambda u: u["seeds"]
def supported(minsup):
    def f(u):
        c=support(u)
        return sorted(u["seeds"], key=lambda s:(s["tier"], s["tier"]==0 and c[ont(s["iri"])]<minsup, s["place"]))
    return f
for src in ("craft","measeval"):
    for N in (5,10,15,20):
        print(src, N, "base %.1f"%recall_at(base,N,src), " sup>=2 %.1f"%recall_at(supported(2),N,src), " sup>=3 %.1f"%recall_at(supported(3),N,src))
