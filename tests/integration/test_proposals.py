"""Update proposals end to end: apply, reject, stale, crash mid-apply, rollback, critic."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from typer.testing import CliRunner

from ontoretrieve import Engine, Mode, OntologyUpdate, Proposal, ProposalRejected, load_settings
from ontoretrieve.catalog.reader import CatalogAccess
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.cli import app
from ontoretrieve.index.atomize import AtomSource, atomize
from ontoretrieve.index.build import digest_store, mention_store, open_query_index
from ontoretrieve.index.layers import VersionedIndex
from ontoretrieve.index.mention_forms import term_forms
from ontoretrieve.index.mention_overlay import ChangedDictionary
from ontoretrieve.proposals.runner import ProposalRunner
from ontoretrieve.rdf import canonical
from ontoretrieve.rdf.vocab import OWL, RDFS, graph_name, layer_graph_name

pytestmark = pytest.mark.integration
runner = CliRunner()

MINI = "http://example.org/mini"
THERMOMETER = (f"<{MINI}#Thermometer> a <{OWL}Class> ; <{RDFS}label> \"thermometer\" ; "
               f"<{RDFS}subClassOf> <{MINI}#Sensor> .")


def _mini(engine: Engine, tenant: str = "alpha") -> str:
    return next(v.content_hash for v in engine.catalog_list(tenant=tenant)
                if v.ontology_iri == MINI)


def _proposal(base: str, add: str = THERMOMETER, remove: str = "") -> Proposal:
    return Proposal(updates=[OntologyUpdate(ontology_iri=MINI, base_hash=base, add=add,
                                            remove=remove)])


def _stored(engine: Engine, content_hash: str, tenant: str = "alpha") -> list[ox.Triple]:
    """A version's triples as the catalog stores them (a layer: its base's graph and its
    own)."""
    catalog = Catalog.for_tenant(engine.store, engine.settings, tenant)
    version = catalog.version_of(content_hash)
    assert version is not None
    return catalog.graph_triples(version)


def _finds_thermometer(engine: Engine, tenant: str = "alpha") -> bool:
    terms = engine.retrieve("a thermometer", tenant=tenant, mode=Mode.VECTOR).terms
    return f"{MINI}#Thermometer" in terms


def test_a_valid_update_is_applied_and_retrievable_at_once(tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        base = _mini(engine)
        assert not _finds_thermometer(engine)
        result = engine.apply(_proposal(base), tenant="alpha")
        assert result.report.conforms and result.applied[0].previous_hash == base
        assert _mini(engine) == result.applied[0].content_hash != base
        assert _finds_thermometer(engine)
        assert _finds_thermometer(engine, "lab")  # lab includes alpha: synced too
        # written as a layer: only the atoms the update changed, nothing deleted
        assert result.index is not None and result.index.versions_layered == 1
        assert 1 <= result.index.atoms_embedded + result.index.atoms_reused <= 3
        assert result.index.atoms_deleted == 0
        versions = engine.catalog_list(tenant="alpha", include_inactive=True)
        assert {v.content_hash for v in versions if v.ontology_iri == MINI} >= {base}


def test_an_invalid_update_is_rejected_with_its_shapes_and_nothing_changes(
        tenant_config: Path) -> None:
    bad_add = (f"<{MINI}#Gauge> a <{OWL}Class> ; <{RDFS}subClassOf> <{MINI}#Nothing> . "
               f"<{MINI}#reads> a <{OWL}ObjectProperty> ; <{RDFS}label> \"reads\" ; "
               f"<{RDFS}range> <{MINI}#Property> .")
    bad_remove = f"<{MINI}#Device> <{RDFS}label> \"device\"@en ."
    with Engine.open(load_settings(tenant_config)) as engine:
        before = [(v.source, v.content_hash) for v in engine.catalog_list(tenant="alpha")]
        with pytest.raises(ProposalRejected) as caught:
            engine.apply(_proposal(_mini(engine), bad_add, bad_remove), tenant="alpha")
        report = caught.value.report
        named = {(v.check, (v.shape or "").rsplit("#", 1)[-1], (v.focus or "").rsplit("#")[-1])
                 for v in report.violations}
        assert ("shacl", "ClassHasLabel", "Gauge") in named
        assert ("shacl", "SubClassOfAClass", "Gauge") in named
        assert ("shacl", "ClassHasLabel", "Device") in named  # its only label removed
        assert ("dangling_reference", "", "Nothing") in named
        assert "ClassHasLabel" in str(caught.value)
        assert [(v.source, v.content_hash) for v in engine.catalog_list(tenant="alpha")] == before
        # the range to a class declared in the ontology is fine: no violation for reads
        assert not any(v.focus == f"{MINI}#reads" for v in report.violations)


def test_removing_a_term_still_used_elsewhere_is_rejected(tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        remove = (f"<{MINI}#Property> a <{OWL}Class> . "
                  f"<{MINI}#Property> <{RDFS}label> \"observable property\"@en .")
        report = engine.propose(_proposal(_mini(engine), "", remove), tenant="alpha")
        used = [v for v in report.violations if v.check == "removed_term_in_use"]
        assert [v.focus for v in used] == [f"{MINI}#Property"]
        assert "this ontology" in used[0].message  # observes has it as its range


def test_the_second_of_two_proposals_on_one_version_is_stale(tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        base = _mini(engine)
        first = _proposal(base)
        second = _proposal(base, f"<{MINI}#Barometer> a <{OWL}Class> ; <{RDFS}label> \"b\" .")
        engine.apply(first, tenant="alpha")
        with pytest.raises(ProposalRejected) as caught:
            engine.apply(second, tenant="alpha")
        assert [v.check for v in caught.value.report.violations] == ["stale"]


def test_an_included_catalog_is_read_only_and_snapshots_limit_writes(
        tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        report = engine.propose(_proposal(_mini(engine, "lab")), tenant="lab")
        assert [v.check for v in report.violations] == ["unknown_ontology"]
        assert "included catalog" in report.violations[0].message
        context = engine.retrieve("a 5 mV signal", tenant="beta", mode=Mode.VECTOR)
        proposal = _proposal(_mini(engine)).model_copy(update={"snapshot": context.snapshot})
        report = engine.propose(proposal, tenant="alpha")
        assert [v.check for v in report.violations] == ["not_writable"]


def test_rollback_restores_the_previous_hash(tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        base = _mini(engine)
        applied = engine.apply(_proposal(base), tenant="alpha")
        restored, sync = engine.rollback(MINI, tenant="alpha")
        assert restored.content_hash == base and _mini(engine) == base
        # the base was kept as a layer: it comes back without a write, the layer goes
        assert applied.index is not None and sync.versions_revived == 1
        assert (sync.atoms_embedded, sync.atoms_reused) == (0, 0)
        assert sync.atoms_deleted == applied.index.atoms_embedded + applied.index.atoms_reused
        assert not _finds_thermometer(engine)
        with pytest.raises(Exception, match="nothing to roll back"):
            engine.rollback(MINI, tenant="alpha")


def test_after_an_apply_the_new_graph_is_derived_from_the_cached_base(
        tenant_config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    relabel = (f"<{MINI}#Device> <{RDFS}label> \"instrument\"@en .",
               f"<{MINI}#Device> <{RDFS}label> \"device\"@en .")
    texts = ("a thermometer", "an instrument or a device with a sensor")
    with Engine.open(load_settings(tenant_config)) as engine:
        base = _mini(engine)
        engine.retrieve("a device with a sensor", tenant="alpha")  # the base graph cached
        proposal = _proposal(base, THERMOMETER + " " + relabel[0], relabel[1])
        read: list[str] = []
        whole = engine.store.graph_triples
        monkeypatch.setattr(engine.store, "graph_triples",
                            lambda graph: read.append(graph) or whole(graph))
        assert engine.propose(proposal, tenant="alpha").conforms
        assert graph_name(base) not in read  # validated from the cached base
        monkeypatch.undo()
        result = engine.apply(proposal, tenant="alpha")
        new = result.applied[0].content_hash
        reader = engine._retriever(engine._tenant("alpha")).reader
        derived = reader._graphs[new]  # there before any retrieval: nothing read
        stored = engine.store.graph_triples(graph_name(new))
        assert sorted(map(str, stored)) == sorted(
            str(ox.Triple(*t)) for t in derived.ordered())
        warm = [engine.retrieve(t, tenant="alpha") for t in texts]
    with Engine.open(load_settings(tenant_config)) as fresh:  # reads the new graph
        cold = [fresh.retrieve(t, tenant="alpha") for t in texts]
    for one, other in zip(warm, cold, strict=True):
        assert one.serialize("turtle") == other.serialize("turtle")
        assert one.terms == other.terms


def test_after_an_apply_the_new_graph_is_not_read_back_from_the_store(
        tenant_config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = ("a thermometer", "a device with a sensor")
    with Engine.open(load_settings(tenant_config)) as engine:
        base = _mini(engine)
        result = engine.apply(_proposal(base), tenant="alpha")  # no base cached
        new = result.applied[0].content_hash
        read: list[str] = []
        whole = engine.store.graph_triples
        monkeypatch.setattr(engine.store, "graph_triples",
                            lambda graph: read.append(graph) or whole(graph))
        warm = [engine.retrieve(t, tenant="alpha", mode=Mode.VECTOR) for t in texts]
        # indexed from the triples the apply wrote: neither of its graphs read
        assert not {graph_name(base), layer_graph_name(new)} & set(read)
        monkeypatch.undo()
    with Engine.open(load_settings(tenant_config)) as fresh:
        cold = [fresh.retrieve(t, tenant="alpha", mode=Mode.VECTOR) for t in texts]
    for one, other in zip(warm, cold, strict=True):
        assert one.serialize("turtle") == other.serialize("turtle")
    assert f"{MINI}#Thermometer" in warm[0].terms


def test_versions_are_hashed_from_their_kept_digests_and_the_change(
        tenant_config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    relabel = (f"<{MINI}#Device> <{RDFS}label> \"instrument\"@en .",
               f"<{MINI}#Device> <{RDFS}label> \"device\"@en .")
    settings = load_settings(tenant_config)
    kept = digest_store(settings, "alpha")
    with Engine.open(settings) as engine:
        base = _mini(engine)
        assert kept.get(base) is not None  # the index sync kept the indexed version's
        hashed: list[int] = []
        whole = canonical.graph_digests
        monkeypatch.setattr("ontoretrieve.proposals.runner.graph_digests",
                            lambda triples: hashed.append(1) or whole(triples))
        first = engine.apply(_proposal(base), tenant="alpha").applied[0].content_hash
        second = engine.apply(_proposal(first, relabel[0], relabel[1]),
                              tenant="alpha").applied[0].content_hash
        assert hashed == []  # neither version was hashed whole
        for content_hash in (first, second):  # each is the hash of what was stored
            assert content_hash == canonical.graph_hash(_stored(engine, content_hash))
            assert kept.get(content_hash) is not None
        # A damaged file is not trusted: the version is hashed whole, to the same hash.
        (kept.folder / f"{second}.digests").write_bytes(b"x" * 32)
        report = engine.propose(_proposal(second, f"<{MINI}#Device> <{RDFS}comment> \"c\" ."),
                                tenant="alpha")
        assert hashed == [1] and report.conforms
        assert kept.get(second) is not None  # and kept again


def test_digests_are_those_of_the_stored_triples(
        tmp_path: Path, real_embedder: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store may keep a typed literal in a canonical form, so a loaded version's stored
    triples need not hash to its content hash; proposals change the stored triples, and
    are hashed from their kept digests all the same."""
    folder = tmp_path / "catalog"
    folder.mkdir()
    mini = (Path(__file__).parents[1] / "fixtures" / "mini.ttl").read_text()
    (folder / "mini.ttl").write_text(
        mini + f"\n<{MINI}#Sensor> <{MINI}#count> "
        "\"1\"^^<http://www.w3.org/2001/XMLSchema#nonNegativeInteger> .\n")
    settings = load_settings(data_dir=tmp_path / "data")
    with Engine.open(settings, embedder=real_embedder) as engine:  # type: ignore[arg-type]
        engine.catalog_load(folder)
        base = _mini(engine, "default")
        assert canonical.graph_hash(_stored(engine, base, "default")) != base  # the premise
        assert digest_store(settings).get(base) is not None
        hashed: list[int] = []
        whole = canonical.graph_digests
        monkeypatch.setattr("ontoretrieve.proposals.runner.graph_digests",
                            lambda triples: hashed.append(1) or whole(triples))
        new = engine.apply(_proposal(base), tenant="default").applied[0].content_hash
        assert hashed == []
        assert new == canonical.graph_hash(_stored(engine, new, "default"))


