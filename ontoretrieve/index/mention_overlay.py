"""The mention dictionary after one version replaced another, made from the one before.

A dictionary over a set of versions costs seconds to build (the bench catalog's 57
versions: 2.6 s, and 1.7 s more to keep it on disk); an applied update or a rollback
replaces one version and changes a handful of its terms. ``ChangedDictionary`` answers
as ``MentionDictionary.build_keyed`` over the new set would, from the dictionary before
and the two versions' keyed forms, in the time of those two versions:

- a key whose entries the two versions give alike keeps the old table's match,
  the old version's hash read as the new one's (and the key's entries put back in the
  order of the new set's hashes, which a build follows);
- every other key (the changed terms' forms, old and new) is answered by a small
  table of its own, built from the old dictionary's entries of the other versions
  and the new version's.

The two tables' matches are merged in the order one table reports them (by
end, longer keys first), so ``find`` sees the same matches in the same order.

>>> from ontoretrieve.index.mention_forms import TermForms
>>> from ontoretrieve.index.mention_match import keyed_forms
>>> old = [TermForms("x:cell", (("cell", "label"),))]
>>> new = [*old, TermForms("x:zeolite", (("zeolite", "label"),))]
>>> before = MentionDictionary.build_keyed([("h1", keyed_forms(old))])
>>> after = ChangedDictionary(before, "h1", "h2", ["h2"], keyed_forms(old), keyed_forms(new))
>>> [(m.iri, m.ontology_hash) for m in after.find("a zeolite cell")]
[('x:zeolite', 'h2'), ('x:cell', 'h2')]
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Sequence

from ontoretrieve.index.key_table import KeyTable
from ontoretrieve.index.mention_forms import FormKind
from ontoretrieve.index.mention_keys import UNIT_MARK, KeyedForm
from ontoretrieve.index.mention_match import (
    DERIVED_TABLES,
    TABLES,
    Entry,
    KeyEntries,
    Match,
    MentionDictionary,
    SharedEntry,
    add_unit_name,
    with_sharing,
)

__all__ = ["MAX_CHANGES", "ChangedDictionary", "changed_keys", "version_entries"]

MAX_CHANGES = 8
"""Changes stacked over one built dictionary; the next one builds the dictionary anew
(each level filters every match of the levels under it)."""

_KINDS = TABLES


def version_entries(keyed: Iterable[KeyedForm]
                    ) -> dict[tuple[str, str], list[tuple[str, str, str]]]:
    """Per (table, key), one version's (iri, form, kind) entries as a build makes
    them: each term's first form under the key, in the version's keyed order.

    >>> version_entries([("folded", " cell ", "x:a", "cell", "label"),
    ...                  ("folded", " cell ", "x:a", "cells", "synonym")])
    {('folded', ' cell '): [('x:a', 'cell', 'label')]}
    """
    found: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for which, key, iri, form, kind in keyed:
        if which == UNIT_MARK:
            continue
        entries = found.get((which, key))
        if entries is None:  # most keys name one term: no dict per key
            found[which, key] = [(iri, form, kind)]
        elif all(e[0] != iri for e in entries):
            entries.append((iri, form, kind))
    return found


def changed_keys(old: Sequence[KeyedForm], new: Sequence[KeyedForm]) -> set[tuple[str, str]]:
    """The (table, key) pairs whose ``version_entries`` may differ between two versions'
    keyed forms: those of every form one has more often than the other. Each other key
    has the same forms in both; when they also come in the same order, its entries are
    the same. That order is checked over all of them at once (one list comparison), and
    where it differs, every key whose entries differ is found the long way. (A pair
    whose entries come out alike is answered the same from either table.) An apply's
    versions share most keys: GO's 217k keyed forms, 0.28-0.37 s here against
    0.87-2.0 s for comparing the two versions' entries key by key
    (benchmarks/RESULTS.md, session 47).

    >>> old = [("folded", " cell ", "x:a", "cell", "label")]
    >>> changed_keys(old, [*old, ("folded", " gene ", "x:b", "gene", "label")])
    {('folded', ' gene ')}
    >>> changed_keys(old + [("root", " cell ", "x:c", "cells", "label")],
    ...              [("root", " cell ", "x:c", "cells", "label")] + old)  # reordered
    set()
    """
    counts = Counter(old)
    counts.subtract(new)
    found = {(t[0], t[1]) for t, n in counts.items() if n and t[0] != UNIT_MARK}

    def others(keyed: Sequence[KeyedForm]) -> list[KeyedForm]:
        return [t for t in keyed if t[0] != UNIT_MARK and (t[0], t[1]) not in found]

    if others(old) == others(new):
        return found
    before, after = version_entries(old), version_entries(new)
    return {where for where in before.keys() | after.keys()
            if before.get(where) != after.get(where)}


class ChangedDictionary(MentionDictionary):
    """``base`` with version ``replaced`` read as version ``by`` (``hashes``: the new
    set); ``old`` and ``new`` are the two versions' keyed forms."""

    def __init__(self, base: MentionDictionary, replaced: str, by: str,
                 hashes: Sequence[str], old: Sequence[KeyedForm],
                 new: Sequence[KeyedForm]) -> None:
        self.base, self.replaced, self.by = base, replaced, by
        self.changes = base.changes + 1
        self._rank = {h: i for i, h in enumerate(sorted(hashes))}
        self._changed = changed_keys(old, new)
        after = version_entries(t for t in new if (t[0], t[1]) in self._changed)
        self._delta: dict[str, KeyTable[KeyEntries]] = {which: KeyTable() for which in _KINDS}
        for which, key in sorted(self._changed):
            entries = self._merged(base.entries_at(which, key), after.get((which, key), []))
            if entries:
                self._delta[which].add(key, (key, with_sharing(entries)))
        self.forms = base.forms - _counted(old) + _counted(new)
        self.units = frozenset({u for u in base.units if u[1] != replaced} | {
            (iri, by) for which, _, iri, _, _ in new if which == UNIT_MARK})
        self.unit_names = {u: keys for u, keys in base.unit_names.items() if u[1] != replaced}
        for which, key, iri, _, _ in new:
            if which == UNIT_MARK:
                add_unit_name(self.unit_names, (iri, by), key)

    def _merged(self, kept: Sequence[SharedEntry], added: Sequence[tuple[str, str, str]]
                ) -> tuple[Entry, ...]:
        """A changed key's entries over the new set: the other versions' as the base
        has them, the new version's, in the order of the versions' hashes."""
        others: list[Entry] = [(iri, h, form, kind) for iri, h, form, kind, _ in kept
                               if h != self.replaced]
        mine: list[Entry] = [(iri, self.by, form, kind) for iri, form, kind in added]
        return tuple(sorted(others + mine, key=lambda e: self._rank[e[1]]))

    def _relabelled(self, entries: tuple[SharedEntry, ...]) -> tuple[SharedEntry, ...]:
        """An unchanged key's entries with the replaced version read as the new one."""
        if all(e[1] != self.replaced for e in entries):
            return entries
        renamed = [(iri, self.by if h == self.replaced else h, form, kind, shared)
                   for iri, h, form, kind, shared in entries]
        return tuple(sorted(renamed, key=lambda e: self._rank[e[1]]))

    def entries_at(self, which: str, key: str) -> tuple[SharedEntry, ...]:
        if (which, key) in self._changed:
            return self._delta[which].get(key, (key, ()))[1]
        return self._relabelled(self.base.entries_at(which, key))

    def matches(self, which: str, string: str) -> Iterable[Match]:
        kept = ((end, (key, self._relabelled(entries)))
                for end, (key, entries) in self.base.matches(which, string)
                if (which, key) not in self._changed)
        delta = self._delta[which]
        if not len(delta):
            return kept
        # Both come by end, longer keys first (at most one key of a length ends at an index).
        return heapq.merge(kept, delta.find(string), key=lambda m: (m[0], -len(m[1][0])))


def _counted(keyed: Iterable[KeyedForm]) -> int:
    """The forms a build counts (``MentionDictionary.forms``)."""
    elliptic = FormKind.ELLIPTIC.value
    return sum(1 for which, _, _, _, kind in keyed
               if which not in DERIVED_TABLES | {UNIT_MARK} and kind != elliptic)
