"""Usage: pip install wordfreq; python commonness_probe.py RUN.jsonl

Gold rate of seeds by how common their rarest naming span is in English (wordfreq's
Zipf scale), per source; then the gold among the first 10, 15 and 20 seeds when the seeds
named only by words at or over a threshold move to the end of the order."""

import json
import sys
from collections import defaultdict
from pathlib import Path

import wordfreq

rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]


def zipf(row: dict, iri: str) -> float | None:
    spans = row["seed_spans"].get(iri)
    return min(wordfreq.zipf_frequency(s, "en") for s in spans) if spans else None


for source in ("craft", "measeval", "text2kg"):
    rates: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        if row["source"] != source:
            continue
        gold = {i for group in row["gold"] for i in group}
        for iri in row["retrieved_term_iris"]:
            z = zipf(row, iri)
            bucket = "none" if z is None else "<3.5" if z < 3.5 else f"{int(z * 2) / 2:.1f}"
            rates[bucket][0] += iri in gold
            rates[bucket][1] += 1
    print(source, {k: (g, n, round(g / n, 3)) for k, (g, n) in sorted(rates.items())})
for threshold in (None, 6.0, 5.5, 5.0):
    line = []
    for source in ("craft", "measeval", "text2kg"):
        for top in (10, 15, 20):
            found = 0
            for row in rows:
                if row["source"] != source:
                    continue
                gold = {i for group in row["gold"] for i in group}
                seeds = row["retrieved_term_iris"]
                if threshold is not None:
                    common = {i for i in seeds if (zipf(row, i) or 0) >= threshold}
                    seeds = [i for i in seeds if i not in common] + [
                        i for i in seeds if i in common]
                found += len(gold & set(seeds[:top]))
            line.append(f"{source}@{top}={found}")
    print(threshold, " ".join(line))
