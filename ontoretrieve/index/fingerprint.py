"""The index fingerprint: the settings that shaped an index's contents.

Always in it: the dense provider and model, the sparse model, the query and
document prefixes, the surface-form scheme and the distance.
Joining only when set away from their defaults, so an index built at the
defaults keeps its fingerprint: the label limit, undescribed and standard
vocabulary switches, extra excluded prefixes, label and symbol predicates, OBO
synonyms, dedup settings and the lexical-trigger settings that shape the
stored triggers.

>>> from ontoretrieve.settings.groups import IndexSettings, TriggerSettings
>>> identity = {"dense_model": "m", "sparse_model": "bm25"}
>>> base = fingerprint(identity, "Cosine", IndexSettings(), TriggerSettings())
>>> changed = fingerprint(identity, "Cosine", IndexSettings(minimal_label_limit=3),
...                       TriggerSettings())
>>> differences(base, changed)
{'index.minimal_label_limit': (None, '3')}
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from ontoretrieve.index.atomize import SURFACE_FORM_SCHEME
from ontoretrieve.settings.groups import IndexSettings, TriggerSettings

__all__ = ["differences", "fingerprint"]

_INDEX_FIELDS = ("minimal_label_limit", "index_undescribed_iris", "embed_standard_vocab_iris",
                 "extra_excluded_namespace_prefixes", "label_predicates", "symbol_predicates",
                 "obo_synonyms", "dedup_mode", "dedup_include_version", "dedup_include_hash")
_TRIGGER_FIELDS = ("enabled", "predicates", "heuristic_enabled", "min_len", "max_len",
                   "heuristic_max_per_entity")


def fingerprint(identity: dict[str, str], distance: str,
                index: IndexSettings, triggers: TriggerSettings) -> dict[str, str]:
    """The fingerprint as a flat mapping of strings.

    The vector size follows from the model and is checked by the vector
    index itself when it opens.
    """
    found = {f"embed.{key}": value for key, value in sorted(identity.items())}
    found["vector_index.distance"] = distance
    found["index.surface_form_scheme"] = SURFACE_FORM_SCHEME
    found.update(_non_default("index", index, IndexSettings(), _INDEX_FIELDS))
    found.update(_non_default("triggers", triggers, TriggerSettings(), _TRIGGER_FIELDS))
    return found


def differences(stored: dict[str, str], current: dict[str, str]
                ) -> dict[str, tuple[str | None, str | None]]:
    """Keys whose values differ, with (stored, current); absent is None."""
    return {key: (stored.get(key), current.get(key))
            for key in sorted(stored.keys() | current.keys())
            if stored.get(key) != current.get(key)}


def _non_default(group: str, value: BaseModel, default: BaseModel,
                 fields: tuple[str, ...]) -> dict[str, str]:
    found = {}
    for name in fields:
        mine, theirs = getattr(value, name), getattr(default, name)
        if mine != theirs:
            found[f"{group}.{name}"] = mine if isinstance(mine, str) else json.dumps(
                mine if not isinstance(mine, tuple) else list(mine))
    return found
