"""Benchmark input: units whose texts are written in British spelling.

Each unit's text is localised to British spelling by ``localspelling`` (Fast Data
Science's word list and wildcards, MIT; in the dev and bench extras), a converter
that knows nothing of the mention lane's own rules (``index/spelling.py``): "tumor"
becomes "tumour", "analyzed" "analysed", "hemoglobin" "haemoglobin". The gold stays
as it is (the offsets of the gold mentions are dropped: they no longer hold), so
``bench recall`` on the British file, paired with the original (the same units are
sampled by the same seed), says what a British text costs, and a paired run of two
codes on the British file says what a change of folding gains there.

It prints how many words the conversion changed, and the most frequent.

    pip install localspelling   # in the dev and bench extras
    python benchmarks/british_units.py ../shared/bench/units/craft.jsonl --out craft_gb.jsonl
    ontoretrieve bench recall --units craft_gb.jsonl --sample 300 --seed 1 --out RUN
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from localspelling import convert_spelling

from ontoretrieve.bench.compare import read_jsonl
from ontoretrieve.errors import OntoRetrieveError

_WORD = re.compile(r"[A-Za-z]+")


def british(text: str, changed: Counter[tuple[str, str]]) -> str:
    """``text`` in British spelling, each changed word counted in ``changed``.

    >>> counts: Counter[tuple[str, str]] = Counter()
    >>> british("The tumor was analyzed.", counts)
    'The tumour was analysed.'
    >>> sorted(counts)
    [('analyzed', 'analysed'), ('tumor', 'tumour')]
    """
    converted = convert_spelling(text, "gb")
    before, after = _WORD.findall(text), _WORD.findall(converted)
    if len(before) == len(after):
        changed.update((a.lower(), b.lower()) for a, b in zip(before, after, strict=True)
                       if a != b)
    return converted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("units", type=Path, help="a units JSONL file (bench recall's format)")
    parser.add_argument("--out", type=Path, required=True, help="the British units file")
    args = parser.parse_args()
    changed: Counter[tuple[str, str]] = Counter()
    try:
        units = read_jsonl(args.units, "text")
    except OntoRetrieveError as exc:  # names the file and the bad line's number
        raise SystemExit(str(exc)) from None
    texts = 0
    with args.out.open("w", encoding="utf-8") as sink:
        for unit in units:
            text = british(unit["text"], changed)
            texts += text != unit["text"]
            unit["text"] = text
            for gold in unit.get("gold", []):
                gold.pop("mentions", None)
            sink.write(json.dumps(unit, ensure_ascii=False) + "\n")
    print(f"{len(units)} units, {texts} texts changed, {sum(changed.values())} words changed; "
          f"most frequent: {changed.most_common(15)}")


if __name__ == "__main__":
    main()
