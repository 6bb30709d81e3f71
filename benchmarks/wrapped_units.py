"""Benchmark input: units whose texts read as a PDF's text layer gives them.

Each unit's text is re-flowed into lines of at most ``--width`` characters; a
word that does not fit the end of a line is hyphenated there by syllable
(``pyphen``'s English patterns: "deter-\\nmine"), and a compound that does not
fit is broken after its own hyphen ("cell-\\nmediated"). The gold stays as it
is (the offsets of the gold mentions are dropped: they no longer hold), so
``bench recall`` on the wrapped file, paired with the original (the same
units are sampled by the same seed), says what line-end hyphens cost.

With ``--ligatures`` the letters a typesetter joins ("ffi", "ffl", "ff", "fi",
"fl") are written as the ligature characters a PDF's text layer often keeps
("eﬄux", "ﬁbroblast"); ``--width 0`` leaves the lines as they are.

It also prints how ``index/page_text.py``'s rule reads the breaks it made:
a syllable break should be joined, a compound's own hyphen kept.

    pip install pyphen   # in the dev and bench extras
    python benchmarks/wrapped_units.py ../shared/bench/units/craft.jsonl --out craft72.jsonl
    python benchmarks/wrapped_units.py ../shared/bench/units/craft.jsonl --width 0 \\
        --ligatures --out craft_ligatures.jsonl
    ontoretrieve bench recall --units craft72.jsonl --sample 300 --seed 1 --out RUN
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import pyphen

from ontoretrieve.index.page_text import line_break_hyphens

_HYPHENATOR = pyphen.Pyphen(lang="en_US")


def wrapped(text: str, width: int, breaks: Counter[tuple[str, str]]) -> str:
    """``text`` in lines of at most ``width`` characters where a break allows (a word
    longer than a line stays whole), counting each break by kind and by how the join
    rule reads it in ``breaks``."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if not line or len(line) + 1 + len(word) <= width:
            line = f"{line} {word}" if line else word
            continue
        head, tail, kind = _split(word, width - len(line) - 1)
        if head:
            rule = "joined" if line_break_hyphens(f"{head}\n{tail}") else "kept"
            breaks[kind, rule] += 1
            lines.append(f"{line} {head}")
            line = tail
        else:
            lines.append(line)
            line = word
    lines.append(line)
    return "\n".join(lines)


_LIGATURES = (("ffi", "\ufb03"), ("ffl", "\ufb04"), ("ff", "\ufb00"), ("fi", "\ufb01"),
              ("fl", "\ufb02"))
"""Longest first: "ffi" is one ligature, not "ff" and an "i"."""


def with_ligatures(text: str) -> str:
    """``text`` with the letters a typesetter joins written as ligatures.

    >>> with_ligatures("efflux of fibroblasts")
    'e\ufb04ux of \ufb01broblasts'
    """
    for letters, ligature in _LIGATURES:
        text = text.replace(letters, ligature)
    return text


def _split(word: str, room: int) -> tuple[str, str, str]:
    """The part of ``word`` that ends the line (with its hyphen), the rest, and the kind
    of break (``syllable``, ``compound``); an empty head when no break fits."""
    if room < 3:
        return "", word, ""
    if word.isalpha():
        cut = _HYPHENATOR.wrap(word, room)
        return (cut[0], cut[1], "syllable") if cut else ("", word, "")
    if "-" in word[:room]:
        at = word[:room].rindex("-") + 1
        if 1 < at < len(word) and word[at - 2].isalpha() and word[at].isalpha():
            return word[:at], word[at:], "compound"
    return "", word, ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("units", type=Path, help="a units JSONL file")
    parser.add_argument("--out", type=Path, required=True, help="the wrapped units")
    parser.add_argument("--width", type=int, default=72,
                        help="characters a line (0: the lines as they are)")
    parser.add_argument("--ligatures", action="store_true",
                        help="write ff, fi, fl, ffi, ffl as ligatures")
    args = parser.parse_args()
    breaks: Counter[tuple[str, str]] = Counter()
    with args.units.open(encoding="utf-8") as source, \
            args.out.open("w", encoding="utf-8") as out:
        for line in source:
            unit = json.loads(line)
            if args.width:
                unit["text"] = wrapped(unit["text"], args.width, breaks)
            if args.ligatures:
                unit["text"] = with_ligatures(unit["text"])
            unit.pop("gold", None)  # its mention offsets point into the unwrapped text
            out.write(json.dumps(unit, ensure_ascii=False) + "\n")
    for kind, right in (("syllable", "joined"), ("compound", "kept")) if args.width else ():
        total = breaks[kind, "joined"] + breaks[kind, "kept"]
        share = 100 * breaks[kind, right] / total if total else 0.0
        print(f"{kind} breaks: {total:,}, {right} by the rule {share:.1f} %")


if __name__ == "__main__":
    main()
