"""Benchmark: our sentence splitter against the reference's split-at-every-period.

On every unit text of ../shared/bench/units, counts for each splitter the
sentences it makes and two kinds of damage:

- false breaks: a sentence ending in an abbreviation, an initial or a
  reference marker ("Fig.", "et al.", "e.g.", "J.", "No.") while the next
  one goes on the same statement;
- fragments: "sentences" of fewer than three words.

A window built from damaged sentences splits a statement across windows, so a
term whose mention straddles the break reaches no lane whole.

    python benchmarks/sentence_split.py ../shared/bench/units/*.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path

from ontoretrieve.query.windows import naive_sentences, split_sentences

_ABBREVIATION_END = re.compile(
    r"(?:\b(?:Fig|Figs|No|Nos|Eq|Ref|Refs|Suppl|Tab|vs|cf|ca|approx|al|e\.g|i\.e|Dr|Prof|"
    r"Mr|Mrs|St)|\b[A-Z])\.$")

Splitter = Callable[[str], list[tuple[int, int]]]


def damage(texts: list[str], splitter: Splitter) -> dict[str, float]:
    sentences = false_breaks = fragments = 0
    for text in texts:
        spans = splitter(text)
        sentences += len(spans)
        for index, (start, end) in enumerate(spans):
            piece = text[start:end]
            if index + 1 < len(spans) and _ABBREVIATION_END.search(piece):
                false_breaks += 1
            if len(piece.split()) < 3:
                fragments += 1
    return {
        "sentences": sentences,
        "false_breaks": false_breaks,
        "fragments": fragments,
        "false_break_rate": round(false_breaks / max(sentences, 1), 4),
        "fragment_rate": round(fragments / max(sentences, 1), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("units", type=Path, nargs="+")
    args = parser.parse_args()
    report: dict[str, object] = {}
    for path in args.units:
        texts = [json.loads(line)["text"] for line in path.read_text().splitlines() if line]
        report[path.stem] = {
            "units": len(texts),
            "reference_every_period": damage(texts, naive_sentences),
            "ours": damage(texts, lambda t: split_sentences(t, abbreviation_aware=False)),
            "ours_abbreviation_aware": damage(
                texts, lambda t: split_sentences(t, abbreviation_aware=True)),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
