"""Session 22's probes of what the seeds miss (numbers in RESULTS.md, session 22).

    HF_HUB_OFFLINE=1 python probes.py elliptic RUN/base.jsonl --data-dir DATA
    python probes.py morphology CRAFT_UNITS.jsonl
    python probes.py support RUN/base.jsonl

``elliptic``: the elliptic mentions the cohesion rule drops, gold or not, with
their best window fit and how many other terms of their ontology the text names.
``morphology``: gold mentions of one word that a Greek or Latin derivation rule
(-otic/-osis, -etic/-esis, -ic/-osis, -genic/-genesis) would newly join to a one-word
label. ``support``: the gold rate of seeds by how many seeds share their namespace.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
from pathlib import Path
from typing import Any

import numpy as np


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def elliptic(rows_file: Path, data_dir: Path) -> None:
    import ontoretrieve.index.mention_match as mm
    from ontoretrieve.index.mention_forms import FormKind
    from ontoretrieve.query.seeder import CoreVectors, SeedRetriever
    from ontoretrieve.query.windows import make_windows_with_metrics
    from ontoretrieve.settings import load_settings

    settings = load_settings(data_dir=data_dir)
    retriever = SeedRetriever.open(settings)
    cohesive = mm._cohesive
    mm._cohesive = lambda found, tokens: found  # read every elliptic mention
    dropped = []
    for row in _rows(rows_file):
        if row["source"] != "craft" or retriever.dictionary is None:
            continue
        text, gold = row["text"], {i for g in row["gold"] for i in g}
        found = retriever.dictionary.find(text)
        kept = {(m.iri, m.start) for m in cohesive(found, mm.tokenize(text))}
        named = [m for m in found if m.kind == FormKind.ELLIPTIC.value
                 and (m.iri, m.start) not in kept]
        if not named:
            continue
        windows, _ = make_windows_with_metrics(text, settings.windows,
                                               retriever.embedder.count_tokens,
                                               retriever.embedder.sequence_limit)
        queries = retriever.embedder.embed_queries([w.text for w in windows])
        vectors = CoreVectors(retriever.index)(sorted({m.iri for m in named}))
        for m in {m.iri: m for m in named}.values():
            if m.iri in vectors:
                fit = max(float(np.dot(q, vectors[m.iri])) for q in queries)
                support = len({x.iri for x in found if x.ontology_hash == m.ontology_hash
                               and x.kind in ("label", "exact") and not x.contained})
                dropped.append((m.iri in gold, fit, support, m.text.lower(), m.form))
    print(f"dropped {len(dropped)}, gold {sum(d[0] for d in dropped)}")
    for floor in (0.2, 0.3, 0.4):
        kept_ = [d for d in dropped if d[1] >= floor]
        print(f"fit >= {floor}: {len(kept_)} kept, gold {sum(d[0] for d in kept_)}")
    for least in (3, 5, 10):
        kept_ = [d for d in dropped if d[2] >= least]
        print(f"ontology names >= {least} terms: {len(kept_)} kept, gold "
              f"{sum(d[0] for d in kept_)}")
    by_form = collections.Counter((d[3], d[4], d[0]) for d in dropped)
    for (word, form, is_gold), count in by_form.most_common(20):
        print(count, word, "->", form, "gold" if is_gold else "")


def morphology(units_file: Path) -> None:
    from ontoretrieve.index.mention_text import fold_word, may_derive, root_word

    def keys(word: str, greek: bool) -> set[str]:
        found = {fold_word(word)}
        if may_derive(word):
            root = root_word(fold_word(word))
            found.add(root)
            if greek and word.lower().endswith("ic"):
                found |= {root + "os", root + "es"}
                if root.endswith("t"):
                    found.add(root[:-1] + "s")
        return found

    gained: collections.Counter[tuple[str, str]] = collections.Counter()
    for unit in _rows(units_file):
        for g in unit["gold"]:
            label = g["label_in_annotation"].replace("_", " ").split()
            if len(label) != 1:
                continue
            named = {fold_word(label[0]), root_word(fold_word(label[0]))}
            for _, _, text in g["mentions"]:
                if " " not in text.strip() and not keys(text, False) & named \
                        and keys(text, True) & named:
                    gained[(text.lower(), g["label_in_annotation"])] += 1
    print(f"gold mentions newly joined: {sum(gained.values())}")
    for (word, label), count in gained.most_common(20):
        print(count, word, "->", label)


def _namespace(iri: str) -> str:
    obo = re.match(r"http://purl.obolibrary.org/obo/([A-Za-z]+)_", iri)
    if obo:
        return obo.group(1)
    return re.sub(r"[#/][^#/]*$", "", iri)


def support(rows_file: Path) -> None:
    rows = _rows(rows_file)
    for source in sorted({r["source"] for r in rows}):
        table: dict[int, list[int]] = collections.defaultdict(lambda: [0, 0])
        for row in (r for r in rows if r["source"] == source):
            seeds, gold = row["retrieved_term_iris"], {i for g in row["gold"] for i in g}
            sharing = collections.Counter(_namespace(s) for s in seeds)
            for s in seeds:
                bucket = min(sharing[_namespace(s)], 5)
                table[bucket][0] += 1
                table[bucket][1] += s in gold
        print(source, {k: (n, round(100 * g / n, 1)) for k, (n, g) in sorted(table.items())})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("probe", choices=["elliptic", "morphology", "support"])
    parser.add_argument("path", type=Path)
    parser.add_argument("--data-dir", type=Path)
    args = parser.parse_args()
    if args.probe == "elliptic":
        elliptic(args.path, args.data_dir)
    elif args.probe == "morphology":
        morphology(args.path)
    else:
        support(args.path)


if __name__ == "__main__":
    main()
