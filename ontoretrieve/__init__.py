"""ontoretrieve: the slice of your ontologies that a text is about.

The curated Python API; everything else is internal and may change::

    from ontoretrieve import Engine, load_settings

    with Engine.open(load_settings(data_dir="/tmp/onto")) as engine:
        engine.catalog_load(Path("catalog"))
        context = engine.retrieve("The probe recorded a 5 mV signal.")
        context.graph()                      # an rdflib Graph
        engine.slice("...", max_tokens=500)  # a KnowledgeSlice within budget
        engine.lookup("mV")                  # ranked candidates, ambiguity flag

>>> import ontoretrieve
>>> "Engine" in ontoretrieve.__all__
True
"""

from importlib.metadata import version

from ontoretrieve.context.model import Context, ContextMetrics, Diagnosis, Mode, TermEvidence
from ontoretrieve.engine import Engine
from ontoretrieve.engine.adapters import AdapterHit, FanOutResult
from ontoretrieve.engine.slices import Hit, KnowledgeSlice
from ontoretrieve.errors import (
    CatalogError,
    CatalogParseError,
    CatalogPathError,
    EmbeddingContractMismatchError,
    IndexError_,
    OntoRetrieveError,
    ProposalError,
    ProposalRejected,
    SettingsError,
    StoreError,
    StoreQueryError,
    StoreUnavailableError,
    TenantError,
    TextTooLongError,
    UnsafeQueryError,
)
from ontoretrieve.index.build import IndexStatus
from ontoretrieve.proposals.model import (
    AppliedVersion,
    ApplyResult,
    Conflict,
    OntologyUpdate,
    Proposal,
    ProposalReport,
    Violation,
)
from ontoretrieve.query.lookup import Candidate, LookupResult
from ontoretrieve.records import LoadReport, OntologyVersion, SeedEvidence, SyncReport
from ontoretrieve.settings import Settings, load_settings
from ontoretrieve.settings.tenants import DEFAULT_TENANT, OverlaySettings, TenantSettings

__version__ = version("ontoretrieve")
"""The installed distribution's version: ``pyproject.toml`` is its one source."""

__all__ = [
    "DEFAULT_TENANT",
    "AdapterHit",
    "AppliedVersion",
    "ApplyResult",
    "Candidate",
    "CatalogError",
    "CatalogParseError",
    "CatalogPathError",
    "Conflict",
    "Context",
    "ContextMetrics",
    "Diagnosis",
    "EmbeddingContractMismatchError",
    "Engine",
    "FanOutResult",
    "Hit",
    "IndexError_",
    "IndexStatus",
    "KnowledgeSlice",
    "LoadReport",
    "LookupResult",
    "Mode",
    "OntoRetrieveError",
    "OntologyUpdate",
    "OntologyVersion",
    "OverlaySettings",
    "Proposal",
    "ProposalError",
    "ProposalRejected",
    "ProposalReport",
    "SeedEvidence",
    "Settings",
    "SettingsError",
    "StoreError",
    "StoreQueryError",
    "StoreUnavailableError",
    "SyncReport",
    "TenantError",
    "TenantSettings",
    "TermEvidence",
    "TextTooLongError",
    "UnsafeQueryError",
    "Violation",
    "load_settings",
]