def test_a_sync_keeps_the_digests_of_every_indexed_version(tenant_config: Path) -> None:
    settings = load_settings(tenant_config)
    kept = digest_store(settings, "alpha")
    with Engine.open(settings) as engine:
        hashes = {v.content_hash for v in engine.catalog_list(tenant="alpha")}
        assert all(kept.get(h) is not None for h in hashes)
        for path in kept.folder.iterdir():  # a data dir from before the digests
            path.unlink()
        engine.refresh(tenant="alpha")
        assert all(kept.get(h) is not None for h in hashes)  # made again from the graphs
        base = _mini(engine)
        applied = engine.apply(_proposal(base), tenant="alpha").applied[0].content_hash
        engine.rollback(MINI, tenant="alpha")  # the applied version's points go...
        assert kept.get(applied) is None  # ...and its digests with them
        assert kept.get(base) is not None


def test_an_apply_writes_exactly_the_atoms_it_changed(tenant_config: Path) -> None:
    relabel = (f"<{MINI}#Device> <{RDFS}label> \"instrument\"@en .", 
               f"<{MINI}#Device> <{RDFS}label> \"device\"@en .")
    with Engine.open(load_settings(tenant_config)) as engine:
        base = _mini(engine)
        result = engine.apply(_proposal(base, THERMOMETER + " " + relabel[0], relabel[1]),
                              tenant="alpha")
        new = result.applied[0].content_hash

        def contents(content_hash: str) -> dict[str, tuple[object, ...]]:
            triples = engine.store.graph_triples(graph_name(content_hash))
            atoms = atomize(triples, AtomSource(MINI, None, content_hash),
                            engine.settings.index, engine.settings.triggers)
            return {a.iri: (a.text_hash, a.role, a.labels, a.symbols, a.triggers)
                    for a in atoms}

        before, after = contents(base), contents(new)
        settings = engine.settings
    changed = {iri for iri, content in after.items() if before.get(iri) != content}
    gone = before.keys() - after.keys()
    assert {f"{MINI}#Thermometer", f"{MINI}#Device", f"{MINI}#Sensor"} <= changed
    index, state = open_query_index(settings, "alpha")  # the engine has closed its shard
    try:
        assert isinstance(index, VersionedIndex)
        assert index.index.count(new) == len(changed)  # points written: the changed atoms
        hidden = [i for ids in state.ontologies[new].hidden.values() for i in ids]
        assert len(hidden) == len((changed & before.keys()) | gone)
        assert index.count(new) == len(after) == state.ontologies[new].atoms
    finally:
        index.close()


