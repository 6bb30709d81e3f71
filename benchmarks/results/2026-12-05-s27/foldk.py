import pickle, sys, json
from collections import Counter
sys.path.insert(0, "/work/main/benchmarks")
from fit_seed_confidence import article, gold_at, TOP
from ontoretrieve.query.confidence_trees import TreeModel, packaged_trees
units = pickle.load(open("all_seeds.pkl", "rb"))
articles = sorted({article(uid) for uid, _ in units})
fold_of = {a: i % 5 for i, a in enumerate(articles)}
s1 = set(json.loads(l)["id"] for l in open("/work/data/s26/s1_pertoken/base.jsonl"))
held = [u for uid, u in units if fold_of[article(uid)] == 4 and uid not in s1]
print(len(held))
models = {"shipped": TreeModel.from_dict(json.load(open("/work/tmp/s27/base/pkg/ontoretrieve/models/seed-confidence/trees.json")))}
for f in sys.argv[1:]:
    models[f] = TreeModel.from_dict(json.load(open(f)))
for name, m in models.items():
    for src, c in gold_at(held, m).items():
        print(f"{name:22s} {src:8s}", " ".join(str(c[k]) for k in TOP))
