"""Probe (session 47): after one class is added to GO, ``changed_keys`` against comparing both
versions' entries key by key, on the two versions' real keyed forms.

    PYTHONPATH=PKG python changed_keys_probe.py DATA_DIR_COPY   # the copy is written to
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ontoretrieve import Engine, OntologyUpdate, Proposal, load_settings
from ontoretrieve.index.build import mention_store
from ontoretrieve.index.mention_overlay import changed_keys, version_entries
from ontoretrieve.rdf.vocab import OWL, RDF, RDFS


def main() -> None:
    settings = load_settings(data_dir=Path(sys.argv[1]))
    with Engine.open(settings) as engine:
        go = max(engine.catalog_list(), key=lambda v: v.triple_count)
        add = (f"<urn:x:Zeolite> <{RDF}type> <{OWL}Class> ; "
               f"<{RDFS}label> \"zeolite quasicrystal\" ; "
               f"<{RDFS}subClassOf> <http://purl.obolibrary.org/obo/GO_0005634> .")
        applied = engine.apply(Proposal(updates=[OntologyUpdate(
            ontology_iri=go.ontology_iri, base_hash=go.content_hash, add=add)])).applied[0]
    store = mention_store(settings, "default")
    old, new = store.keyed(go.content_hash), store.keyed(applied.content_hash)
    assert old is not None and new is not None
    print(len(old), len(new))
    for _ in range(3):
        started = time.perf_counter()
        fast = changed_keys(old, new)
        middle = time.perf_counter()
        before, after = version_entries(old), version_entries(new)
        slow = {w for w in before.keys() | after.keys() if before.get(w) != after.get(w)}
        ended = time.perf_counter()
        print(f"changed_keys {middle - started:.3f} s ({len(fast)} keys); key by key "
              f"{ended - middle:.3f} s ({len(slow)} keys); equal: {fast == slow}")


if __name__ == "__main__":
    main()
