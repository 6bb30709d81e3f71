"""The keys a scheme makes are pinned: changing a key rule without a new scheme fails here.

A data directory keeps each ontology version's mention keys, and the dictionary built
from them, under file names that carry ``MATCH_SCHEME``, not the code that made them. A
rule changed under a scheme some directory already holds would load the old keys beside
texts folded by the new rule, and silently read less (session 44 met it: "Caenorhabditis
elegans" lost to a dictionary built by a first version of the spelling rule). So the keys
of a fixed set of forms are hashed and pinned per scheme: a change of their keys must come
with a new ``MATCH_SCHEME`` (``index/mention_keys.py``) and its digest pinned below.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyoxigraph as ox

from ontoretrieve.index.mention_forms import TermForms, term_forms
from ontoretrieve.index.mention_keys import MATCH_SCHEME, keyed_forms
from ontoretrieve.settings.groups import IndexSettings

FIXTURES = Path(__file__).parents[2] / "fixtures"

PINNED = {"mm-18": "31dce29e317e2db2", "mm-19": "8fad65a6f90eb4a7"}
"""Scheme -> the first 16 hex digits of the SHA-256 of the fixture forms' keys."""

_WORDS = (
    "haemostasis", "tumours", "analysed", "kilometres", "oedema", "orthologues", "sulphate",
    "chimaera", "signalling", "TGFβ", "3' UTR", "embryonic stem cells", "Nuclei", "mV",
)
"""Forms beside the fixtures' that exercise the folding rules (spelling, Greek, ends)."""

_CELLS = ("retinal cone cell", "retinal rod cell", "glial cell", "mast cell", "stem cell",
          "germ cell", "hair cell", "blood cell", "fat cell", "nerve cell", "cell")
"""A genus of ten names and its own term, and two of them said by their middle noun alone
(``head_keys``)."""


def _fixture_terms() -> list[TermForms]:
    terms: list[TermForms] = []
    for name in ("mini.ttl", "second.ttl", "qudt-units-subset.ttl", "context/zoo.ttl",
                 "context/ext.ttl"):
        data = (FIXTURES / name).read_bytes()
        triples = [q.triple for q in ox.parse(data, format=ox.RdfFormat.TURTLE)]
        terms += term_forms(triples, IndexSettings())
    terms += [TermForms(f"http://x/w{i}", ((word, "label"),))
              for i, word in enumerate(_WORDS + _CELLS)]
    return terms


def test_the_keys_of_the_fixture_forms_are_pinned_for_the_scheme() -> None:
    keys = "\n".join(repr(k) for k in keyed_forms(_fixture_terms()))
    digest = hashlib.sha256(keys.encode()).hexdigest()[:16]
    assert MATCH_SCHEME in PINNED, (
        f"scheme {MATCH_SCHEME} is not pinned: add {MATCH_SCHEME!r}: {digest!r} to PINNED")
    assert digest == PINNED[MATCH_SCHEME], (
        f"the keys changed under scheme {MATCH_SCHEME} (digest {digest}, pinned "
        f"{PINNED[MATCH_SCHEME]}): give the change a new MATCH_SCHEME in "
        "ontoretrieve/index/mention_keys.py and pin its digest here")
