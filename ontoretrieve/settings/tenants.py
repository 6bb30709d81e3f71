"""Tenants: ids, their catalog graphs, layered catalogs and per-tenant overlays.

Every tenant has its own catalog metadata graph (``catalog_graph``), its own
vector index folder and collection, and its own result cache. Ontology data
graphs are named by content hash and immutable, so a tenant reaches one only
through a version its own catalog, or a catalog it includes, lists; this is
how a hundred tenants share one copy of a big public ontology without copying
it (docs/surfaces.md).

A tenant id is checked against a strict pattern before it touches a graph
name, a folder or a collection name:

>>> validate_tenant_id("acme-labs")
'acme-labs'
>>> validate_tenant_id("../x")
Traceback (most recent call last):
...
ontoretrieve.errors.TenantError: tenant id '../x' is not valid (a-z, then up to 39 of a-z 0-9 - _)
>>> catalog_graph("default") == CATALOG_GRAPH, catalog_graph("acme-labs").endswith(":catalog")
(True, True)
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from ontoretrieve.errors import TenantError
from ontoretrieve.rdf.vocab import CATALOG_GRAPH, tenant_catalog_graph

__all__ = [
    "DEFAULT_TENANT",
    "EndpointSettings",
    "OverlaySettings",
    "TenantSettings",
    "catalog_graph",
    "catalog_layers",
    "require_tenant",
    "validate_tenant_id",
]

DEFAULT_TENANT = "default"
_TENANT_ID = re.compile(r"[a-z][a-z0-9_-]{0,39}")


def validate_tenant_id(tenant: str) -> str:
    """Return ``tenant`` when it is a valid id, else raise ``TenantError``."""
    if not isinstance(tenant, str) or not _TENANT_ID.fullmatch(tenant):
        raise TenantError(f"tenant id {tenant!r} is not valid "
                          "(a-z, then up to 39 of a-z 0-9 - _)")
    return tenant


def catalog_graph(tenant: str) -> str:
    """The tenant's catalog metadata graph (the default tenant keeps the historic name)."""
    validate_tenant_id(tenant)
    if tenant == DEFAULT_TENANT:
        return CATALOG_GRAPH
    return tenant_catalog_graph(tenant)


class OverlaySettings(BaseModel):
    """A tenant's query-time overlay: no reindex needed.

    ``aliases`` maps a mention to term IRIs that lookup and slices treat as an
    exact match; ``banned_terms`` and ``banned_ontologies`` (ontology IRIs)
    never appear in a result; terms of ``preferred_ontologies`` are ranked
    first among equally good candidates.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    aliases: dict[str, list[str]] = {}
    banned_terms: list[str] = []
    banned_ontologies: list[str] = []
    preferred_ontologies: list[str] = []


class EndpointSettings(BaseModel):
    """A remote SPARQL 1.1 endpoint the tenant's ``search`` also asks (an adapter)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query_url: str = Field(pattern=r"^https?://\S+$")
    timeout_seconds: float = Field(10.0, gt=0)


class TenantSettings(BaseModel):
    """One tenant: the catalogs it includes, its API key, its overlay, its endpoints."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    includes: list[str] = Field(
        default=[], description="Tenants whose catalogs this one reads too (base first).")
    api_key: SecretStr | None = Field(
        default=None, description="The key that reaches this tenant over HTTP and MCP.")
    overlay: OverlaySettings = OverlaySettings()
    endpoints: dict[str, EndpointSettings] = {}
    shapes: list[str] = Field(
        default=[], description="SHACL shape files checked on this tenant's proposals too.")

    @field_validator("endpoints")
    @classmethod
    def _valid_names(cls, value: dict[str, EndpointSettings]) -> dict[str, EndpointSettings]:
        for name in value:
            validate_tenant_id(name)  # the same strict pattern: names show up in results
        return value

    @field_validator("includes")
    @classmethod
    def _valid_ids(cls, value: list[str]) -> list[str]:
        for tenant in value:
            validate_tenant_id(tenant)
        return value


def catalog_layers(tenants: Mapping[str, TenantSettings], tenant: str) -> list[str]:
    """The catalogs a tenant reads, its own first, then its includes depth first.

    >>> t = {"base": TenantSettings(), "lab": TenantSettings(includes=["base"])}
    >>> catalog_layers(t, "lab")
    ['lab', 'base']
    >>> catalog_layers(t, "nobody")
    Traceback (most recent call last):
    ...
    ontoretrieve.errors.TenantError: unknown tenant 'nobody': declare it under [tenants.nobody]
    """
    validate_tenant_id(tenant)
    if tenant != DEFAULT_TENANT and tenant not in tenants:
        raise TenantError(f"unknown tenant {tenant!r}: declare it under [tenants.{tenant}]")
    layers: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            raise TenantError(f"tenant includes form a cycle: {' -> '.join((*path, name))}")
        if name in layers:
            return
        if name != DEFAULT_TENANT and name not in tenants:
            raise TenantError(f"tenant {path[-1]!r} includes unknown tenant {name!r}")
        layers.append(name)
        for included in (tenants[name].includes if name in tenants else []):
            visit(included, (*path, name))

    visit(tenant, ())
    return layers


def require_tenant(tenants: Mapping[str, TenantSettings], tenant: str) -> None:
    """Raise ``TenantError`` unless ``tenant`` is a valid, declared id whose includes resolve.

    >>> require_tenant({}, "default")
    >>> require_tenant({}, "Bad Id")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ontoretrieve.errors.TenantError: tenant id 'Bad Id' is not valid ...
    """
    catalog_layers(tenants, tenant)
