"""Deprecated seeds: replaced by their successor, dropped, or kept, as the setting says."""

from __future__ import annotations

import pyoxigraph as ox

from ontoretrieve.context.deprecated import current_seeds, deprecation
from ontoretrieve.context.expand import ContextSeed
from ontoretrieve.context.model import TermStep
from ontoretrieve.records import SeedEvidence
from ontoretrieve.settings.groups import DeprecatedSeeds

X = "http://x/"
FLAG = ox.NamedNode("http://www.w3.org/2002/07/owl#deprecated")
QUDT_FLAG = ox.NamedNode("http://qudt.org/schema/qudt/deprecated")
BY = ox.NamedNode("http://purl.obolibrary.org/obo/IAO_0100001")
LABEL = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")


def node(name: str) -> ox.NamedNode:
    return ox.NamedNode(X + name)


BOOLEAN = ox.NamedNode("http://www.w3.org/2001/XMLSchema#boolean")
FACTS = {
    X + "old": [(FLAG.value, ox.Literal(True)), (BY.value, node("new"))],
    X + "gone": [(QUDT_FLAG.value, ox.Literal("true", datatype=BOOLEAN))],
    X + "curie": [(FLAG.value, ox.Literal("true")), (BY.value, ox.Literal("GO:0000001"))],
    X + "fine": [(FLAG.value, ox.Literal(False))],
}


def seeds(*names: str) -> tuple[list[ContextSeed], list[SeedEvidence]]:
    context = [ContextSeed(X + n, 1.0 / k, k, "h", TermStep.RETRIEVED, "resource")
               for k, n in enumerate(names, start=1)]
    evidence = [SeedEvidence(iri=X + n, score=1.0, origin="retrieved", ontology_iri="o",
                             ontology_version=None, ontology_hash="h", role="resource",
                             fused_score=None, windows=[0], lanes=[], notes=[])
                for n in names]
    return context, evidence


def test_what_counts_as_deprecated_and_its_successor() -> None:
    assert deprecation(FACTS[X + "old"]) == (True, X + "new")
    assert deprecation(FACTS[X + "gone"]) == (True, None)
    assert deprecation(FACTS[X + "curie"]) == (True, "http://purl.obolibrary.org/obo/GO_0000001")
    assert deprecation(FACTS[X + "fine"]) == (False, None)  # deprecated false
    assert deprecation([]) == (False, None)


def test_replace_drop_and_keep() -> None:
    warnings: list[str] = []
    kept, evidence = current_seeds(FACTS, *seeds("old", "gone", "fine"),
                                   DeprecatedSeeds.REPLACE, warnings)
    assert [s.iri for s in kept] == [X + "new", X + "fine"] and kept[0].rank == 1
    assert [e.iri for e in evidence] == [X + "new", X + "fine"]
    assert evidence[0].notes == [f"replaces deprecated {X}old"]
    assert warnings == [f"deprecated seed(s): 1 replaced by their successors, 1 left out "
                        f"({X}old, {X}gone)"]
    dropped, _ = current_seeds(FACTS, *seeds("old", "fine"), DeprecatedSeeds.DROP, [])
    assert [s.iri for s in dropped] == [X + "fine"]
    assert [s.iri for s in current_seeds(FACTS, *seeds("old"), DeprecatedSeeds.KEEP, [])[0]
            ] == [X + "old"]


def test_a_successor_already_seeded_is_not_duplicated() -> None:
    kept, _ = current_seeds(FACTS, *seeds("new", "old"), DeprecatedSeeds.REPLACE, [])
    assert [s.iri for s in kept] == [X + "new"]  # old left out: new is a seed already
    kept, _ = current_seeds(FACTS, *seeds("curie"), DeprecatedSeeds.REPLACE, [])
    assert [s.iri for s in kept] == ["http://purl.obolibrary.org/obo/GO_0000001"]


def test_lookup_candidates_are_flagged_and_deprecated_ones_go_last() -> None:
    from ontoretrieve.context.deprecated import flag_deprecated
    from ontoretrieve.query.lookup import Candidate

    def candidate(name: str) -> Candidate:
        return Candidate(iri=X + name, label=name, kind="resource", ontology_iri="o",
                         match="case_folded", score=0.9)

    flagged = flag_deprecated([candidate("old"), candidate("fine"), candidate("gone")], FACTS)
    assert [(c.iri, c.deprecated, c.replaced_by) for c in flagged] == [
        (X + "fine", False, None), (X + "old", True, X + "new"), (X + "gone", True, None)]
