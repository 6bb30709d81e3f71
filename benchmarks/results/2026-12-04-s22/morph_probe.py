import json, collections, re
from ontoretrieve.index.mention_text import root_word, fold_word, may_derive
def old_keys(w):
    return {fold_word(w)} | ({root_word(fold_word(w))} if may_derive(w) else set())
def new_keys(w):
    ks = old_keys(w)
    if not may_derive(w): return ks
    r = root_word(fold_word(w)); lw = w.lower()
    if lw.endswith("ic") or lw.endswith("ical"):
        if r.endswith("t"): ks.add(r[:-1] + "s")          # mitot-ic -> mitos(is)
        ks.add(r + "os"); ks.add(r + "es")                 # endocyt-ic -> endocytos(is), -genic -> -genes(is)
    return ks
def label_keys(label):
    ws = label.split()
    if len(ws) != 1: return set()
    return {fold_word(ws[0]), root_word(fold_word(ws[0]))}
gained = collections.Counter(); total = 0
for l in open("/work/shared/bench/units/craft.jsonl"):
    d = json.loads(l)
    for g in d["gold"]:
        lk = label_keys(g["label_in_annotation"].replace("_", " "))
        if not lk: continue
        for s, e, t in g["mentions"]:
            if " " in t.strip(): continue
            total += 1
            if not (old_keys(t) & lk) and (new_keys(t) & lk):
                gained[(t.lower(), g["label_in_annotation"])] += 1
print(total, sum(gained.values()))
for k, v in gained.most_common(40): print(v, k)
