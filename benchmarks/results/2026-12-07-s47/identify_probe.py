"""Probe (session 47): ``identify`` over a parsed ontology file, as triples and as
statements (three rounds).

    PYTHONPATH=PKG python identify_probe.py ../shared/bench/catalog/obo/go-2022-07-01.ttl
"""

from __future__ import annotations

import sys
import time

import pyoxigraph as ox

from ontoretrieve.catalog.files import identify


def main() -> None:
    triples = list(ox.parse(path=sys.argv[1]))
    statements = [(t.subject, t.predicate, t.object) for t in triples]
    for _ in range(3):
        started = time.perf_counter()
        found = identify(triples, "go")
        middle = time.perf_counter()
        identify(statements, "go")
        ended = time.perf_counter()
        print(len(triples), f"triples {middle - started:.3f} statements {ended - middle:.3f}",
              found.iri, found.version)


if __name__ == "__main__":
    main()
