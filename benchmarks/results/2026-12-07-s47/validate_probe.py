import time, sys, gc, json
import pyoxigraph as ox
from pathlib import Path
sys.path.insert(0, "/tmp/work/s47/pkg/benchmarks")
from ontoretrieve import Engine, load_settings, Proposal, OntologyUpdate
from ontoretrieve.proposals import runner as R
from ontoretrieve.rdf.vocab import OWL, RDF, RDFS
T = {}
def timed(obj, name):
    f = getattr(obj, name)
    def w(*a, **k):
        s = time.perf_counter()
        try: return f(*a, **k)
        finally: T[name] = T.get(name, 0) + time.perf_counter() - s
    setattr(obj, name, w)
timed(R.ProposalRunner, "_base_statements"); timed(R.ProposalRunner, "_content_checks"); timed(R.ProposalRunner, "_new_digests"); timed(R.ProposalRunner, "_critic"); timed(R.ProposalRunner, "_layer")
timed(R, "apply_change"); timed(R, "change_effect"); timed(R, "VersionDelta")
from ontoretrieve.catalog.store import Catalog
timed(Catalog, "graph_statements")
with Engine.open(load_settings(data_dir=Path(sys.argv[1]))) as engine:
    versions = engine.catalog_list()
    target = max(versions, key=lambda v: v.triple_count)
    parent = "http://purl.obolibrary.org/obo/GO_0005634"
    new = "urn:ontoretrieve:bench:ZeolithicQuasicrystal"
    add = (f"<{new}> <{RDF}type> <{OWL}Class> ; <{RDFS}label> \"zeolithic quasicrystal\" ; <{RDFS}subClassOf> <{parent}> .")
    p = Proposal(updates=[OntologyUpdate(ontology_iri=target.ontology_iri, base_hash=target.content_hash, add=add, remove="")])
    engine.retrieve("warm-up: load the model and the index")
    s = time.perf_counter(); rep = engine.propose(p); e = time.perf_counter() - s
    print("propose %.2f" % e, {k: round(v, 2) for k, v in T.items()}, rep.conforms)
