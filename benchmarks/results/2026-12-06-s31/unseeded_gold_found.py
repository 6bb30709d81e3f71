"""Why CRAFT's unseeded gold is unseeded (session 31): did the mention dictionary find the
term in the text at all, and was the mention usable? Over a whole-suite run's rows. Run alone:

    HF_HUB_OFFLINE=1 python unseeded_gold_found.py   (paths below: edit to your run)
"""
import json, sys, collections
from pathlib import Path
from ontoretrieve import Engine, load_settings
units = [json.loads(l) for l in open('../shared/bench/units/craft.jsonl') if l.strip()]
rows = {}
for line in open('/work/data/s30/full_latin/base.jsonl'):
    r = json.loads(line); rows[r['id']] = r
settings = load_settings(data_dir=Path('/work/data/bench2'))
stat = collections.Counter(); ex = collections.defaultdict(collections.Counter)
out = open('/tmp/unseeded_gold_found.jsonl', 'w')
with Engine.open(settings) as engine:
    sr = engine._retriever(engine._tenant("default")).seed_retriever
    for u in units:
        seeds = set(rows[u['unit_id']]['retrieved_term_iris'])
        missed = [g for g in u['gold'] if g['iri'] not in seeds]
        if not missed: continue
        found = sr.dictionary.find(u['text'])
        usable = sr.mentions(u['text'])
        by = collections.defaultdict(list)
        for m in found: by[m.iri].append(m)
        us = {m.iri for m in usable}
        for g in missed:
            ms = by.get(g['iri'], [])
            kind = 'found_usable' if g['iri'] in us else ('found_unusable' if ms else 'not_found')
            stat[kind] += 1
            ex[kind][(g['label_in_annotation'], g['mentions'][0][2].lower())] += 1
            out.write(json.dumps({'unit': u['unit_id'], 'iri': g['iri'], 'kind': kind}) + '\n')
print(stat)
for k in ex:
    print(k, ex[k].most_common(40))