def test_apply_reuses_the_validation_of_propose_until_the_catalog_changes(
        tenant_config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    validate = ProposalRunner.validate

    def counting(self: ProposalRunner, proposal: Proposal) -> Any:
        calls.append(1)
        return validate(self, proposal)

    monkeypatch.setattr(ProposalRunner, "validate", counting)
    with Engine.open(load_settings(tenant_config)) as engine:
        base = _mini(engine)
        first = _proposal(base)
        assert engine.propose(first, tenant="alpha").conforms
        engine.apply(first, tenant="alpha")
        assert len(calls) == 1  # the apply reused the propose's validation
        second = _proposal(base, f"<{MINI}#Gauge> a <{OWL}Class> ; <{RDFS}label> \"gauge\" .")
        engine.propose(second, tenant="alpha")  # validated against the base: conforms
        engine.rollback(MINI, tenant="alpha")
        engine.apply(_proposal(_mini(engine)), tenant="alpha")  # the catalog changed
        with pytest.raises(ProposalRejected, match="stale"):
            engine.apply(second, tenant="alpha")  # validated again, not taken from propose
        assert len(calls) == 4


def test_reads_are_answered_while_an_apply_validates_and_writes(
        tenant_config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writing, may_finish = threading.Event(), threading.Event()
    write_graphs = ProposalRunner.write_graphs

    def held_open(self: ProposalRunner, planned: Any) -> None:
        writing.set()
        assert may_finish.wait(60)  # the apply stays inside its graph write until the read
        write_graphs(self, planned)

    monkeypatch.setattr(ProposalRunner, "write_graphs", held_open)
    with Engine.open(load_settings(tenant_config)) as engine:
        base = _mini(engine)
        assert not _finds_thermometer(engine)
        applying = threading.Thread(target=engine.apply, args=(_proposal(base),),
                                    kwargs={"tenant": "alpha"})
        applying.start()
        try:
            assert writing.wait(60)
            answered: list[bool] = []
            reading = threading.Thread(target=lambda: answered.append(
                _finds_thermometer(engine)))
            reading.start()
            reading.join(30)
            assert answered == [False]  # answered mid-apply, from the old version
        finally:
            may_finish.set()
            applying.join(60)
        assert _finds_thermometer(engine)


def test_the_critic_flags_a_term_another_ontology_has(tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        second = next(v for v in engine.catalog_list(tenant="lab")
                      if v.ontology_iri == "http://example.org/second")
        add = (f"<http://example.org/second#Sensor2> a <{OWL}Class> ; "
               f"<{RDFS}label> \"sensor\" .")
        report = engine.propose(Proposal(updates=[OntologyUpdate(
            ontology_iri=second.ontology_iri, base_hash=second.content_hash, add=add)]),
            tenant="lab")
        assert report.conforms  # advice, not a violation
        assert [c.term for c in report.conflicts] == [f"{MINI}#Sensor"]
        assert report.consistency_conflicts == 1


@pytest.mark.parametrize("point", ["apply.graph_written", "apply.switched"])
def test_a_process_killed_mid_apply_leaves_a_serving_catalog(tenant_config: Path,
                                                              tmp_path: Path,
                                                              point: str) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        base = _mini(engine)
    file = tmp_path / "proposal.json"
    file.write_text(_proposal(base).model_dump_json())
    child = subprocess.run(
        [sys.executable, "-m", "ontoretrieve", "apply", str(file), "--tenant", "alpha",
         "--config", str(tenant_config)], capture_output=True, text=True, timeout=120,
        env={**os.environ, "ONTORETRIEVE_CRASH_AT": point, "HF_HUB_OFFLINE": "1"})
    assert child.returncode == -signal.SIGKILL, child.stderr
    with Engine.open(load_settings(tenant_config)) as engine:
        context = engine.retrieve("a sensor observes a property", tenant="alpha",
                                  mode=Mode.VECTOR)
        assert f"{MINI}#Sensor" in context.terms  # serving either way
        if point == "apply.graph_written":
            assert _mini(engine) == base  # the old version intact
            assert not _finds_thermometer(engine)
        else:
            # switched but not yet indexed: the old index still answers; a refresh catches up
            assert _mini(engine) != base
            engine.refresh(tenant="alpha")
            assert _finds_thermometer(engine)


def test_cli_propose_apply_rollback(tenant_config: Path, tmp_path: Path) -> None:
    config = ["--config", str(tenant_config), "--tenant", "alpha"]
    listed = runner.invoke(app, ["catalog", "list", "--json", *config])
    base = next(o["content_hash"] for o in json.loads(listed.stdout)["ontologies"]
                if o["ontology_iri"] == MINI)
    add = tmp_path / "add.ttl"
    add.write_text(THERMOMETER)
    flags = ["--ontology", MINI, "--base", base, "--add", str(add)]
    checked = runner.invoke(app, ["propose", *flags, "--json", *config])
    assert checked.exit_code == 0 and json.loads(checked.stdout)["conforms"] is True
    bad = tmp_path / "bad.ttl"
    bad.write_text(f"<{MINI}#Gauge> a <{OWL}Class> .")
    rejected = runner.invoke(app, ["apply", "--ontology", MINI, "--base", base, "--add",
                                   str(bad), *config])
    assert rejected.exit_code == 2 and "ClassHasLabel" in rejected.stderr
    applied = runner.invoke(app, ["apply", *flags, "--json", *config])
    assert applied.exit_code == 0, applied.output
    assert json.loads(applied.stdout)["applied"][0]["previous_hash"] == base
    stale = runner.invoke(app, ["propose", *flags, *config])
    assert stale.exit_code == 1 and "stale" in stale.stderr
    back = runner.invoke(app, ["rollback", MINI, "--json", *config])
    assert json.loads(back.stdout)["restored"]["content_hash"] == base
    broken = tmp_path / "broken.ttl"
    broken.write_text("<http://x/a> <http://x/p> .")
    parse = runner.invoke(app, ["propose", "--ontology", MINI, "--base", base, "--add",
                                str(broken), *config])
    assert parse.exit_code == 2 and "line 1, column" in parse.stderr


# -- versions stored as a layer over their base's graph ---------------------------------

THERMOMETER_OBSERVES = (
    f"<{MINI}#Thermometer> a <{OWL}Class> ; <{RDFS}label> \"thermometer\" ; "
    f"<{RDFS}subClassOf> <{MINI}#Sensor> , [ a <{OWL}Restriction> ; "
    f"<{OWL}onProperty> <{MINI}#observes> ; <{OWL}someValuesFrom> <{MINI}#Property> ] .")


def test_an_update_that_only_adds_is_stored_as_a_layer(tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        base = _mini(engine)
        catalog = Catalog.for_tenant(engine.store, engine.settings, "alpha")
        base_version = catalog.version_of(base)
        assert base_version is not None and base_version.added_graph is None
        first = engine.apply(_proposal(base, THERMOMETER_OBSERVES),
                             tenant="alpha").applied[0].content_hash
        layered = catalog.version_of(first)
        assert layered is not None and layered.graph == base_version.graph  # shared
        assert layered.added_graph == layer_graph_name(first)
        assert engine.store.graph_triples(graph_name(first)) == []  # no whole copy
        added = engine.store.graph_triples(layer_graph_name(first))
        assert len(added) == 7  # the class, its label and parents, the restriction's 3
        assert canonical.graph_hash(_stored(engine, first)) == first
        # A layer over a layer adds to the same graph: the chain never grows.
        gauge = f"<{MINI}#Gauge> a <{OWL}Class> ; <{RDFS}label> \"gauge\" ."
        second = engine.apply(_proposal(first, gauge), tenant="alpha").applied[0].content_hash
        again = catalog.version_of(second)
        assert again is not None and again.graph == base_version.graph
        assert len(engine.store.graph_triples(layer_graph_name(second))) == 9
        assert canonical.graph_hash(_stored(engine, second)) == second
        # An update that removes a statement is written whole.
        relabel = _proposal(second, f"<{MINI}#Device> <{RDFS}label> \"instrument\"@en .",
                            f"<{MINI}#Device> <{RDFS}label> \"device\"@en .")
        third = engine.apply(relabel, tenant="alpha").applied[0].content_hash
        whole = catalog.version_of(third)
        assert whole is not None and whole.added_graph is None
        assert canonical.graph_hash(engine.store.graph_triples(graph_name(third))) == third
        assert _finds_thermometer(engine)
        engine.rollback(MINI, tenant="alpha")  # back to the layer
        assert _mini(engine) == second and _finds_thermometer(engine)


def test_a_removal_of_a_statement_the_ontology_lacks_is_named_and_the_rest_applies(
        tenant_config: Path) -> None:
    """The checks compare the update with the base read as statements: a removal the
    base lacks is named (as N-Triples), one it has goes, and the version written whole
    keeps the base's version IRI."""
    with Engine.open(load_settings(tenant_config)) as engine:
        base = _mini(engine)
        relabel = f"<{MINI}#Device> <{RDFS}label> \"instrument\"@en ."
        had = f"<{MINI}#Device> <{RDFS}label> \"device\"@en ."
        lacked = f"<{MINI}#Device> <{RDFS}label> \"no such label\"@en ."
        report = engine.propose(_proposal(base, relabel, f"{had} {lacked}"), tenant="alpha")
        missing = [v for v in report.violations if v.check == "missing_triple"]
        assert not report.conforms and len(missing) == len(report.violations) == 1
        assert missing[0].focus == f"{MINI}#Device"
        assert missing[0].message.endswith(f"{lacked[:-2]}")
        applied = engine.apply(_proposal(base, relabel, had), tenant="alpha").applied[0]
        catalog = Catalog.for_tenant(engine.store, engine.settings, "alpha")
        before, after = catalog.version_of(base), catalog.version_of(applied.content_hash)
        assert before is not None and after is not None and after.added_graph is None
        assert after.version == before.version == "http://example.org/mini/1.0"
        assert after.triple_count == before.triple_count
        stored = engine.store.graph_triples(graph_name(applied.content_hash))
        assert ox.Triple(ox.NamedNode(f"{MINI}#Device"), ox.NamedNode(f"{RDFS}label"),
                         ox.Literal("instrument", language="en")) in stored
        assert canonical.graph_hash(stored) == applied.content_hash


def test_a_layer_answers_as_the_same_content_loaded_whole(
        tenant_config: Path, tmp_path: Path, real_embedder: object) -> None:
    """Contexts (graph cache and SPARQL pushdown) and lookups from a layered version equal
    those of a data dir where the same content was loaded from a file."""
    settings = load_settings(tenant_config)
    texts = ("a thermometer observes a property", "a sensor or a device")
    with Engine.open(settings) as engine:
        new = engine.apply(_proposal(_mini(engine), THERMOMETER_OBSERVES),
                           tenant="alpha").applied[0].content_hash
        content = _stored(engine, new)
    control_file = tmp_path / "mini-thermometer.nt"
    control_file.write_bytes(ox.serialize(content, format=ox.RdfFormat.N_TRIPLES) or b"")
    control = load_settings(data_dir=tmp_path / "control")
    with Engine.open(control, embedder=real_embedder) as engine:  # type: ignore[arg-type]
        engine.catalog_load(control_file)
        assert _mini(engine, "default") == new  # the same content, the same hash
    for pushdown in (False, True):
        answers = []
        for chosen, tenant in ((settings, "alpha"), (control, "default")):
            chosen = chosen.model_copy(update={"expand": chosen.expand.model_copy(
                update={"candidate_pushdown": pushdown})})
            with Engine.open(chosen) as engine:  # fresh: reads the stored graphs
                contexts = [engine.retrieve(t, tenant=tenant, mode=Mode.VECTOR)
                            for t in texts]
                lookup = engine.lookup("thermometer", tenant=tenant)
            # Terms as a set: their order follows seed ranks, which an index layer may tie
            # otherwise than a whole build (the same stored layer, reindexed whole, orders
            # "a sensor or a device" as the control does).
            answers.append(([(sorted(c.terms), canonical.graph_hash(c.triples()))
                             for c in contexts],
                            [(c.iri, c.deprecated) for c in lookup.candidates]))
        assert answers[0] == answers[1]
        assert f"{MINI}#Thermometer" in answers[0][0][0][0]


def test_checks_and_lookups_read_what_a_layer_adds(tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        engine.apply(_proposal(_mini(engine), THERMOMETER), tenant="alpha")
        # lab includes alpha: a class of lab's own ontology under the layer's new class is
        # neither dangling nor a subclass of a non-class (its type is read from the layer)
        second = next(v for v in engine.catalog_list(tenant="lab")
                      if v.ontology_iri == "http://example.org/second")
        probe = Proposal(updates=[OntologyUpdate(
            ontology_iri=second.ontology_iri, base_hash=second.content_hash,
            add=f"<http://example.org/second#Probe> a <{OWL}Class> ; <{RDFS}label> \"probe\" "
                f"; <{RDFS}subClassOf> <{MINI}#Thermometer> .")])
        report = engine.propose(probe, tenant="lab")
        assert report.conforms, report.violations
        # Both versions now layers: references and definitions found by SPARQL in the two
        # added graphs, as a scan of the versions' whole triples finds them.
        probed = engine.apply(probe, tenant="lab").applied[0].content_hash
        reader = engine._retriever(engine._tenant("lab")).reader
        versions = reader.versions()
        mini = next(v.content_hash for v in versions if v.ontology_iri == MINI)
        terms = ["http://example.org/second#Probe"]
        by_select = reader.referenced_versions(terms, [probed], versions)
        by_scan = reader.referenced_by_scan(terms, [probed], [v.content_hash for v in versions],
                                            CatalogAccess())
        assert by_select == by_scan == [mini]
        defined = reader.defining_versions([*terms, f"{MINI}#Thermometer", f"{MINI}#Sensor"])
        assert defined == {terms[0]: [probed], f"{MINI}#Thermometer": [mini],
                           f"{MINI}#Sensor": [mini]}
        # a deprecation the layer adds is read by lookups (its facts query the layer too)
        deprecated = _proposal(_mini(engine), f"<{MINI}#Thermometer> <{OWL}deprecated> true .")
        engine.apply(deprecated, tenant="alpha")
        candidates = engine.lookup("thermometer", tenant="alpha").candidates
        assert any(c.iri == f"{MINI}#Thermometer" and c.deprecated for c in candidates)


def test_a_file_saved_from_a_layer_keeps_it_where_it_is_stored(
        tmp_path: Path, real_embedder: object) -> None:
    folder = tmp_path / "catalog"
    folder.mkdir()
    source = folder / "mini.ttl"
    source.write_bytes((Path(__file__).parents[1] / "fixtures" / "mini.ttl").read_bytes())
    settings = load_settings(data_dir=tmp_path / "data")
    with Engine.open(settings, embedder=real_embedder) as engine:  # type: ignore[arg-type]
        engine.catalog_load(folder)
        new = engine.apply(_proposal(_mini(engine, "default"), THERMOMETER),
                           tenant="default").applied[0].content_hash
        content = _stored(engine, new, "default")
        source.write_bytes(ox.serialize(content, format=ox.RdfFormat.TURTLE) or b"")
        report, _ = engine.catalog_load(folder)  # the same content, other bytes
        assert report is not None and [v.content_hash for v in report.unchanged] == [new]
        assert _mini(engine, "default") == new
        assert canonical.graph_hash(_stored(engine, new, "default")) == new
        assert _finds_thermometer(engine, "default")


def test_after_an_apply_the_mention_dictionary_reads_the_change_over_the_one_before(
        tenant_config: Path) -> None:
    """No dictionary build on the first read after an apply or a rollback, and the mentions
    and contexts are those of an engine that builds the new set's dictionary afresh."""
    text = "a thermometer is a sensor"

    def answers(engine: Engine) -> tuple[Any, ...]:
        retriever = engine._retriever(engine._tenant("alpha"))
        dictionary = retriever._mention_dictionary()
        assert dictionary is not None
        context = engine.retrieve(text, tenant="alpha", mode=Mode.VECTOR)
        return dictionary, dictionary.find(text), context.serialize("turtle"), context.terms

    with Engine.open(load_settings(tenant_config)) as engine:
        engine.retrieve("a sensor", tenant="alpha", mode=Mode.VECTOR)  # the dictionary loads
        engine.apply(_proposal(_mini(engine)), tenant="alpha")
        changed, *after_apply = answers(engine)
        assert isinstance(changed, ChangedDictionary) and changed.changes == 1
        assert any(m.iri == f"{MINI}#Thermometer" for m in after_apply[0])
        with Engine.open(load_settings(tenant_config)) as fresh:  # builds the set's dictionary
            built, *expected = answers(fresh)
            assert not isinstance(built, ChangedDictionary)
            assert after_apply == expected
        engine.rollback(MINI, tenant="alpha")
        back, *after_rollback = answers(engine)
        assert back is changed.base  # the inverse change: the dictionary before the apply
        assert not any(m.iri == f"{MINI}#Thermometer" for m in after_rollback[0])
    with Engine.open(load_settings(tenant_config)) as fresh:
        _, *expected = answers(fresh)
        assert after_rollback == expected


def test_changes_with_no_read_between_are_read_together_over_the_last_dictionary(
        tenant_config: Path) -> None:
    """Two rollbacks in a row, no read between: the second state's dictionary is still
    made from the last one in memory (both steps taken in turn), not built."""
    text = "a thermometer or a hygrometer is a sensor"
    hygrometer = THERMOMETER.replace("Thermometer", "Hygrometer").replace(
        '"thermometer"', '"hygrometer"')
    with Engine.open(load_settings(tenant_config)) as engine:
        engine.apply(_proposal(_mini(engine)), tenant="alpha")
        engine.apply(_proposal(_mini(engine), add=hygrometer), tenant="alpha")
        after = engine._retriever(engine._tenant("alpha"))._mention_dictionary()
        assert isinstance(after, ChangedDictionary)
        assert {"Thermometer", "Hygrometer"} <= {m.iri.rsplit("#", 1)[-1]
                                                 for m in after.find(text)}
        engine.rollback(MINI, tenant="alpha")
        engine.rollback(MINI, tenant="alpha")
        back = engine._retriever(engine._tenant("alpha"))._mention_dictionary()
        # Each rollback undoes one change: the dictionary from before both applies.
        assert isinstance(after.base, ChangedDictionary) and back is after.base.base
        assert not any("meter" in m.iri for m in back.find(text))
    with Engine.open(load_settings(tenant_config)) as fresh:
        built = fresh._retriever(fresh._tenant("alpha"))._mention_dictionary()
        assert built is not None and not isinstance(built, ChangedDictionary)
        assert back.find(text) == built.find(text)


def test_an_apply_reads_units_as_a_whole_build_does(tenant_config: Path) -> None:
    """A unit (a subclass of a class labelled "... unit") that updates add and then
    relabel is one in the updated forms and dictionary, as a whole read of the version
    makes it (an update reads the changed terms with their parents)."""
    kelvin = (f'<{MINI}#TemperatureUnit> a <{OWL}Class> ; <{RDFS}label> "temperature unit" . '
              f'<{MINI}#Kelvin> <{RDFS}subClassOf> <{MINI}#TemperatureUnit> ; '
              f'<{RDFS}label> "kelvin" .')
    with Engine.open(load_settings(tenant_config)) as engine:
        engine.retrieve("a sensor", tenant="alpha", mode=Mode.VECTOR)  # the dictionary loads
        engine.apply(_proposal(_mini(engine), kelvin), tenant="alpha")
        engine.apply(_proposal(_mini(engine), f'<{MINI}#Kelvin> <{RDFS}label> "K degree" .'),
                     tenant="alpha")
        new = _mini(engine)
        stored = mention_store(engine.settings, "alpha").read(new)
        whole = term_forms(_stored(engine, new), engine.settings.index)
        assert {t.iri for t in stored if t.unit} == {t.iri for t in whole if t.unit} == {
            f"{MINI}#Kelvin"}
        changed = engine._retriever(engine._tenant("alpha"))._mention_dictionary()
        assert isinstance(changed, ChangedDictionary)
        assert changed.units == {(f"{MINI}#Kelvin", new)}
        with Engine.open(load_settings(tenant_config)) as fresh:
            built = fresh._retriever(fresh._tenant("alpha"))._mention_dictionary()
            assert built is not None and built.units == changed.units
