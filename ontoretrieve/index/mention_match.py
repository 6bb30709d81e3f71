"""The mention lane's dictionary: every span of a text that names a surface form.

Key tables (``key_table.KeyTable``) over the normalized forms of the
catalog's terms:

- *folded*: case-folded, stemmed word keys ("Embryonic stem cells" ->
  `` embryon stem cell ``), for labels and synonyms that are words;
- *exact*: case-kept keys with punctuation, for symbol-like forms (symbols,
  short forms, code-shaped forms such as ``BRCA1`` or ``mRNA``), so "mV" never
  names megavolt and the synonym "IS" never fires on "is".

Keys and query streams are padded with spaces, so a match is whole words by
construction (no filtering after a leftmost-longest match). Every occurrence
is reported, nested and overlapping ones included, with its character
offsets; longer spans come first at the same start. Each match carries the
term, the form's kind, whether the text has the form's exact case, and how
many terms share the key (a form naming 30 terms is weak evidence for each).

Abbreviations defined in the text ("embryonic stem (ES) cells") resolve their
later uses: "ES cells" then names "embryonic stem cell". So do those the rest of
its document defines (``find``'s ``defined``), where a match takes in the whole
long form.

>>> from ontoretrieve.index.mention_forms import TermForms
>>> d = MentionDictionary.build([("h1", [
...     TermForms("http://x/ES_cell", (("embryonic stem cell", "label"),)),
...     TermForms("http://x/MilliV", (("millivolt", "label"), ("mV", "symbol"))),
...     TermForms("http://x/MegaV", (("megavolt", "label"), ("MV", "symbol")))])])
>>> [(m.iri.rsplit("/", 1)[1], m.start, m.end) for m in d.find("5 mV in embryonic stem cells")]
[('MilliV', 2, 4), ('ES_cell', 8, 28)]
>>> [m.text for m in d.find("embryonic stem (ES) cells; ES cells grew")]
['embryonic stem (ES) cells', 'ES cells']
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from ontoretrieve.index.key_table import KeyTable
from ontoretrieve.index.mention_forms import FormKind, TermForms
from ontoretrieve.index.mention_keys import (
    NAMING_KINDS,
    UNIT_MARK,
    KeyedForm,
    form_keys,
    keyed_forms,
)
from ontoretrieve.index.mention_text import (
    Token,
    exact_key,
    fold_word,
    greek_roots,
    latin_nouns,
    may_derive,
    plurals,
    root_word,
    tokenize,
    unit_letter,
    word_texts,
)
from ontoretrieve.index.page_text import readable
from ontoretrieve.index.pertainyms import pertainym_nouns
from ontoretrieve.index.prefixes import prefix_base

__all__ = [
    "DERIVED_TABLES",
    "KIND_WEIGHTS",
    "TABLES",
    "TABLE_FORMAT",
    "Abbreviations",
    "Entry",
    "KeyEntries",
    "Match",
    "Mention",
    "MentionDictionary",
    "SharedEntry",
    "abbreviations",
    "add_unit_name",
    "document_abbreviations",
    "with_sharing",
]

Abbreviations = Mapping[str, Sequence[str]]
"""Short forms a text defines (their exact keys) -> the folded keys of their long forms."""

TABLE_FORMAT = "kt-5"
"""Version of what a kept dictionary holds (its tables): part of its name only, so a
change rebuilds the dictionary from the kept keys."""

TABLES = ("folded", "exact", "root", "verb", "noun_verb")
"""The key tables of a dictionary (``KeyedForm``'s first field, but for ``UNIT_MARK``)."""

DERIVED_TABLES = frozenset({"root", "verb", "noun_verb"})
"""Tables whose keys are derived from a form (a root, a verb), not the form itself:
their matches count as ``derived`` and a build does not count them as forms."""

KIND_WEIGHTS = {
    FormKind.LABEL.value: 1.0, FormKind.EXACT.value: 0.9, FormKind.SYMBOL.value: 0.9,
    FormKind.LOCAL_NAME.value: 0.7, FormKind.RELATED.value: 0.5,
    FormKind.NARROW.value: 0.4, FormKind.BROAD.value: 0.3,
    FormKind.ELLIPTIC.value: 0.5,
}
"""How much a form of each kind says about its term (related synonyms are loose)."""

DENSE_SPAN_WEIGHT = 0.6
"""What a span found by embedding alone says at cosine 1 (no form names it)."""

DERIVED_WEIGHT = 0.6
"""A match by derivational root only ("nuclear" -> nucleus) counts this much of one by stem."""

OUTRANKED_WEIGHT = 0.25
"""A span naming several terms: the terms that fit the context worse than the best ones
keep a quarter of their strength (below the evidence cut on their own, still fused)."""


@dataclass(frozen=True, slots=True)
class Mention:
    """One span of the text naming one term's form."""

    iri: str
    ontology_hash: str
    start: int
    end: int
    text: str
    """The span as written in the text."""
    form: str
    """The surface form it matched."""
    key: str
    """The normalized key both share."""
    kind: str
    exact_case: bool
    shared_by: int
    """Terms whose forms have this key."""
    contained: bool = False
    """Strictly inside a longer matched span."""
    after_number: bool = False
    """Right after a number ("5 mV", "4-15 days"): a quantity's unit, named on purpose."""
    derived: bool = False
    """Matched only by derivational roots ("nuclear" for "nucleus"): weaker evidence."""
    similarity: float | None = None
    """Span-level dense matching: the cosine between the span and the term's core text
    (None: a form matched)."""
    outranked: bool = False
    """Other terms this span names fit the text around it better (``pick_senses``)."""
    misfit: bool = False
    """The term does not fit the passage around the span (``flag_misfits``)."""
    misfit_weight: float = 1.0
    """The share of its strength a misfit keeps (``mentions.misfit_weight``)."""
    cohesive: bool = True
    """False: an elliptic form whose name's other word the text never uses (``_cohesion``):
    "expression" for *gene expression* in a text that never writes "gene"."""
    namesake_of: str | None = None
    """The unit of measure the span names whose name this term has too (``find``'s
    ``namesakes``): "bp" names the unit *Base Pair* and so SO's *base pair*."""

    @property
    def words(self) -> int:
        return len(self.key.split())

    @property
    def shortened_name(self) -> bool:
        """A name said without one of its words: the elliptic forms of two words or more
        (``genus_dropped`` and those that leave out a modifier)."""
        return self.kind == _ELLIPTIC and self.words > 1

    @property
    def genus_dropped(self) -> bool:
        """A name said without its ontology's genus, its last word ("BMP signaling" for
        *BMP signaling pathway*: ``genus_dropped_keys``).

        >>> m = lambda key: Mention("x:t", "h", 0, 13, "BMP signaling", "BMP signaling pathway",
        ...                         key, "elliptic", True, 1)
        >>> m(" bmp signal ").genus_dropped, m(" bmp path ").genus_dropped
        (True, False)
        """
        return self.shortened_name and _left_out(self.form, self.key) == ""

    @property
    def dropped_modifier(self) -> str | None:
        """The folded word a name said without one of its modifiers leaves out ("retin" of
        "ganglion cells" for *retinal ganglion cell*: ``modifier_dropped_keys``), else None.

        >>> Mention("x:t", "h", 0, 14, "ganglion cells", "retinal ganglion cell",
        ...         " ganglion cell ", "elliptic", True, 1).dropped_modifier
        'retin'
        """
        return (_left_out(self.form, self.key) or None) if self.shortened_name else None

    @property
    def head_modifier(self) -> str | None:
        """The folded modifier a three-word name said by its middle noun alone leaves out
        ("retin" of "cones" for *retinal cone cell*: ``head_keys``), else None.

        >>> Mention("x:t", "h", 0, 5, "cones", "retinal cone cell", " cone ", "elliptic",
        ...         True, 1).head_modifier
        'retin'
        """
        if self.kind != _ELLIPTIC or self.words != 1:
            return None
        name = _name_key(self.form)
        return name[0] if len(name) == 3 and name[1] == self.key.strip() else None

    @property
    def strength(self) -> float:
        """Kind weight, divided by the ambiguity of the key, halved inside a longer span,
        raised by half right after a number.

        >>> Mention("i", "h", 0, 4, "cell", "cell", "cell", "label", True, 1).strength
        1.0
        """
        if self.similarity is not None:  # 0 at the floor of 0.5, DENSE_SPAN_WEIGHT at 1
            return DENSE_SPAN_WEIGHT * max(0.0, self.similarity - 0.5) / 0.5
        ambiguity = 1.0 + math.log2(self.shared_by)
        return (KIND_WEIGHTS.get(self.kind, 0.5) * (1.0 + 0.15 * (self.words - 1))
                / ambiguity * (0.5 if self.contained else 1.0)
                * (1.5 if self.after_number else 1.0) * (DERIVED_WEIGHT if self.derived else 1.0)
                * (OUTRANKED_WEIGHT if self.outranked else 1.0)
                * (self.misfit_weight if self.misfit else 1.0))


Entry = tuple[str, str, str, str]
"""(iri, ontology hash, form, kind)."""

SharedEntry = tuple[str, str, str, str, int]
"""(iri, ontology hash, form, kind, terms sharing the key as the entry counts them)."""

KeyEntries = tuple[str, tuple[SharedEntry, ...]]
"""A key and its entries: what a table holds under the key."""

Match = tuple[int, KeyEntries]
"""(index of the key's last character in the scanned string, (key, its entries))."""


def with_sharing(found: tuple[Entry, ...]) -> tuple[SharedEntry, ...]:
    """Each entry with the terms it shares its key with: a term's own form shares it
    with the other terms' own forms only (an elliptic reading never weakens a name),
    an elliptic form with every term the key names.

    >>> with_sharing((("x:a", "h", "record", "label"),
    ...                ("x:b", "h", "medical record", "elliptic")))
    (('x:a', 'h', 'record', 'label', 1), ('x:b', 'h', 'medical record', 'elliptic', 2))
    """
    if len(found) == 1:  # most keys name one term: a third of a dictionary build
        return ((*found[0], 1),)
    everyone = len({e[0] for e in found})
    if all(e[3] != _ELLIPTIC for e in found):
        return tuple((*e, everyone) for e in found)
    named = len({e[0] for e in found if e[3] != _ELLIPTIC})
    return tuple((*e, everyone if e[3] == _ELLIPTIC else named) for e in found)


_ELLIPTIC = FormKind.ELLIPTIC.value
"""Read in the loops of a dictionary build (an enum member's value costs a call)."""

class MentionDictionary:
    """The key tables over the forms of a set of ontology versions."""

    changes = 0
    """Replaced versions read over the built tables (``mention_overlay``): 0 here."""

    def __init__(self, folded: KeyTable[KeyEntries], exact: KeyTable[KeyEntries],
                 forms: int, root: KeyTable[KeyEntries] | None = None,
                 units: frozenset[tuple[str, str]] = frozenset(),
                 verb: KeyTable[KeyEntries] | None = None,
                 noun_verb: KeyTable[KeyEntries] | None = None,
                 unit_names: Mapping[tuple[str, str], tuple[str, ...]] | None = None) -> None:
        self._folded = folded
        self._exact = exact
        self._root = root if root is not None else KeyTable()
        self._verb = verb if verb is not None else KeyTable()
        self._noun_verb = noun_verb if noun_verb is not None else KeyTable()
        self.forms = forms
        self.units = units
        """(term IRI, ontology hash) of the terms that are units of measure."""
        self.unit_names = dict(unit_names or {})
        """Per unit (term IRI, ontology hash), the folded keys of its names of two words or
        more (``unit_marks``): how ``find`` reads a unit's namesakes."""

    @classmethod
    def build(cls, ontologies: Iterable[tuple[str, Sequence[TermForms]]]) -> MentionDictionary:
        """From (ontology hash, term forms) pairs."""
        return cls.build_keyed((h, keyed_forms(terms)) for h, terms in ontologies)

    @classmethod
    def build_keyed(cls, ontologies: Iterable[tuple[str, Sequence[KeyedForm]]]
                    ) -> MentionDictionary:
        """From (ontology hash, ``keyed_forms``) pairs: the normalization, most of the
        cost of a build, done once per version and kept beside its forms."""
        entries: dict[tuple[str, str], dict[tuple[str, str], Entry]] = {}
        units: set[tuple[str, str]] = set()
        unit_names: dict[tuple[str, str], tuple[str, ...]] = {}
        count = 0
        for content_hash, keyed in ontologies:
            for which, key, iri, form, kind in keyed:
                if which == UNIT_MARK:
                    units.add((iri, content_hash))
                    add_unit_name(unit_names, (iri, content_hash), key)
                    continue
                count += which not in DERIVED_TABLES and kind != _ELLIPTIC
                # One entry per term and version: its strongest form under this key.
                per_key = entries.get((which, key))
                if per_key is None:
                    per_key = entries[which, key] = {}
                if (iri, content_hash) not in per_key:
                    per_key[iri, content_hash] = (iri, content_hash, form, kind)
        tables: dict[str, KeyTable[KeyEntries]] = {which: KeyTable() for which in TABLES}
        for (which, key), per_key in entries.items():
            tables[which].add(key, (key, with_sharing(tuple(per_key.values()))))
        return cls(tables["folded"], tables["exact"], count, tables["root"], frozenset(units),
                   tables["verb"], tables["noun_verb"], unit_names)

    def matches(self, which: str, string: str) -> Iterable[Match]:
        """The keys of table ``which`` (``TABLES``) in ``string`` with their
        entries: by end, longer keys first at one end (``KeyTable.find``'s order)."""
        table = self._table(which)
        return table.find(string) if len(table) else ()

    def entries_at(self, which: str, key: str) -> tuple[SharedEntry, ...]:
        """The entries of ``key`` in table ``which`` (none: the key is not there)."""
        return self._table(which).get(key, (key, ()))[1]

    def _table(self, which: str) -> KeyTable[KeyEntries]:
        table: KeyTable[KeyEntries] = getattr(self, f"_{which}")  # _folded, _exact, ...
        return table

    def find(self, text: str, *, pertainyms: bool = True, prefixes: bool = True,
             noun_verbs: bool = False, namesakes: bool = True,
             defined: Abbreviations | None = None) -> list[Mention]:
        """Every mention in ``text``, by start, longer spans first; nested ones flagged.
        ``pertainyms``: read relational adjectives as their nouns ("cardiac": *heart*);
        ``prefixes``: read a prefixed word by the word it is built on ("overexpression":
        *gene expression*); ``noun_verbs``: read a verb as the relations named by the
        noun made from it ("died": *deathPlace*; the ``noun_verb`` table);
        ``namesakes``: a span naming a unit of measure also names the terms (no unit)
        named like the unit by two words or more ("bp": the unit *Base Pair* and SO's
        *base pair*; ``namesake_readings``); ``defined``: abbreviations the rest of the
        text's document defines (``document_abbreviations``), each short form the text
        does not define itself also read as its long form (``_document_readings``)."""
        tokens = tokenize(text)
        aliases = abbreviations(tokens)
        found: list[Mention] = []
        found += self._scan("folded", _folded_stream(tokens, aliases), tokens, text,
                            folded=True)
        if defined:
            found += self._document_readings(tokens, text, aliases, defined, found)
        found += self._scan("exact", _exact_stream(tokens), tokens, text, folded=False)
        found = _heads_in_plural(_outright_first(found, self.units))
        named: Named = {}
        found = _new_readings(found, named)  # all of them: nothing was read before
        if namesakes and self.unit_names:
            found = self.namesake_readings(found, named)
        for readings in self._derived_readings(tokens, text, pertainyms):
            found += _new_readings(readings, named)
        if prefixes:
            found += _new_readings(self._prefixed_readings(tokens, text, pertainyms), named)
        verbs = _verb_stream(tokens)
        for table in ("verb", "noun_verb") if noun_verbs else ("verb",):
            found += _new_readings(self._scan(table, verbs, tokens, text, folded=True,
                                              derived=True), named)
        found = _inside_own_name(_whole_over_shortened(found, named))
        return _flag_contained(_cohesion(found, tokens))

    def _document_readings(self, tokens: Sequence[Token], text: str,
                           own: Mapping[str, list[str]], defined: Abbreviations,
                           read: Sequence[Mention]) -> list[Mention]:
        """What the short forms the rest of the document defines (and the text does not)
        name as their long forms, besides what their own words name (``read``): a
        reading takes in the long form's every word ("BAT" for *brown adipose tissue*,
        never *adipose tissue* alone), and the word keeps its own readings ("BMP
        signaling" still names *BMP signaling pathway* where the document defines
        "bone morphogenetic protein (BMP)")."""
        written = {exact_key(t.text) for t in tokens if t.is_word}
        elsewhere = {short: list(keys) for short, keys in defined.items()
                     if short in written and short not in own}
        if not elsewhere:
            return []
        scanned = self._scan("folded", _folded_stream(tokens, {**own, **elsewhere}), tokens,
                             text, folded=True)
        seen = {(m.iri, m.start, m.end) for m in read}
        return [m for m in _whole_long_forms(scanned, tokens, elsewhere)
                if (m.iri, m.start, m.end) not in seen]

    def namesake_readings(self, mentions: list[Mention], named: Named) -> list[Mention]:
        """The mentions, each term that shares a name of two words or more with a unit
        a span names (no unit itself) flagged ``namesake_of`` the unit on that span, read
        there as the unit is where no earlier reading read it (``named`` then holds it).

        A unit and the thing it counts or measures may be named alike in two
        ontologies: QUDT's unit *Base Pair* (symbol "bp") and SO's *base pair*. A text
        writing "a 500 bp fragment" or "4 base pairs" names both; the rule that a span
        after a number names only its units (``units_after_numbers``) keeps such a
        namesake. A name of one word is no evidence of the same thing (``unit_marks``).

        >>> d = MentionDictionary.build([
        ...     ("q", [TermForms("x:BasePair", (("Base Pair", "label"), ("bp", "symbol")),
        ...                      unit=True)]),
        ...     ("s", [TermForms("x:base_pair", (("base pair", "label"),))])])
        >>> [(m.iri, m.text, m.namesake_of) for m in d.find("a 500 bp fragment")]
        [('x:BasePair', 'bp', None), ('x:base_pair', 'bp', 'x:BasePair')]
        >>> [(m.iri, m.namesake_of) for m in d.find("4 base pairs")]
        [('x:BasePair', None), ('x:base_pair', 'x:BasePair')]
        """
        of: dict[tuple[str, int, int], str] = {}
        added: list[Mention] = []
        namesakes: dict[tuple[str, str], list[tuple[str, str]]] = {}  # per unit, once a call
        for m in mentions:
            unit = (m.iri, m.ontology_hash)
            if unit not in self.unit_names:
                continue
            if unit not in namesakes:
                namesakes[unit] = self._namesakes(unit)
            for iri, content_hash in namesakes[unit]:
                where = (iri, m.start, m.end)
                if where in of:
                    continue
                of[where] = m.iri
                if where not in named:
                    named[where] = True
                    added.append(dataclasses.replace(
                        m, iri=iri, ontology_hash=content_hash, namesake_of=m.iri))
        if not of:
            return mentions
        return [dataclasses.replace(m, namesake_of=of[m.iri, m.start, m.end])
                if (m.iri, m.start, m.end) in of and m.namesake_of is None else m
                for m in mentions] + added

    def _namesakes(self, unit: tuple[str, str]) -> list[tuple[str, str]]:
        """The (term IRI, ontology hash) of the terms, no units, that one of ``unit``'s
        names of two words or more names outright."""
        return [(iri, content_hash) for key in self.unit_names[unit]
                for iri, content_hash, _, kind, _ in self.entries_at("folded", key)
                if (iri, content_hash) not in self.units and kind in NAMING_KINDS]

    def _derived_readings(self, tokens: Sequence[Token], text: str, pertainyms: bool,
                          word_of: Callable[[str], str] = str) -> list[list[Mention]]:
        """The readings of the text's words by what they derive from, one list per rule,
        strongest rule first: roots, Greek noun roots, Latin nouns and, with
        ``pertainyms``, WordNet's (``word_of``: the word a span's text stands for).

        A Latin adjective's nouns ("cortical": "cortex") meet names that are that noun
        whole, so a candidate no term is named by ("cortix") names nothing; so do a
        relational adjective's nouns by WordNet ("cardiac": "heart", "dental": "tooth"),
        which no spelling rule joins."""
        found = [self._scan("root", _root_stream(tokens), tokens, text, folded=True,
                            derived=True),
                 self._greek_readings(tokens, text),
                 self._nouns_named(latin_nouns, tokens, text, word_of)]
        if pertainyms:
            found.append(self._nouns_named(pertainym_nouns, tokens, text, word_of))
        return found

    def _greek_readings(self, tokens: Sequence[Token], text: str) -> list[Mention]:
        """A Greek adjective's noun roots ("synaptic": "synaps") meeting the roots of
        names, and the stems of names whose stem is their root ("synapse"), of Greek
        nouns only ("magnetic" is no adjective of magnesium, whose root is "magnes" too)."""
        greek = _greek_stream(tokens)
        return [m for which in ("root", "folded")
                for m in self._scan(which, greek, tokens, text, folded=True, derived=True)
                if m.form.casefold().endswith(GREEK_NOUN_ENDINGS)]

    def _nouns_named(self, nouns_of: Callable[[str], Sequence[str]],
                     tokens: Sequence[Token], text: str,
                     word_of: Callable[[str], str] = str) -> list[Mention]:
        """Derived mentions of the terms with one of ``nouns_of(word)`` as a whole name,
        for each word of the text (``word_of`` the word a span's text stands for)."""
        stream = _stream(tokens, lambda _, t: list(dict.fromkeys(
            fold_word(n) for n in nouns_of(t.text))) if t.is_word else [])
        return [m for m in self._scan("folded", stream, tokens, text, folded=True,
                                      derived=True)
                if m.form.casefold() in nouns_of(word_of(readable(m.text)))]

    def _prefixed_readings(self, tokens: Sequence[Token], text: str,
                           pertainyms: bool) -> list[Mention]:
        """The readings of each prefixed word's base (``prefix_base``), each spanning the
        whole word: its stem, its root, its Greek and Latin nouns and, with
        ``pertainyms``, WordNet's. A base names a term alone, never with its
        neighbours: the scans see the bases only, and a match across two is dropped."""
        bases = [Token(base, t.start, t.end) for t in tokens
                 if t.is_word and (base := prefix_base(t.text)) is not None]
        if not bases:
            return []
        words = {(t.start, t.end) for t in bases}

        def base_of(word: str) -> str:
            return prefix_base(word) or word

        found = self._scan("folded", _stream(bases, lambda _, t: [fold_word(t.text)]),
                           bases, text, folded=True, derived=True)
        for readings in self._derived_readings(bases, text, pertainyms, base_of):
            found += readings
        first: dict[tuple[str, int, int], Mention] = {}  # the strongest reading: the first
        for m in found:
            if (m.start, m.end) in words:
                first.setdefault((m.iri, m.start, m.end), m)
        return list(first.values())

    def _scan(self, which: str, stream: Stream, tokens: Sequence[Token],
              text: str, *, folded: bool, derived: bool = False) -> list[Mention]:
        string, starts, ends = stream
        mentions = []
        for end_index, (key, entries) in self.matches(which, string):
            first = starts[end_index - len(key) + 1]
            last = ends[end_index]
            after_number = _after_number(tokens, first)
            if len(key) == 3 and not (after_number and unit_letter(tokens, first)):
                continue  # a one-character symbol names a unit only after a quantity
            start, end = tokens[first].start, tokens[last].end
            span = text[start:end]
            words = readable(span)  # "mito-\\nchondrial", "ﬁbre": the words the text means
            for iri, content_hash, form, kind, shared in entries:
                exact_case = not folded or words == form or _same_case(words, form)
                mentions.append(Mention(iri, content_hash, start, end, span, form, key, kind,
                                        exact_case, shared, after_number=after_number,
                                        derived=derived))
        return mentions


def _outright_first(mentions: list[Mention],
                    units: AbstractSet[tuple[str, str]] = frozenset()) -> list[Mention]:
    """The mentions but those naming a term without its genus on a span some term has as
    a name of its own: "spinal cord" names the spinal cord (UBERON), not *spinal cord
    interneuron* (CL, whose genus is "interneuron"); "hair cells" names the hair cell,
    not *hair cell differentiation*. The genus is dropped per ontology
    (``genus_dropped_keys``); whether the words are another term's name is known only
    over the whole catalog, here. A name said by its middle noun alone (``head_keys``)
    gives way so to a term's own name that is no unit of measure's ("eye" names the
    eye, not *compound eye pigmentation*; "rods" still names *retinal rod cell* though
    a unit is called "rod": ``units``, (IRI, ontology hash) pairs).

    >>> m = lambda iri, kind: Mention(iri, "h", 0, 11, "spinal cord", "x", " spinal cord ",
    ...                               kind, True, 1)
    >>> [x.iri for x in _outright_first([m("x:cord", "label"), m("x:interneuron", "elliptic")])]
    ['x:cord']
    >>> [x.iri for x in _outright_first([m("x:interneuron", "elliptic")])]
    ['x:interneuron']
    """
    outright = {(m.start, m.end) for m in mentions if m.kind != _ELLIPTIC}
    named = {(m.start, m.end) for m in mentions
             if m.kind != _ELLIPTIC and (m.iri, m.ontology_hash) not in units}
    return [m for m in mentions if not (m.shortened_name and (m.start, m.end) in outright)
            and not (m.head_modifier is not None and (m.start, m.end) in named)]


def _heads_in_plural(mentions: list[Mention]) -> list[Mention]:
    """The mentions but the names said by their middle noun alone (``head_keys``) on a
    span that is not that noun's plural. A bare count noun standing for a kind names
    its members in the plural ("cones", "rods"); in the singular it mostly modifies a
    longer name ("cone opsin"; "target gene", not SO's *functional target gene*) or is
    another word ("targeted").

    >>> m = lambda text: Mention("x:c", "h", 0, len(text), text, "retinal cone cell",
    ...                          " cone ", "elliptic", True, 1)
    >>> [x.text for x in _heads_in_plural([m("Cones"), m("cone")])]
    ['Cones']
    """
    return [m for m in mentions if m.head_modifier is None
            or m.text.casefold() in plurals(word_texts(m.form)[1])]


Named = dict[tuple[str, int, int], bool]
"""(term, start, end) of each reading so far: whether a whole name (not a shortened one) read it."""


def _new_readings(mentions: list[Mention], named: Named) -> list[Mention]:
    """The mentions of a weaker reading whose term and span no earlier reading named, or
    named only by a shortened name while this one is whole (a span named twice by one
    reading stays twice); ``named`` then holds them too.

    A term that a span names by a shortened name ("epithelial" for *epithelial tissue*)
    may be what a later rule reads the span as whole ("epithelial": *epithelium*, by its
    root): the whole reading is the stronger evidence, and ``_whole_over_shortened``
    then drops the shortened one.

    >>> m = lambda kind: Mention("x:e", "h", 0, 10, "epithelial", "x", " x ", kind, True, 1)
    >>> named = {}
    >>> [x.kind for x in _new_readings([m("elliptic")], named)], named
    (['elliptic'], {('x:e', 0, 10): False})
    >>> [x.kind for x in _new_readings([m("label")], named)], named
    (['label'], {('x:e', 0, 10): True})
    >>> _new_readings([m("exact")], named)
    []
    """
    new = [m for m in mentions if _reads_anew(m, named.get((m.iri, m.start, m.end)))]
    for m in new:
        key = (m.iri, m.start, m.end)
        named[key] = named.get(key, False) or m.kind != _ELLIPTIC
    return new


def _reads_anew(mention: Mention, whole: bool | None) -> bool:
    """Whether ``mention`` is a new reading of its term and span, which earlier readings
    named by a whole name (``whole``), by a shortened one only, or not at all (None)."""
    return whole is None or (not whole and mention.kind != _ELLIPTIC)


def _whole_over_shortened(mentions: list[Mention], named: Named) -> list[Mention]:
    """The mentions but the shortened (elliptic) ones of a term and span that a whole
    name also reads (``_new_readings``)."""
    return [m for m in mentions if m.kind != _ELLIPTIC or not named[m.iri, m.start, m.end]]


def _inside_own_name(mentions: list[Mention]) -> list[Mention]:
    """The mentions but the shortened names of a term inside a span its whole name reads:
    "stem cells" within "embryonic stem cells" says nothing the whole does not.

    >>> m = lambda start, key, kind: Mention("x:es", "h", start, 20, "", "embryonic stem cell",
    ...                                      key, kind, True, 1)
    >>> [x.start for x in _inside_own_name([m(0, " embryon stem cell ", "label"),
    ...                                     m(10, " stem cell ", "elliptic")])]
    [0]
    """
    if not any(m.shortened_name for m in mentions):
        return mentions
    spans: dict[str, set[tuple[int, int]]] = {}
    for m in mentions:
        if not m.shortened_name:
            spans.setdefault(m.iri, set()).add((m.start, m.end))
    # n log n, as ``_flag_contained``: a hostile text may name one term thousands of times.
    reach = {iri: _reach_up_to(found) for iri, found in spans.items()}
    return [m for m in mentions if not m.shortened_name or m.iri not in reach
            or reach[m.iri](m.start) < m.end]


def _reach_up_to(spans: set[tuple[int, int]]) -> Callable[[int], int]:
    """The farthest end of the spans starting at or before a position (-1: none does)."""
    ordered = sorted(spans)
    starts = [start for start, _ in ordered]
    farthest = list(itertools.accumulate((end for _, end in ordered), max))
    return lambda position: farthest[i - 1] if (i := bisect.bisect_right(starts, position)) else -1


def _cohesion(mentions: list[Mention], tokens: Sequence[Token]) -> list[Mention]:
    """The mentions, each elliptic one whose name's other word the text never uses
    flagged not ``cohesive``, and without the names said without a modifier the text
    never uses.

    A shortened name is read as the long one most surely where the text itself
    supports it (lexical cohesion): "expression" stands for *gene expression*
    in a text that speaks of genes, less surely in one that never says "gene"
    (a paper's methods paragraph, or a text about facial expressions); "small"
    for *small intestine* where "intestine" occurs. The seeder drops the others
    or lets the confidence order weigh them (``mentions.elliptic_cohesion``).
    A name said without one of its modifiers ("ganglion cells" for *retinal
    ganglion cell*), or by its middle noun alone ("cones" for *retinal cone cell*), is a
    reading only where the text says the modifier, or a word of its root ("retina"),
    elsewhere: without it, the shorter words are as likely another species of their
    head.

    >>> m = Mention("x:t", "h", 4, 14, "expression", "gene expression", " express ",
    ...             FormKind.ELLIPTIC.value, True, 1)
    >>> [_cohesion([m], tokenize(text))[0].cohesive
    ...  for text in ("its expression", "its expression and the genes")]
    [False, True]
    >>> g = Mention("x:rgc", "h", 4, 18, "ganglion cells", "retinal ganglion cell",
    ...             " ganglion cell ", FormKind.ELLIPTIC.value, True, 1)
    >>> [[x.cohesive for x in _cohesion([g], tokenize(text))]
    ...  for text in ("the ganglion cells of a retina", "the ganglion cells of the gut")]
    [[True], []]
    >>> c = Mention("x:cone", "h", 4, 9, "cones", "retinal cone cell", " cone ",
    ...             FormKind.ELLIPTIC.value, True, 1)
    >>> [len(_cohesion([c], tokenize(text))) for text in ("the cones of a retina", "ice cones")]
    [1, 0]
    """
    if all(m.kind != FormKind.ELLIPTIC.value for m in mentions):
        return mentions
    words = {fold_word(t.text) for t in tokens if t.is_word}
    roots: set[str] | None = None  # only for a name said without a modifier
    kept = []
    for m in mentions:
        if m.kind != FormKind.ELLIPTIC.value or m.genus_dropped:
            kept.append(m)
        elif (dropped := m.dropped_modifier or m.head_modifier) is not None:
            roots = {root_word(word) for word in words} if roots is None else roots
            if root_word(dropped) in roots:  # cohesive by its own, stricter test
                kept.append(m)
        else:
            kept.append(m if set(_name_key(m.form)) <= words
                        else dataclasses.replace(m, cohesive=False))
    return kept


@functools.lru_cache(maxsize=20_000)
def _left_out(form: str, key: str) -> str | None:
    """The folded word of a name its key leaves out: "" for the last (the genus), None
    when the key is not the name but one word.

    >>> _left_out("retinal ganglion cell", " ganglion cell "), _left_out(
    ...     "BMP signaling pathway", " bmp signal "), _left_out("gene expression", " cell ")
    ('retin', '', None)
    """
    name, said = _name_key(form), key.split()
    at = next((i for i, (word, other) in enumerate(zip(name, said, strict=False))
               if word != other), len(said))
    if len(name) != len(said) + 1 or name[:at] + name[at + 1:] != tuple(said):
        return None
    return name[at] if at < len(said) else ""


@functools.lru_cache(maxsize=20_000)
def _name_key(form: str) -> tuple[str, ...]:
    """The folded words of a name, in order."""
    keyed = form_keys(form, FormKind.LABEL.value)
    return tuple(keyed[1].split()) if keyed else ()


def _after_number(tokens: Sequence[Token], index: int) -> bool:
    """The token before ``index`` is a number ("10 m", "31%", "(0.2-0.4) m"), and not the
    digits of an identifier glued to its letters ("Stat5a", "IgG2a", "Aqp2 a candidate":
    a gene's name, no quantity, so its "a" is no are nor year).

    >>> tokens = tokenize("a 10 m pole (3) m")
    >>> [_after_number(tokens, i) for i in (2, 7)]
    [True, True]
    >>> tokens = tokenize("Stat5a and Aqp2 a")
    >>> [_after_number(tokens, i) for i in (2, 6)]
    [False, False]
    """
    before = index - 1
    if before >= 0 and tokens[before].text in ")]":
        before -= 1
    return (before >= 0 and tokens[before].text.isdigit()
            and not _identifier_digits(tokens, before))


def _identifier_digits(tokens: Sequence[Token], index: int) -> bool:
    """The number at ``index`` is glued to a letter before it: part of a name."""
    previous = tokens[index - 1] if index > 0 else None
    return (previous is not None and previous.end == tokens[index].start
            and previous.text[-1:].isalpha())


def _same_case(span: str, form: str) -> bool:
    """The span writes the form's letters in the form's case (spacing aside)."""
    return re.sub(r"[\W_]+", "", span) == re.sub(r"[\W_]+", "", form)


Stream = tuple[str, dict[int, int], dict[int, int]]
"""The padded key string, then space position -> token index where a key starts
there, and where a key ends there."""


def _stream(tokens: Sequence[Token], keys_of: Callable[[int, Token], list[str]]) -> Stream:
    """`` k1 k2 ... `` over the tokens' keys, with the token at each key's edges.

    ``keys_of`` gives a token's keys (none: the token is left out; several:
    all mapped to that token, as an abbreviation's long form is).
    """
    parts: list[str] = []
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    position = 0
    for index, token in enumerate(tokens):
        for key in keys_of(index, token):
            starts.setdefault(position, index)
            parts.append(" " + key)
            position += 1 + len(key)
            ends[position] = index
    return "".join(parts) + " ", starts, ends


def _folded_stream(tokens: Sequence[Token], aliases: dict[str, list[str]]) -> Stream:
    """Stems of the word tokens. An abbreviation defined in the text stands for its long
    form's keys; at its definition, "(ES)", it is left out, so the long form around it
    still matches, and within that long form ("alphaA-crystallin (alphaA)") it is its
    own word."""
    own = _inside_own_long_form(tokens, aliases)

    def keys_of(index: int, token: Token) -> list[str]:
        if not token.is_word or _defines(tokens, index, aliases):
            return []
        if index in own:
            return [fold_word(token.text)]
        return (_prime_end(tokens, index)
                or aliases.get(exact_key(token.text), [fold_word(token.text)]))

    return _stream(tokens, keys_of)


def _inside_own_long_form(tokens: Sequence[Token], aliases: Mapping[str, Sequence[str]]
                          ) -> frozenset[int]:
    """Positions of short forms written within their own long form, right before a
    definition: "alphaA" in "alphaA-crystallin (alphaA)" (the long form's words are the
    last words before the bracket, as ``abbreviations`` counts them).

    >>> tokens = tokenize("alphaA-crystallin (alphaA) and alphaA")
    >>> sorted(_inside_own_long_form(tokens, abbreviations(tokens)))
    [0]
    """
    inside: set[int] = set()
    for i in range(len(tokens)) if aliases else ():
        if _defines(tokens, i, aliases):
            key = exact_key(tokens[i].text)
            words = _words_before(tokens, i - 1)[-len(aliases[key]):]
            inside.update(j for j in words if exact_key(tokens[j].text) == key)
    return frozenset(inside)


def _words_before(tokens: Sequence[Token], opening: int) -> list[int]:
    """Positions of the words a long form is sought among: up to ``len(SF) + 5`` tokens
    before the bracket ``opening`` a short form follows."""
    window = range(max(0, opening - len(tokens[opening + 1].text) - 5), opening)
    return [j for j in window if tokens[j].is_word]


PRIME_ENDS = {digit: tuple(fold_word(word) for word in words)
              for digit, words in (("3", ("three", "prime")), ("5", ("five", "prime")))}
"""The folded keys of a nucleic acid's ends as the Sequence Ontology spells them
(*three_prime_UTR*), by the digit a text writes."""

PRIME_MARKS = frozenset("'\u2032\u2019")
"""What a text writes for a prime: an apostrophe, the prime, a typographic quote."""


def _prime_end(tokens: Sequence[Token], index: int) -> list[str]:
    """The spelled-out keys of a 3' or 5' end ("3' UTR": ``three prime``), none for
    another token: texts write the digit and a prime, the catalogs spell both out.

    >>> [_prime_end(tokenize("the 3\u2032 UTR"), i) for i in range(2)]
    [[], ['three', 'prime']]
    >>> _prime_end(tokenize("3 UTRs"), 0), _prime_end(tokenize("35' long"), 0)
    ([], [])
    """
    spelled = PRIME_ENDS.get(tokens[index].text)
    after = tokens[index + 1] if index + 1 < len(tokens) else None
    if spelled is None or after is None or after.text not in PRIME_MARKS \
            or after.start != tokens[index].end:
        return []
    return list(spelled)  # a fresh list: the table's keys are shared


def _defines(tokens: Sequence[Token], index: int, aliases: Mapping[str, Sequence[str]]
             ) -> bool:
    return (exact_key(tokens[index].text) in aliases and 0 < index < len(tokens) - 1
            and tokens[index - 1].text == "(" and tokens[index + 1].text == ")")


def _root_stream(tokens: Sequence[Token]) -> Stream:
    """The derivational root of the stem of each word that may derive from a name: an
    adjective or a plural (``may_derive``)."""
    return _stream(tokens, lambda _, t: [root_word(fold_word(t.text))]
                   if t.is_word and may_derive(t.text) else [])


def _verb_stream(tokens: Sequence[Token]) -> Stream:
    """Each word lower-cased, for the verbs of agent nouns ("Led by": "led")."""
    return _stream(tokens, lambda _, t: [t.text.casefold()] if t.is_word else [])


GREEK_NOUN_ENDINGS = ("sis", "ses", "se", "sia")
"""How the Greek nouns an adjective in -ic stands for end (mitosis, synapse, neoplasia)."""


def _greek_stream(tokens: Sequence[Token]) -> Stream:
    """The Greek noun roots an adjective in -ic may stand for (``greek_roots``)."""
    return _stream(tokens, lambda _, t: greek_roots(t.text) if t.is_word else [])


def _exact_stream(tokens: Sequence[Token]) -> Stream:
    """Every token, case and punctuation kept."""
    return _stream(tokens, lambda _, t: [exact_key(t.text)])


def _flag_contained(mentions: list[Mention]) -> list[Mention]:
    """The mentions by start, longer spans first, each flagged when another span holds it.

    In time n log n: a text that names terms tens of thousands of times (a hostile
    one repeats a word) must not cost the square of that.

    >>> ms = [Mention("x:a", "h", 0, 9, "stem cell", "stem cell", " stem cell ", "label",
    ...               True, 1), Mention("x:b", "h", 5, 9, "cell", "cell", " cell ", "label",
    ...               True, 1), Mention("x:c", "h", 5, 9, "cell", "cell", " cell ", "label",
    ...               True, 1)]
    >>> [(m.iri, m.contained) for m in _flag_contained(ms)]
    [('x:a', False), ('x:b', True), ('x:c', True)]
    """
    mentions.sort(key=lambda m: (m.start, -(m.end - m.start), m.iri))
    holds = _reach_of_spans({(m.start, m.end) for m in mentions})
    return [dataclasses.replace(m, contained=True) if holds(m.start, m.end) else m
            for m in mentions]


def _reach_of_spans(spans: set[tuple[int, int]]) -> Callable[[int, int], bool]:
    """Whether some other span of ``spans`` holds the span (start, end): one that starts
    before it and ends at or after its end, or starts with it and ends later."""
    longest_at: dict[int, int] = {}
    for s, e in spans:
        longest_at[s] = max(e, longest_at.get(s, e))
    reach_before: dict[int, int] = {}  # per start, the farthest end of spans starting before
    farthest = -1
    for s in sorted(longest_at):
        reach_before[s] = farthest
        farthest = max(farthest, longest_at[s])

    def holds(start: int, end: int) -> bool:
        return reach_before[start] >= end or longest_at[start] > end

    return holds


def abbreviations(tokens: Sequence[Token]) -> dict[str, list[str]]:
    """Abbreviations the text defines, "long form (SF)", as SF -> the long form's keys.

    A simplified Schwartz-Hearst rule: the short form is one word of 2-10
    characters with a capital letter; its letters are found in order among
    the words before the bracket, its first letter starting a word, within
    ``len(SF) + 5`` words.

    >>> abbreviations(tokenize("embryonic stem (ES) cells"))
    {'ES': ['embryon', 'stem']}
    >>> abbreviations(tokenize("in the open reading frame (ORF) and (p < 0.05)"))
    {'ORF': ['open', 'read', 'frame']}
    """
    found: dict[str, list[str]] = {}
    for i in range(1, len(tokens) - 2):
        opening, short, closing = tokens[i], tokens[i + 1], tokens[i + 2]
        if opening.text != "(" or closing.text != ")" or not short.is_word:
            continue
        sf = short.text
        if not (2 <= len(sf) <= 10 and any(c.isupper() for c in sf) and sf[0].isalpha()):
            continue
        long_form = _long_form(sf, [tokens[j].text for j in _words_before(tokens, i)])
        if long_form:
            found.setdefault(exact_key(sf), [fold_word(w) for w in long_form])
    return found


def add_unit_name(names: dict[tuple[str, str], tuple[str, ...]], unit: tuple[str, str],
                  key: str) -> None:
    """Add one unit mark's key to ``names`` (``MentionDictionary.unit_names``), in mark
    order; the bare mark (no key) adds nothing.

    >>> names = {}
    >>> for key in ("", " base pair ", " basepair "):
    ...     add_unit_name(names, ("x:bp", "h"), key)
    >>> names
    {('x:bp', 'h'): (' base pair ', ' basepair ')}
    """
    if key:
        names[unit] = (*names.get(unit, ()), key)


def document_abbreviations(texts: Iterable[str]) -> dict[str, list[str]]:
    """The abbreviations the texts of one document define, in order: the first
    definition of a short form holds (a paper defines it once, at its first use).

    >>> document_abbreviations(["brown adipose tissue (BAT) grew", "in BAT (p < 0.05)",
    ...                         "the bat (BAT) flew"])
    {'BAT': ['brown', 'adipos', 'tissu']}
    """
    found: dict[str, list[str]] = {}
    for text in texts:
        for short, keys in abbreviations(tokenize(text)).items():
            found.setdefault(short, keys)
    return found


def _whole_long_forms(mentions: list[Mention], tokens: Sequence[Token],
                      elsewhere: Mapping[str, Sequence[str]]) -> list[Mention]:
    """The mentions on a short form defined elsewhere that take in the whole of its long
    form (of each such short form they span): the document's "BAT" stands for *brown
    adipose tissue*, and a text that never writes "adipose tissue" does not name it.

    >>> tokens = tokenize("BAT grew")
    >>> m = lambda key, at=(0, 3): Mention("x", "h", *at, "BAT", "f", key, "label", True, 1)
    >>> bat = {"BAT": ["brown", "adipos", "tissu"]}
    >>> kept = _whole_long_forms([m(" brown adipos tissu "), m(" adipos tissu "),
    ...                           m(" grew ", (4, 8))], tokens, bat)
    >>> [k.key for k in kept]  # "grew" is no reading of "BAT": the text's own scan has it
    [' brown adipos tissu ']
    """
    marks = [(t.start, t.end, " " + " ".join(elsewhere[exact_key(t.text)]) + " ")
             for t in tokens if t.is_word and exact_key(t.text) in elsewhere]
    starts = [start for start, _, _ in marks]  # in text order: tokens are

    def whole(m: Mention) -> bool:
        # Marks are tokens, so none overlaps another: those inside the span (bisected,
        # not scanned, as a long text repeats its short forms thousands of times).
        first = max(0, bisect.bisect_right(starts, m.start) - 1)
        last = bisect.bisect_left(starts, m.end)
        spanned = [form for start, end, form in marks[first:last]
                   if m.start < end and start < m.end]
        return bool(spanned) and all(form in m.key for form in spanned)

    return [m for m in mentions if whole(m)]


def _long_form(short: str, words: Sequence[str]) -> list[str] | None:
    """The fewest trailing ``words`` whose letters contain ``short``'s, in order."""
    letters = [c.casefold() for c in short if c.isalnum()]
    for count in range(1, len(words) + 1):
        candidate = words[-count:]
        if candidate[0][0].casefold() != letters[0]:
            continue
        if _contains_in_order("".join(candidate).casefold(), letters) and count <= len(
                letters) + 1:
            return list(candidate)
    return None


def _contains_in_order(haystack: str, letters: Sequence[str]) -> bool:
    position = 0
    for letter in letters:
        position = haystack.find(letter, position)
        if position < 0:
            return False
        position += 1
    return True
