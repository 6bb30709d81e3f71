"""Probe (session 47): time ``engine.propose`` of one class added to GO in a fresh engine,
and the runner's steps inside it.

    PYTHONPATH=PKG python validate_probe.py /work/data/bench2 [_base_triples]

The second argument names the base reader of the package under test
(``_base_triples`` before 3b0dbd0, ``_base_statements`` from it on).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ontoretrieve import Engine, OntologyUpdate, Proposal, load_settings
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.proposals import runner
from ontoretrieve.rdf.vocab import OWL, RDF, RDFS

SPENT: dict[str, float] = {}


def timed(owner: Any, name: str) -> None:
    """Wrap ``owner.name`` so that its time adds up in ``SPENT``."""
    function: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            SPENT[name] = SPENT.get(name, 0.0) + time.perf_counter() - started

    setattr(owner, name, wrapper)


def main() -> None:
    base_reader = sys.argv[2] if len(sys.argv) > 2 else "_base_statements"
    for name in (base_reader, "_content_checks", "_new_digests", "_critic", "_layer"):
        timed(runner.ProposalRunner, name)
    for name in ("apply_change", "change_effect"):
        timed(runner, name)
    timed(Catalog, "graph_statements")
    with Engine.open(load_settings(data_dir=Path(sys.argv[1]))) as engine:
        target = max(engine.catalog_list(), key=lambda v: v.triple_count)
        parent = "http://purl.obolibrary.org/obo/GO_0005634"
        new = "urn:ontoretrieve:bench:ZeolithicQuasicrystal"
        add = (f"<{new}> <{RDF}type> <{OWL}Class> ; <{RDFS}label> \"zeolithic quasicrystal\" ; "
               f"<{RDFS}subClassOf> <{parent}> .")
        proposal = Proposal(updates=[OntologyUpdate(
            ontology_iri=target.ontology_iri, base_hash=target.content_hash, add=add)])
        engine.retrieve("warm-up: load the model and the index")
        started = time.perf_counter()
        report = engine.propose(proposal)
        seconds = time.perf_counter() - started
    print(f"propose {seconds:.2f}", {k: round(v, 2) for k, v in SPENT.items()}, report.conforms)


if __name__ == "__main__":
    main()
