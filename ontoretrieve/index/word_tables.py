"""Word tables shipped with the package: a word a line, then the words it maps to.

The mention lane reads two such tables made from WordNet 3.0: a relational
adjective's nouns (``pertainyms``) and the verbs a noun is made from
(``noun_verbs``). Each is a tab-separated file under ``ontoretrieve/models``,
read once per process (a few thousand lines: a few milliseconds).

>>> packaged_word_table("models", "noun-verbs", "noun_verbs.tsv")["death"]
('die',)
"""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["packaged_word_table"]


@cache
def packaged_word_table(*path: str) -> dict[str, tuple[str, ...]]:
    """The table at ``path`` under the ``ontoretrieve`` package: first word -> the rest."""
    text = resources.files("ontoretrieve").joinpath(*path).read_text(encoding="utf-8")
    rows = (line.split("\t") for line in text.splitlines() if line)
    return {row[0]: tuple(row[1:]) for row in rows}
