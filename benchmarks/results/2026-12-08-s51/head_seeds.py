"""Session 51: the seeds mentions.head_nouns adds and drops, paired by unit, with gold.

    python head_seeds.py OUT   # OUT: a bench recall --sweep "mentions.head_nouns=false" run
"""
import collections
import json
import sys


def _rows(out: str, name: str) -> dict[str, dict]:
    with open(f"{out}/{name}.jsonl", encoding="utf-8") as lines:
        return {r["id"]: r for r in map(json.loads, lines)}


def main(out: str) -> None:
    on, off = _rows(out, "base"), _rows(out, "mentions.head_nouns=false")
    added, gold_added = collections.Counter(), collections.Counter()
    dropped, gold_dropped = collections.Counter(), collections.Counter()
    changed = 0
    for uid, a in on.items():
        if uid not in off:
            continue
        gold = {iri for group in a["gold"] for iri in group}
        now, before = set(a["retrieved_term_iris"]), set(off[uid]["retrieved_term_iris"])
        changed += now != before
        for iri in now - before:
            added[iri] += 1
            gold_added[iri] += iri in gold
        for iri in before - now:
            dropped[iri] += 1
            gold_dropped[iri] += iri in gold
    print(f"units changed {changed}; seeds added {sum(added.values())} "
          f"({sum(gold_added.values())} gold), dropped {sum(dropped.values())} "
          f"({sum(gold_dropped.values())} gold)")
    for name, counts, gold_counts in (("added", added, gold_added),
                                      ("dropped", dropped, gold_dropped)):
        print(f"{name}, most often:", [(iri.rsplit("/", 1)[-1], n, gold_counts[iri])
                                       for iri, n in counts.most_common(25)])


if __name__ == "__main__":
    main(sys.argv[1])
