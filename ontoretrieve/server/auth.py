"""API keys: a key per tenant that reaches that tenant only.

Shared by the HTTP and MCP servers. Keys are compared in constant time and
never logged or echoed; an error says whether a key was missing, unknown or
for another tenant, never which tenant a key belongs to.

>>> from ontoretrieve.settings import load_settings
>>> keys = KeyRing.of(load_settings(tenants={"a": {"api_key": "ka"}, "b": {"api_key": "kb"}}))
>>> keys.required, keys.check("a", "ka"), keys.check("a", None)
(True, None, 'missing')
>>> keys.check("a", "kb"), keys.check("a", "nope")
('forbidden', 'unknown')
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Literal

from ontoretrieve.settings import Settings

__all__ = ["KeyProblem", "KeyRing", "bearer_key"]

KeyProblem = Literal["missing", "unknown", "forbidden"]


@dataclass(frozen=True)
class KeyRing:
    """Which key reaches which tenant, and whether keys are required at all."""

    keys: tuple[tuple[str, bytes], ...]
    required: bool

    @classmethod
    def of(cls, settings: Settings) -> KeyRing:
        keys = tuple((tenant, config.api_key.get_secret_value().encode())
                     for tenant, config in settings.tenants.items()
                     if config.api_key is not None)
        required = settings.server.require_api_key
        return cls(keys, bool(keys) if required is None else required)

    def owner(self, key: str) -> str | None:
        """The tenant a key belongs to (every key compared, in constant time)."""
        found = None
        given = key.encode()
        for tenant, secret in self.keys:
            if hmac.compare_digest(given, secret):
                found = tenant
        return found

    def check(self, tenant: str, key: str | None) -> KeyProblem | None:
        """None when ``key`` may act for ``tenant``, else what is wrong with it."""
        if not self.required:
            return None
        if not key:
            return "missing"
        owner = self.owner(key)
        if owner is None:
            return "unknown"
        return None if owner == tenant else "forbidden"


def bearer_key(authorization: str | None, api_key_header: str | None) -> str | None:
    """The key from ``Authorization: Bearer KEY`` or ``X-API-Key: KEY``."""
    if api_key_header:
        return api_key_header.strip()
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None
