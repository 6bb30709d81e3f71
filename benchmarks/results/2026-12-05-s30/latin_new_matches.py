"""The mention matches the Latin-adjective reading adds, per adjective ending, each
(unit, term) counted once, gold or not (session 30).

Matches found with the reading and not without it (``latin_nouns`` switched off in
``mention_match``). The data directory comes from ONTORETRIEVE_DATA (an index built by
``ontoretrieve index``); the units files are the arguments. Run from the repository root:

    ONTORETRIEVE_DATA=/work/data/bench2 python benchmarks/results/2026-12-05-s30/\\
        latin_new_matches.py ../shared/bench/units/craft.jsonl ...
"""

import json
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path

import ontoretrieve.index.mention_match as mention_match
from ontoretrieve import Engine, load_settings
from ontoretrieve.index.mention_text import _LATIN_ALTERNATIONS, _LATIN_STEM_MIN, latin_nouns


def ending_of(word: str) -> str | None:
    folded = word.casefold()
    return next((e for e, _ in _LATIN_ALTERNATIONS
                 if folded.endswith(e) and len(folded) - len(e) >= _LATIN_STEM_MIN), None)


def main() -> None:
    by_ending: dict[str | None, Counter[str]] = defaultdict(Counter)
    pairs: Counter[tuple[str, str, bool]] = Counter()
    settings = load_settings(data_dir=Path(os.environ["ONTORETRIEVE_DATA"]))
    with Engine.open(settings) as engine:
        dictionary = engine._retriever(engine._tenant("default"))._mention_dictionary()
        for path in sys.argv[1:]:
            for line in Path(path).read_text(encoding="utf-8").splitlines():
                unit = json.loads(line)
                gold = set(unit["gold_iris"]) | {i for g in unit.get("gold_any_of", [])
                                                 for i in g}
                mention_match.latin_nouns = lambda _: ()
                before = {(m.iri, m.start, m.end) for m in dictionary.find(unit["text"])}
                mention_match.latin_nouns = latin_nouns
                seen = set()
                for m in dictionary.find(unit["text"]):
                    if (m.iri, m.start, m.end) in before or m.iri in seen:
                        continue
                    seen.add(m.iri)
                    by_ending[ending_of(m.text)]["gold" if m.iri in gold else "wrong"] += 1
                    pairs[(m.text.casefold(), m.form, m.iri in gold)] += 1
    for ending, counts in by_ending.items():
        print(ending, dict(counts))
    for (text, form, is_gold), n in pairs.most_common(60):
        print(n, text, form, is_gold)


if __name__ == "__main__":
    main()
