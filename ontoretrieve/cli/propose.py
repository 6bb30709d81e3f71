"""``propose``, ``apply`` and ``rollback``: update proposals from the command line.

A proposal is a JSON file (``Proposal``: updates with ontology_iri, base_hash,
add and remove as Turtle, optionally the snapshot and the unit text), or one
update given with ``--ontology``, ``--base``, ``--add FILE`` and ``--remove
FILE``. ``propose`` only validates (exit 1 when rejected); ``apply`` validates
and writes (exit 2 when rejected, nothing written).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.markup import escape

from ontoretrieve.backends.access import Access
from ontoretrieve.cli.common import (
    AsJson,
    ConfigFile,
    DataDir,
    TenantOption,
    WaitOption,
    app,
    err,
    errors_to_exit,
    open_engine,
    out,
    print_json,
    read_text,
    settings_from,
)
from ontoretrieve.errors import OntoRetrieveError, ProposalRejected
from ontoretrieve.proposals.model import OntologyUpdate, Proposal, ProposalReport
from ontoretrieve.settings.tenants import DEFAULT_TENANT

__all__ = ["apply_command", "propose_command", "rollback_command"]

ProposalFile = Annotated[Path | None, typer.Argument(
    help="A proposal as JSON ('-' for stdin); or give --ontology, --base, --add, --remove.")]
OntologyOption = Annotated[str | None, typer.Option("--ontology", help="The ontology IRI.")]
BaseOption = Annotated[str | None, typer.Option(
    "--base", help="The content hash the update was made against (catalog list --json).")]
AddOption = Annotated[Path | None, typer.Option("--add", help="Turtle to add.")]
RemoveOption = Annotated[Path | None, typer.Option("--remove", help="Turtle to remove.")]


PROPOSAL_MAX_CHARS = 64 << 20
"""The longest proposal or Turtle file read (as ``catalog.max_file_mb`` by default)."""


def _proposal(file: Path | None, ontology: str | None, base: str | None, add: Path | None,
              remove: Path | None) -> Proposal:
    if file is not None:
        if ontology or base or add or remove:
            raise OntoRetrieveError("give a proposal file or --ontology/--base/--add/--remove, "
                                    "not both")
        text = sys.stdin.read() if str(file) == "-" else read_text(file, PROPOSAL_MAX_CHARS)
        try:
            return Proposal.model_validate_json(text)
        except ValidationError as exc:
            raise OntoRetrieveError(f"{file}: not a proposal: {exc}") from None
    if not ontology or not base or not (add or remove):
        raise OntoRetrieveError("give a proposal file, or --ontology, --base and --add and/or "
                                "--remove")
    return Proposal(updates=[OntologyUpdate(
        ontology_iri=ontology, base_hash=base,
        add=read_text(add, PROPOSAL_MAX_CHARS) if add else "",
        remove=read_text(remove, PROPOSAL_MAX_CHARS) if remove else "")])


def _show(report: ProposalReport, as_json: bool) -> None:
    if as_json:
        print_json(report.model_dump(mode="json"))
    else:
        _print_report(report)


def _print_report(report: ProposalReport) -> None:
    for iri, change in report.changes.items():
        out.print(f"{iri}: +{change['added']} -{change['removed']} triples, "
                  f"{str(change['base_hash'])[:12]} -> {str(change['content_hash'])[:12]}",
                  highlight=False)
    for v in report.violations:
        where = " ".join(x for x in (v.shape, v.focus, v.path) if x)
        err.print(f"[red]  {v.check}[/] {escape(where)}: {escape(v.message)}", highlight=False)
    for c in report.conflicts:
        err.print(f"[yellow]  possible conflict[/] {escape(c.label)!r} ~ {escape(c.term)} "
                  f"({escape(c.ontology_iri)}, fused {c.fused_score:.2f})", highlight=False)
    out.print("valid" if report.conforms else f"rejected: {len(report.violations)} violation(s)")


@app.command("propose")
def propose_command(file: ProposalFile = None, ontology: OntologyOption = None,
                    base: BaseOption = None, add: AddOption = None, remove: RemoveOption = None,
                    tenant: TenantOption = DEFAULT_TENANT, data_dir: DataDir = None,
                    config: ConfigFile = None, as_json: AsJson = False) -> None:
    """Validate an update proposal (SHACL, whole-ontology checks, critic); write nothing."""
    with errors_to_exit():
        proposal = _proposal(file, ontology, base, add, remove)
        with open_engine(settings_from(data_dir, config)) as engine:
            report = engine.propose(proposal, tenant=tenant)
    _show(report, as_json)
    if not report.conforms:
        raise typer.Exit(1)


@app.command("apply")
def apply_command(file: ProposalFile = None, ontology: OntologyOption = None,
                  base: BaseOption = None, add: AddOption = None, remove: RemoveOption = None,
                  tenant: TenantOption = DEFAULT_TENANT, data_dir: DataDir = None,
                  config: ConfigFile = None, as_json: AsJson = False,
                  wait: WaitOption = 0.0) -> None:
    """Validate and apply: new ontology versions, switched atomically, index synced."""
    with errors_to_exit():
        proposal = _proposal(file, ontology, base, add, remove)
        with open_engine(settings_from(data_dir, config), Access.WRITE, wait) as engine:
            try:
                result = engine.apply(proposal, tenant=tenant)
            except ProposalRejected as exc:
                _show(exc.report, as_json)
                raise typer.Exit(2) from None
    if as_json:
        print_json(result.model_dump(mode="json"))
        return
    _print_report(result.report)
    for a in result.applied:
        out.print(f"applied {a.ontology_iri}: {a.previous_hash[:12]} -> {a.content_hash[:12]}",
                  highlight=False)
    if result.index is not None:
        out.print(f"index: {result.index.atoms_embedded} embedded, {result.index.atoms_reused} "
                  f"reused, {result.index.atoms_deleted} deleted")


@app.command("rollback")
def rollback_command(
    ontology_iri: Annotated[str, typer.Argument(help="The ontology to roll back.")],
    tenant: TenantOption = DEFAULT_TENANT, data_dir: DataDir = None,
    config: ConfigFile = None, as_json: AsJson = False, wait: WaitOption = 0.0) -> None:
    """Switch an ontology back to the version its last applied update replaced."""
    with errors_to_exit(), open_engine(settings_from(data_dir, config), Access.WRITE,
                                       wait) as engine:
        restored, sync = engine.rollback(ontology_iri, tenant=tenant)
    if as_json:
        print_json({"restored": restored.model_dump(mode="json"),
                     "index": sync.model_dump(mode="json")})
        return
    out.print(f"rolled back {ontology_iri}: {restored.previous_hash[:12]} -> "
              f"{restored.content_hash[:12]}", highlight=False)
