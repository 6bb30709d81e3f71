"""Usage: python t2k_probe.py RUN.jsonl DATA_DIR CUT

Text2KGBench: where the gold relations fall in the scoped seeds with the scoped cut at CUT a window."""
import json, sys, collections
from pathlib import Path
from ontoretrieve import load_settings
from ontoretrieve.query.seeder import SeedRetriever
st=json.load(open(f'{sys.argv[2]}/index/default/state.json'))['ontologies']
by_stem={Path(v['sources'][0]).stem:h for h,v in st.items()}
rows=[json.loads(l) for l in open(sys.argv[1]) if '"text2kg"' in l]
settings=load_settings(data_dir=Path(sys.argv[2]))
settings=settings.model_copy(update={"seeds": settings.seeds.model_copy(update={"scoped_top_per_window": int(sys.argv[3])})})
r=SeedRetriever.open(settings, reader=True)
ranks=collections.Counter(); n=0
for u in rows:
    gold=[v[0] for v in u["gold"]]
    res=r.seeds(u["text"], scope={by_stem[u["unit_ontology"]]})
    iris=[s.iri for s in res.seeds]
    for g in gold:
        n+=1
        k=iris.index(g) if g in iris else None
        ranks["miss" if k is None else ("<5" if k<5 else "<12" if k<12 else "<20" if k<20 else "<30" if k<30 else "30+")]+=1
print(n, sorted(ranks.items()))
r.close()
