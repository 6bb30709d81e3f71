"""The mention lane on disk: one forms file per ontology version, one built dictionary.

Beside the tenant's ``state.json``, in ``mentions/``:

- ``<content hash>-<key>.json.gz``: the version's term forms, named with a
  key of the form scheme and the settings that shaped them; written by the index sync when
  it adds the version (or when the file is missing or stale, which costs a
  graph read, never an embedding), removed with the version;
- ``dictionary-<key>.pickle``: the key tables built over the forms of the
  versions the index holds, keyed by those versions, both schemes and the
  tables' format, so a process start loads it instead of rebuilding.

Every file is written to a temporary name and renamed, so a killed sync
never leaves a half-written one; a file that does not read is rebuilt.

>>> import tempfile
>>> from pathlib import Path
>>> from ontoretrieve.index.mention_forms import TermForms
>>> store = MentionStore(Path(tempfile.mkdtemp()), "k1")
>>> store.write("h1", [TermForms("http://x/t", (("cell", "label"),))])
>>> store.current("h1"), store.current("h2")
(True, False)
>>> [m.iri for m in store.dictionary(["h1"]).find("a cell")]
['http://x/t']
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import pickle
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ontoretrieve.collector import collector_paused
from ontoretrieve.index.mention_forms import FORM_SCHEME, TermForms
from ontoretrieve.index.mention_keys import MATCH_SCHEME, KeyedForm, keyed_forms
from ontoretrieve.index.mention_match import TABLE_FORMAT, MentionDictionary
from ontoretrieve.index.mention_overlay import MAX_CHANGES, ChangedDictionary
from ontoretrieve.kept import read_pickle, write_atomic
from ontoretrieve.settings.groups import IndexSettings

__all__ = ["MentionStore", "forms_key"]

log = logging.getLogger(__name__)
_T = TypeVar("_T")


def forms_key(index: IndexSettings) -> str:
    """The form scheme and the index settings that decide which forms a term has.

    >>> forms_key(IndexSettings()) == forms_key(IndexSettings())
    True
    >>> forms_key(IndexSettings()) == forms_key(IndexSettings(obo_synonyms=False))
    False
    """
    shaping = {"scheme": FORM_SCHEME, "labels": list(index.label_predicates),
               "symbols": list(index.symbol_predicates), "obo_synonyms": index.obo_synonyms,
               "standard": index.embed_standard_vocab_iris,
               "excluded": list(index.extra_excluded_namespace_prefixes)}
    return hashlib.sha256(json.dumps(shaping, sort_keys=True).encode()).hexdigest()[:16]


class MentionStore:
    """Forms files and the built dictionary of one tenant's index."""

    def __init__(self, folder: Path, key: str) -> None:
        self.folder = folder
        self.key = key
        self._said_cannot_keep = False

    def _cannot_keep(self, what: str, exc: OSError) -> None:
        """Say once per store that what it builds is not kept (a read-only data dir
        answers all the same, rebuilding in memory in each process)."""
        if not self._said_cannot_keep:
            log.warning("cannot keep %s in %s (%s): built in memory, again in every "
                        "process, until an index sync runs where the folder is writable",
                        what, self.folder, exc.strerror or exc)
            self._said_cannot_keep = True

    def _forms_path(self, content_hash: str) -> Path:
        return self.folder / f"{content_hash}-{self.key}.json.gz"

    def current(self, content_hash: str) -> bool:
        """A forms file for this version exists, written under the current key."""
        return self._forms_path(content_hash).is_file()

    def write(self, content_hash: str, terms: Sequence[TermForms],
              keyed: Sequence[KeyedForm] | None = None) -> None:
        """Write the version's forms (and their match keys, when the caller has them)."""
        self._write_forms(content_hash, terms)
        if keyed is not None:
            write_atomic(self._keys_path(content_hash),
                         pickle.dumps(list(keyed), protocol=pickle.HIGHEST_PROTOCOL))

    def _write_forms(self, content_hash: str, terms: Sequence[TermForms]) -> None:
        body = {"key": self.key, "scheme": FORM_SCHEME, "ontology_hash": content_hash,
                "terms": [[t.iri, [list(f) for f in t.forms], t.unit] for t in terms]}
        write_atomic(self._forms_path(content_hash),
                     gzip.compress(json.dumps(body).encode(), compresslevel=3))
        self._remove_others(content_hash)

    def remove(self, content_hash: str) -> None:
        """Forget the version's forms (and their keys), under every key."""
        for path in self.folder.glob(f"{content_hash}-*"):
            path.unlink(missing_ok=True)

    def _remove_others(self, content_hash: str) -> None:
        for path in self.folder.glob(f"{content_hash}-*"):
            if path != self._forms_path(content_hash):
                path.unlink(missing_ok=True)

    def _remove_older_schemes(self) -> None:
        """Drop the keys files of this store's forms made under another match scheme: a
        release that changes the scheme makes every version's keys again, and the old
        files (a version's are 2-40 MB) would stay for good. Called when a dictionary
        was just built, so the versions it read have their keys under this scheme."""
        current = f"-{self.key}-{MATCH_SCHEME}.keys.pickle"
        for path in self.folder.glob(f"*-{self.key}-*.keys.pickle"):
            if not path.name.endswith(current):
                path.unlink(missing_ok=True)

    def _keys_path(self, content_hash: str) -> Path:
        return self.folder / f"{content_hash}-{self.key}-{MATCH_SCHEME}.keys.pickle"

    def keyed(self, content_hash: str, *, warn: bool = True) -> list[KeyedForm] | None:
        """The version's forms under their match keys: read when kept, else made from its
        forms and kept (normalizing is most of a dictionary build; a new set of versions,
        as after an apply, then normalizes only the new one). None: no forms (a warning
        unless ``warn`` is False)."""
        path = self._keys_path(content_hash)
        loaded = _cached(path, list, "mention keys")
        if loaded is not None:
            return loaded
        terms = self.stored(content_hash, warn=warn)
        if terms is None:
            return None
        keyed = keyed_forms(terms)
        try:
            write_atomic(path, pickle.dumps(keyed, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError as exc:  # a read-only data dir still answers
            self._cannot_keep("the mention keys", exc)
        return keyed

    def read(self, content_hash: str) -> list[TermForms]:
        """The version's forms; empty (with a warning) when the file is missing or stale."""
        return self.stored(content_hash) or []

    def stored(self, content_hash: str, *, warn: bool = True) -> list[TermForms] | None:
        """The version's forms, or None (with a warning unless ``warn`` is False) when
        missing, unreadable or stale."""
        body = self._read(content_hash)
        if body is None or body.get("key") != self.key:
            if warn:
                log.warning("mention forms of %s are missing or stale; `ontoretrieve index` "
                            "rewrites them", content_hash)
            return None
        terms: list[list[Any]] = body.get("terms", [])  # type: ignore[assignment]
        try:
            return [TermForms(iri, tuple((f, k) for f, k in forms), unit=unit is True)
                    for iri, forms, unit in terms]
        except (TypeError, ValueError) as exc:  # damaged, not merely stale: rewritten too
            log.warning("mention forms %s are unreadable (%s)",
                        self._forms_path(content_hash), exc)
            return None

    def dictionary(self, hashes: Sequence[str]) -> MentionDictionary:
        """The dictionary over these versions' forms: loaded when built before, else built."""
        wanted = sorted(hashes)
        digest = hashlib.sha256(json.dumps([self.key, MATCH_SCHEME, TABLE_FORMAT, wanted]).encode()
                                ).hexdigest()[:16]
        path = self.folder / f"dictionary-{digest}.pickle"
        loaded = _cached(path, MentionDictionary, "mention dictionary")
        if loaded is not None:
            return loaded
        with collector_paused():  # a burst of acyclic data: see ontoretrieve.collector
            forms = {h: self.keyed(h, warn=False) for h in wanted}
            built = MentionDictionary.build_keyed((h, keyed or [])
                                                  for h, keyed in forms.items())
        missing = [h for h, keyed in forms.items() if keyed is None]
        if missing:  # never cache a dictionary the next sync completes
            log.warning("mention forms of %d of %d ontology versions are missing or from "
                        "older form rules (%s%s): the mention lane leaves them out until "
                        "`ontoretrieve index` rewrites them, with nothing re-embedded",
                        len(missing), len(wanted), ", ".join(h[:12] for h in missing[:3]),
                        ", ..." if len(missing) > 3 else "")
            return built
        try:
            write_atomic(path, pickle.dumps(built, protocol=pickle.HIGHEST_PROTOCOL))
            for old in self.folder.glob("dictionary-*.pickle"):
                if old != path:
                    old.unlink(missing_ok=True)
            self._remove_older_schemes()
        except OSError as exc:  # a read-only data dir still answers, it only rebuilds
            self._cannot_keep("the mention dictionary", exc)
        return built

    def changed(self, before: MentionDictionary, hashes: Sequence[str],
                steps: Sequence[Mapping[str, str]]) -> MentionDictionary | None:
        """The dictionary ``before`` (over ``hashes``) after ``steps``, each an apply or a
        rollback: which old version a new one replaced. Made in the time of those
        versions' forms instead of a build (``mention_overlay``) and kept in memory only;
        a step that undoes the last change takes back the dictionary from before it.
        None when a version's forms are gone or ``MAX_CHANGES`` would be passed: build
        then."""
        current = set(hashes)
        dictionary = before
        for old, new in ((o, n) for step in steps for o, n in sorted(step.items())):
            current = (current - {old}) | {new}
            if isinstance(dictionary, ChangedDictionary) and (
                    dictionary.replaced, dictionary.by) == (new, old):
                dictionary = dictionary.base  # undone: the dictionary before that change
                continue
            made = self._replaced(dictionary, old, new, current)
            if made is None:
                return None
            dictionary = made
        return dictionary

    def _replaced(self, before: MentionDictionary, old: str, new: str, hashes: set[str]
                  ) -> ChangedDictionary | None:
        if before.changes >= MAX_CHANGES:
            return None
        if not all(self._keys_path(h).is_file() or self.current(h) for h in (old, new)):
            return None  # a version's forms went with it (a sync removes them)
        old_keyed, new_keyed = self.keyed(old), self.keyed(new)
        if old_keyed is None or new_keyed is None:
            return None
        return ChangedDictionary(before, old, new, sorted(hashes), old_keyed, new_keyed)

    def _read(self, content_hash: str) -> dict[str, object] | None:
        try:
            data = json.loads(gzip.decompress(self._forms_path(content_hash).read_bytes()))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, EOFError) as exc:
            log.warning("mention forms %s are unreadable (%s)", self._forms_path(content_hash),
                        exc)
            return None
        return data if isinstance(data, dict) else None


def _cached(path: Path, kind: type[_T], what: str) -> _T | None:
    """A pickled cache file's content when it reads as a ``kind`` (``read_pickle``)."""
    loaded = read_pickle(path, what)
    return loaded if isinstance(loaded, kind) else None
