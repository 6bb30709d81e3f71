"""``ontoretrieve doctor``: both stores checked against each other and the index state.

Each check gives a finding: ok, or a problem in words with what repairs it.
With ``repair``, what can be repaired without loss is: the vector index is
synced (rebuilt when its files are gone; the catalog is the source of every
point), shard folders left by killed rebuilds and readers' stale replicas are
removed. A damaged triple store is reported and left as it is: it holds the
catalog, and only a backup or a new load can replace it.

>>> Finding("store", "ok", "opened").line()
'ok       store: opened'
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from ontoretrieve.backends import TripleStore
from ontoretrieve.backends.edge_replica import READERS_DIR
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.index.build import (
    index_status,
    leftover_locations,
    replica_key,
    sweep_locations,
    tenant_dir,
)
from ontoretrieve.index.state import IndexState
from ontoretrieve.records import LoadReport, SyncReport
from ontoretrieve.settings import Settings


class Engine(Protocol):
    """What the doctor uses of an ``Engine`` (the engine imports this module)."""

    settings: Settings
    store: TripleStore
    writable: bool

    def tenants(self) -> list[str]: ...

    def catalog_list(self, *, tenant: str = ..., include_inactive: bool = ...) -> Any: ...

    def lookup(self, mention: str, *, tenant: str = ..., limit: int = ...) -> Any: ...

    def catalog_load(self, path: Path | str | None, *, tenant: str = ...,
                     rebuild: bool = ...) -> tuple[LoadReport | None, SyncReport]: ...

__all__ = ["DoctorReport", "Finding", "examine"]

Verdict = Literal["ok", "problem", "repaired"]


@dataclass(frozen=True)
class Finding:
    """One check's result."""

    check: str
    verdict: Verdict
    detail: str

    def line(self) -> str:
        return f"{self.verdict:8} {self.check}: {self.detail}"


@dataclass
class DoctorReport:
    findings: list[Finding] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        """No problem is left (repaired ones count as fixed)."""
        return all(f.verdict != "problem" for f in self.findings)


def examine(engine: Engine, *, repair: bool = False) -> DoctorReport:
    """Check the store and every tenant's index; repair what can be without loss."""
    report = DoctorReport()
    try:
        engine.catalog_list()
    except OntoRetrieveError as exc:  # a damaged store says so and how to restore it
        report.findings.append(Finding("triple store", "problem", str(exc)))
        return report
    report.findings.append(Finding("triple store", "ok", engine.store.description))
    for tenant in engine.tenants():
        report.findings.extend(_tenant(engine, tenant, repair))
    return report


def _tenant(engine: Engine, tenant: str, repair: bool) -> list[Finding]:
    name = f"index of {tenant}"
    status = index_status(engine.settings, engine.store, tenant)
    if not status.exists:
        if not status.catalog_versions:
            return [Finding(name, "ok", "no catalog and no index yet")]
        return [_repaired_or(engine, tenant, name, repair,
                             f"no index for {status.catalog_versions} catalog versions")]
    problems = []
    if status.damaged:
        problems.append(status.damaged)
    else:
        try:
            engine.lookup("ontology", tenant=tenant, limit=1)  # opens, counts, searches
        except OntoRetrieveError as exc:
            problems.append(str(exc))
    if status.fingerprint_matches is False:
        problems.append("built with other settings: "
                        + ", ".join(sorted(status.fingerprint_differences)))
    if status.catalog_not_indexed or status.pending:
        problems.append(f"{status.catalog_not_indexed} catalog version(s) not indexed, "
                        f"{len(status.pending)} pending")
    if status.stale_forms:
        problems.append(f"mention forms of {status.stale_forms} version(s) missing or from "
                        "older form rules (the mention lane leaves them out)")
    damaged = bool(status.damaged) or any("damaged" in p for p in problems)
    findings = [Finding(name, "ok", f"{status.atoms:,} atoms from {status.ontologies} "
                        "versions, matching the catalog")] if not problems else [
        _repaired_or(engine, tenant, name, repair, "; ".join(problems),
                     rebuild=damaged or status.fingerprint_matches is False)]
    findings.extend(_leftovers(engine, tenant, repair))
    return findings


def _repaired_or(engine: Engine, tenant: str, name: str, repair: bool, problem: str,
                 rebuild: bool = False) -> Finding:
    if not repair:
        return Finding(name, "problem", f"{problem} (`ontoretrieve doctor --repair` "
                       "syncs it from the catalog)")
    try:
        report = engine.catalog_load(None, tenant=tenant, rebuild=rebuild)[1]
    except OntoRetrieveError as exc:
        return Finding(name, "problem", f"{problem}; the repair failed: {exc}")
    how = "rebuilt" if report.rebuilt or report.repaired else "synced"
    return Finding(name, "repaired", f"{problem}; {how}: {report.atoms_total:,} atoms")


def _leftovers(engine: Engine, tenant: str, repair: bool) -> list[Finding]:
    """Shard folders of killed rebuilds and replicas no reader uses any more."""
    folder = tenant_dir(engine.settings, tenant)
    state = IndexState.load(folder / "state.json")
    keep = {state.location} if state else set()
    orphans = [p.name for p in leftover_locations(engine.settings, tenant, keep)]
    readers = folder / READERS_DIR
    current = f"{state.location}-{replica_key(folder / 'state.json')}" if state else ""
    replicas = [p for p in readers.iterdir() if p.is_dir() and p.name != current
                ] if readers.is_dir() else []
    stale = [p for p in replicas if not (p / "views").is_dir()
             or not any((p / "views").iterdir())]
    found = []
    if orphans:
        if repair and engine.writable:
            sweep_locations(engine.settings, tenant, keep)
        found.append(Finding(f"shards of {tenant}", "repaired" if repair and engine.writable
                             else "problem", f"{len(orphans)} folder(s) left by killed "
                             f"rebuilds: {', '.join(orphans[:3])}"))
    if stale:
        if repair and engine.writable:
            for replica in stale:
                shutil.rmtree(replica, ignore_errors=True)
        found.append(Finding(f"reader replicas of {tenant}", "repaired" if repair
                             and engine.writable else "problem",
                             f"{len(stale)} replica(s) of earlier index states that no "
                             "reader uses"))
    return found
