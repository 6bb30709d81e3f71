"""The keys a term's forms are matched by: its names as written, by stem, by root,
shortened, without their ontology's genus, and the other ways a text says them.

One pure step per version of an ontology (``keyed_forms``): each form under the key
of the table it is matched in (``form_keys``: "folded" by stem, "exact" for symbols
and code-shaped words), plus the keys a text may use for it (acronym heads,
abbreviated species, the verbs a relation's noun is made from), then the version's keys
for shortened names (``shortened_keys``: elliptic words, names without their genus).
The mention dictionary (``mention_match``) is built from these keys; each
public function's docstring shows its keys.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from ontoretrieve.index.atomize import split_local_name
from ontoretrieve.index.mention_forms import FormKind, TermForms
from ontoretrieve.index.mention_text import (
    STOPWORDS,
    Token,
    agent_verb_forms,
    exact_key,
    fold_word,
    gerund_bases,
    is_stopword_phrase,
    may_be_noun,
    noun_only,
    root_word,
    token_texts,
    tokenize,
    verb_forms,
    word_texts,
)
from ontoretrieve.index.noun_verbs import noun_verbs
from ontoretrieve.index.pertainyms import pertainym_nouns

__all__ = [
    "ELLIPTIC_MIN_NAMES",
    "ELLIPTIC_MIN_SHARE",
    "GENUS_MIN_NAMES",
    "MATCH_SCHEME",
    "MODIFIER_MAX_TERMS",
    "NAMING_KINDS",
    "UNIT_MARK",
    "KeyedForm",
    "elliptic_keys",
    "form_keys",
    "genus_dropped_keys",
    "head_keys",
    "keyed_forms",
    "local_genus_names",
    "modifier_dropped_keys",
    "root_key",
    "shortened_keys",
    "term_keys",
    "unit_marks",
]

MATCH_SCHEME = "mm-19"
"""Version of the keys made here: part of the names of each version's kept keys and of
the kept dictionary, so a change rebuilds both from the stored forms (never the forms).
The keys of a fixed set of forms are pinned per scheme (tests/unit/index/test_key_scheme.py):
a change of the keys fails there until it comes with a new scheme."""

def _symbol_like(form: str, tokens: Sequence[Token], kind: str) -> bool:
    """Forms matched with their case: symbols, short forms and code-shaped words."""
    if kind == FormKind.SYMBOL.value:
        return True
    if len(form.split()) != 1:
        return False
    word = form.strip()
    inner_upper = any(c.isupper() for c in word[1:])
    # "Day" and "rat" are words; "bp", "ES", "ATP", "mRNA" and "BRCA1" are codes.
    return len(word) <= 2 or inner_upper or any(c.isdigit() for c in word)


def form_keys(form: str, kind: str) -> tuple[str, str] | None:
    """(table, key) for one form, or None when it names nothing on its own.

    Left out: forms without letters (numbers never name a term) and forms
    made only of function words ("IS", "all", "This"). A one-character
    symbol ("m", "%", "°") goes to the exact table and names a span only
    right after a number ("10 m", "31%").

    >>> form_keys("Embryonic stem cells", "label")
    ('folded', ' embryon stem cell ')
    >>> form_keys("mV", "symbol"), form_keys("m/s", "symbol")
    (('exact', ' mV '), ('exact', ' m / s '))
    >>> form_keys("IS", "exact"), form_keys("15", "label"), form_keys("m", "symbol")
    (None, None, ('exact', ' m '))
    """
    form = unicodedata.normalize("NFKC", form)
    tokens = tokenize(form)
    words = [t.text for t in tokens if t.is_word]
    if len(tokens) == 1 and len(tokens[0].text) == 1 and not tokens[0].text.isdigit():
        return ("exact", f" {tokens[0].text} ") if kind == FormKind.SYMBOL.value else None
    if not any(c.isalpha() for w in words for c in w):
        return None
    if is_stopword_phrase(words):
        return None
    if _symbol_like(form, tokens, kind):
        return "exact", " " + " ".join(exact_key(t.text) for t in tokens) + " "
    return "folded", " " + " ".join(fold_word(w) for w in words) + " "


def root_key(form: str, kind: str) -> str | None:
    """The derivational-root key of a one-word form, when it differs from its stem key.

    >>> root_key("nucleus", "label"), root_key("cell", "label"), root_key("mV", "symbol")
    (' nucle ', None, None)
    """
    return _root_of(form_keys(form, kind))


def _root_of(keyed: tuple[str, str] | None) -> str | None:
    if keyed is None or keyed[0] != "folded" or len(keyed[1].split()) != 1:
        return None
    stem = keyed[1].strip()
    root = root_word(stem)
    return f" {root} " if root != stem else None


KeyedForm = tuple[str, str, str, str, str]
"""(table: folded, exact, root, verb or noun_verb; key; term IRI; form; form kind), or a unit mark
(``UNIT_MARK``, "", term IRI, "", ""): the term is a unit of measure, or (``UNIT_MARK``, folded
key, term IRI, form, kind): a unit's name of two words or more (``unit_marks``)."""

UNIT_MARK = "unit"
"""The table of a keyed form that marks its term a unit (no key: it matches nothing)."""


NAMING_KINDS = frozenset({FormKind.LABEL.value, FormKind.EXACT.value})
"""Kinds that name a term outright (labels, exact synonyms)."""


def keyed_forms(terms: Sequence[TermForms]) -> list[KeyedForm]:
    """Each form of each term under the keys it is matched by, in the order a
    dictionary build takes them, then the version's keys for shortened names
    (``shortened_keys``; pure, no version in it).

    >>> forms = (("nuclear", "label"), ("mV", "symbol"))
    >>> [k[:2] for k in keyed_forms([TermForms("http://x/t", forms)])]
    [('folded', ' nuclear '), ('root', ' nucle '), ('exact', ' mV ')]
    """
    found = term_keys(terms)
    return found + shortened_keys(found)


def shortened_keys(keyed: Sequence[KeyedForm]) -> list[KeyedForm]:
    """The version's keys for shortened names, read off its own keys (``elliptic_keys``,
    ``genus_dropped_keys``, ``modifier_dropped_keys``, ``head_keys``): derived again
    whenever the version's keys change.

    >>> shortened_keys([])
    []
    """
    return (elliptic_keys(keyed) + genus_dropped_keys(keyed) + modifier_dropped_keys(keyed)
            + head_keys(keyed))


def term_keys(terms: Sequence[TermForms]) -> list[KeyedForm]:
    """The keys of each term's own forms (a term's keys depend on its forms alone).

    >>> [k[1] for k in term_keys([TermForms("http://x/t", (("cells", "label"),))])]
    [' cell ']
    """
    found: list[KeyedForm] = []
    for term in terms:
        keys = [form_keys(form, kind) for form, kind in term.forms]  # normalized once
        if term.unit:
            found += unit_marks(term, keys)
        for (form, kind), keyed in zip(term.forms, keys, strict=True):
            if keyed is None:
                continue
            found.append((keyed[0], keyed[1], term.iri, form, kind))
            root = _root_of(keyed) if kind != FormKind.LOCAL_NAME.value else None
            if root is not None:
                found.append(("root", root, term.iri, form, kind))
        found += _acronym_heads(term) + _abbreviated_genus(term) + _relation_verbs(term)
    return found


def unit_marks(term: TermForms, keys: Sequence[tuple[str, str] | None] | None = None
               ) -> list[KeyedForm]:
    """The marks of a unit of measure: one that says it is a unit, and one per name of
    two words or more under its folded key, by which a dictionary finds the unit's
    namesakes (*base pair*, the thing the unit "Base Pair" counts: ``mention_match``).
    One word is no such name: the unit "Foot" is no foot, "Mole" no mole of the skin.
    ``keys``: each form's ``form_keys`` when the caller has them (``term_keys``).

    >>> unit = TermForms("http://x/BasePair", (("Base Pair", "label"), ("bp", "symbol")),
    ...                  unit=True)
    >>> [k[:3] for k in unit_marks(unit)]
    [('unit', '', 'http://x/BasePair'), ('unit', ' base pair ', 'http://x/BasePair')]
    """
    if keys is None:
        keys = [form_keys(form, kind) for form, kind in term.forms]
    marks: list[KeyedForm] = [(UNIT_MARK, "", term.iri, "", "")]
    for (form, kind), keyed in zip(term.forms, keys, strict=True):
        if (kind in NAMING_KINDS and keyed is not None and keyed[0] == "folded"
                and keyed[1].count(" ") >= 3):
            marks.append((UNIT_MARK, keyed[1], term.iri, form, kind))
    return marks


def _acronym_heads(term: TermForms) -> list[KeyedForm]:
    """An acronym's head noun written out: a term named "embryonic stem cell" with
    the synonym "ESC" is also "ES cell(s)", as texts write it.

    >>> t = TermForms("x:esc", (("embryonic stem cell", "label"), ("ESC", "exact")))
    >>> [k[1] for k in _acronym_heads(t)]
    [' ES cell ', ' ES cells ']
    """
    acronyms = [(f, k) for f, k in term.forms
                if k in NAMING_KINDS and 3 <= len(f) <= 6 and f.isalpha() and f.isupper()]
    if not acronyms:
        return []
    named = [word_texts(f) for f, k in term.forms if k in NAMING_KINDS]
    found: list[KeyedForm] = []
    for acronym, kind in acronyms:
        for words in named:
            head = words[-1] if words else ""
            if (len(words) == len(acronym) and head.isalpha() and head.islower()
                    and "".join(w[0] for w in words).casefold() == acronym.casefold()):
                short = f"{acronym[:-1]} {head}"
                found += [("exact", f" {acronym[:-1]} {variant} ", term.iri, short, kind)
                          for variant in (head, head + "s")]
                break
    return found


_GENUS = re.compile(r"[A-Z][a-z]{2,}")
_EPITHET = re.compile(r"[a-z]{3,}")


def _abbreviated_genus(term: TermForms) -> list[KeyedForm]:
    """A binomial name with its genus cut to the initial, as biology writes it after
    (and often without) the first use: "Caenorhabditis elegans" is also "C. elegans"
    (exact keys, so the period and the capital must be there; "C.elegans" tokenizes
    the same).

    >>> t = TermForms("x:ce", (("Caenorhabditis elegans", "label"), ("nematode", "exact")))
    >>> [(k[1], k[3]) for k in _abbreviated_genus(t)]
    [(' C . elegans ', 'C. elegans')]
    >>> _abbreviated_genus(TermForms("x:c", (("Golgi", "label"), ("cell wall", "label"))))
    []
    """
    found: list[KeyedForm] = []
    for form, kind in term.forms:
        if kind not in NAMING_KINDS:
            continue
        tokens = tokenize(form)
        if (len(tokens) == 2 and _GENUS.fullmatch(tokens[0].text)
                and _EPITHET.fullmatch(tokens[1].text)):
            genus, epithet = tokens[0].text, tokens[1].text
            found.append(("exact", f" {genus[0]} . {epithet} ", term.iri,
                          f"{genus[0]}. {epithet}", kind))
    return found


def _relation_verbs(term: TermForms) -> list[KeyedForm]:
    """A relation named by a noun made from a verb is named by the verb too. Only for a
    term whose IRI's local name begins with a lower-case word, the naming convention of
    properties (a class *Leader*, or a *promoter* whose IRI is an opaque id, is not
    said with a verb); the verb is that of the first word, which names what the
    relation is of (*deathPlace*: a death's place). Keys matched by lower-cased word and
    counted as derived, in two tables:

    - ``verb``: a one-word name's agent noun ("led" and "leads" for *leader*, "written"
      for *writer*; ``agent_verb_forms``), read in every text;
    - ``noun_verb``: the rest, WordNet's derivations ("died" for *deathPlace*,
      "succeeded" for *successor*, "located" for *location*; ``noun_verbs``), a
      gerund's verb ("operated" for *operatingOrganisation*; ``gerund_bases``) and an
      agent noun that begins a longer name ("led" for *leaderTitle*). Everyday verbs
      name a catalog's metadata properties this way too ("described" a *description*,
      "contains" a *content*), so the lane reads this table only where asked
      (``mentions.noun_verbs``).

    The form's kind is that of the name that spells the local name's words, a local
    name's when none does.

    >>> t = TermForms("http://x/leader", (("leader", "label"),))
    >>> [(k[0], k[1], k[4]) for k in _relation_verbs(t)]
    [('verb', ' leads ', 'label'), ('verb', ' led ', 'label')]
    >>> [k[:2] for k in _relation_verbs(TermForms("http://x/deathPlace", ()))]
    [('noun_verb', ' died '), ('noun_verb', ' dies ')]
    >>> _relation_verbs(TermForms("http://x/Leader", (("leader", "label"),)))
    []
    """
    words = split_local_name(term.iri).split()
    if not words or not (words[0].isalpha() and words[0].islower()):
        return []
    head = words[0]
    agent = set(agent_verb_forms(head))
    derived = set(verb_forms((*noun_verbs(head), *gerund_bases(head))))
    name = " ".join(words).casefold()
    kind = next((k for f, k in term.forms if f.casefold() in (name, name.replace(" ", ""))),
                FormKind.LOCAL_NAME.value)
    always = agent if len(words) == 1 else set()
    return [("verb" if verb in always else "noun_verb", f" {verb} ", term.iri, name, kind)
            for verb in sorted(agent | derived)]


ELLIPTIC_MIN_NAMES = 3
"""A word's share of an ontology's names means something from this many names on."""

ELLIPTIC_MIN_SHARE = 0.6
"""A two-word name owns a word when at least this share of the names holding the word
hold the whole name."""

def elliptic_keys(keyed: Sequence[KeyedForm]) -> list[KeyedForm]:
    """Words that stand for a two-word name of one ontology version, as weak keys.

    Texts shorten a name their field uses all the time: "expression" for
    *gene expression*, "photoreceptors" for *photoreceptor cell*. Which
    shortening a field makes is read from the ontology itself: a word that
    is no name of its own there, but most of whose names (labels and exact
    synonyms; at least ``ELLIPTIC_MIN_SHARE`` of ``ELLIPTIC_MIN_NAMES`` or
    more) hold one two-word name, is keyed to that name's terms (kind
    ``elliptic``, a weak form, surest where the text also uses the name's
    other word: ``_cohesion``).
    A word shared by many compounds ("acid": amino, fatty, nucleic...) keys
    nothing. Pure over the version's keyed forms, so an incremental update
    derives them again from its merged keys.

    >>> names = ["gene expression", "regulation of gene expression",
    ...          "positive regulation of gene expression", "gene"]
    >>> keyed = [("folded", form_keys(n, "label")[1], f"x:{i}", n, "label")
    ...          for i, n in enumerate(names)]
    >>> elliptic_keys(keyed)
    [('folded', ' express ', 'x:0', 'gene expression', 'elliptic')]
    """
    names: dict[str, list[str]] = {}
    own_words: set[str] = set()
    for which, key, _, _, kind in keyed:
        if which != "folded":
            continue
        if key.count(" ") == 2:  # " word ": a one-word key
            own_words.add(key.strip())
        if kind in NAMING_KINDS and key not in names:
            names[key] = key.split()
    holding = Counter(word for words in names.values() for word in set(words))
    candidates = {word for word, count in holding.items()
                  if count >= ELLIPTIC_MIN_NAMES and word not in own_words and len(word) >= 4
                  and word.isalpha() and word not in STOPWORDS}
    pairs = Counter(pair for words in names.values() if len(words) > 1
                    for pair in {(a, b) for a, b in itertools.pairwise(words)
                                 if a in candidates or b in candidates})
    shortened: dict[str, list[str]] = {}
    for (first, second), count in sorted(pairs.items()):
        name = f" {first} {second} "
        if name not in names:
            continue
        for word in sorted({first, second} & candidates):
            if count >= ELLIPTIC_MIN_SHARE * holding[word]:
                shortened.setdefault(name, []).append(word)
    return [("folded", f" {word} ", iri, form, FormKind.ELLIPTIC.value)
            for which, key, iri, form, kind in keyed
            if which == "folded" and kind in NAMING_KINDS
            for word in shortened.get(key, ())]


GENUS_MIN_NAMES = 10
"""A last word ends this many names of an ontology version, of two words or more, before
names said without it ("pathway": *BMP signaling pathway* is "BMP signaling")."""


def genus_dropped_keys(keyed: Sequence[KeyedForm]) -> list[KeyedForm]:
    """Names said without the last word their ontology ends many names with, as weak keys.

    An ontology that ends many names with one word, its genus ("X signaling pathway",
    "X tissue"), names the species by the words before it, and texts say those words
    alone: "BMP signaling" for *BMP signaling pathway*, "mineralized cartilage" for
    *mineralized cartilage tissue*. A name whose last word ends ``GENUS_MIN_NAMES`` or
    more names of the version (labels and exact synonyms; no unit's: a unit's name is a
    product or quotient of units) gives the words before it as a key of kind
    ``elliptic`` when they are two words or more (one word alone is mostly a modifier
    shared by hundreds of names, "dorsal", "primary"), name nothing in the version, are
    what one term's names alone leave, and end in a word that may be a noun (*mesoderm
    derived tissue* is not said "mesoderm derived": ``may_be_noun``). The genus is the
    ontology's, so the text need not say it (``_cohesion``), and a span another
    ontology names outright is not read so (``_outright_first``).

    An ontology that names its terms by their IRIs alone (the Pizza ontology's
    *MozzarellaTopping*, labelled only in Portuguese) writes the genus into the
    local name because an IRI must be unique: its local names count as names here
    (``local_genus_names``), and one word left is a key too ("mozzarella"), read
    like a shortened name, surest where the text also says the genus (``_cohesion``).

    >>> names = [f"{w} signaling pathway" for w in "abcdefghij"] + ["BMP signaling pathway"]
    >>> keyed = [("folded", form_keys(n, "label")[1], f"x:{i}", n, "label")
    ...          for i, n in enumerate(names)]
    >>> [(k[1], k[3]) for k in genus_dropped_keys(keyed)][-1]
    (' bmp signal ', 'BMP signaling pathway')
    >>> genus_dropped_keys(keyed[-1:])  # one name ends with "pathway": no genus
    []
    """
    units = {iri for which, _, iri, _, _ in keyed if which == UNIT_MARK}
    named: dict[str, list[tuple[str, str]]] = {}
    every_key: set[str] = set()
    for which, key, iri, form, kind in keyed:
        if which != "folded":
            continue
        every_key.add(key)
        # A unit's name is a product or quotient of units ("ampere hour per degree
        # Celsius"), not a species of its last word.
        if kind in NAMING_KINDS and key.count(" ") >= 3 and iri not in units:
            named.setdefault(key, []).append((iri, form))
    by_local = local_genus_names(keyed, set(named), units)
    genera = Counter(key.split()[-1] for key in [*named, *by_local])
    by_shorter: dict[str, list[KeyedForm]] = {}
    for key, holders, fewest in [*((k, h, 3) for k, h in named.items()),
                                 *((k, h, 2) for k, h in by_local.items())]:
        words = key.split()
        if len(words) < fewest or genera[words[-1]] < GENUS_MIN_NAMES:
            continue
        shorter = f" {' '.join(words[:-1])} "
        if shorter in every_key:
            continue
        for iri, form in holders:
            said = word_texts(form)
            if len(said) == len(words) and may_be_noun(said[-2]):
                by_shorter.setdefault(shorter, []).append(
                    ("folded", shorter, iri, form, FormKind.ELLIPTIC.value))
    # Words that stay when several genera go ("smooth muscle" of *smooth muscle
    # contraction*, *... hypertrophy*, *... adaptation*) are no name of any one of them.
    return _held_by_few(by_shorter, 1)


def _held_by_few(by_shorter: dict[str, list[KeyedForm]], most: int) -> list[KeyedForm]:
    """The keys of the shortened names that the names of at most ``most`` terms leave."""
    return [k for keys in by_shorter.values() if len({k[2] for k in keys}) <= most
            for k in keys]


def head_keys(keyed: Sequence[KeyedForm]) -> list[KeyedForm]:
    """Three-word names said by their middle noun alone, as weak keys.

    A paper on the retina says "cones" and "rods" for *retinal cone cell* and *retinal
    rod cell*: it drops the adjective its subject makes plain and the genus its
    ontology ends many names with, together. A name (label or exact synonym, no
    unit's) of three content words (``_noun_compound``) that is a relational
    adjective, a noun and a genus gives its middle word as a key of kind ``elliptic``:
    - the adjective says what the name pertains to ("retinal": the retina; WordNet's
      pertainym, ``pertainym_nouns``), which a text about it need not repeat, unlike
      an adjective that tells a species apart (*high identity region*, *small
      molecule binding*, *anterior chamber epithelium*);
    - the second word is only a noun (``noun_only``: not *retinal bipolar neuron*);
    - the last ends ``GENUS_MIN_NAMES`` or more names of the version, as in
      ``genus_dropped_keys``, and is a name of its own there ("cell"; not GO's
      "development": *embryonic brain development* is no kind of brain);
    - the middle word names nothing in the version, and one term's names alone leave
      it ("hair", left by the Cell Ontology's *sensory hair cell* and *auditory hair
      cell*, keys neither).
    Such a reading holds only where the text says the adjective, or a word of its
    root ("retina"), elsewhere (``mention_match``'s ``_cohesion``), like a name said
    without a modifier, and where no term of the catalog but a unit has the word as a
    name of its own (``_outright_first``: "eye" names the eye).

    >>> names = [f"{w} cell" for w in "abcdefghij"] + ["cell", "retinal cone cell"]
    >>> keyed = [("folded", form_keys(n, "label")[1], f"x:{i}", n, "label")
    ...          for i, n in enumerate(names)]
    >>> [(k[1], k[3]) for k in head_keys(keyed)]
    [(' cone ', 'retinal cone cell')]
    """
    units = {iri for which, _, iri, _, _ in keyed if which == UNIT_MARK}
    every_key = {key for which, key, _, _, _ in keyed if which == "folded"}
    named = [(key, iri, form) for which, key, iri, form, kind in keyed
             if which == "folded" and kind in NAMING_KINDS and iri not in units]
    genera = Counter(key.split()[-1] for key in {key for key, _, _ in named
                                                 if key.count(" ") >= 3})
    kinds = {key.strip() for key, _, _ in named if key.count(" ") == 2}
    by_head: dict[str, list[KeyedForm]] = {}
    for key, iri, form in named:
        words = key.split()
        if len(words) != 3 or genera[words[-1]] < GENUS_MIN_NAMES or words[-1] not in kinds:
            continue
        head = f" {words[1]} "
        said = word_texts(form)
        if (head not in every_key and _noun_compound(form, words)
                and bool(pertainym_nouns(said[0])) and noun_only(said[1])):
            by_head.setdefault(head, []).append(
                ("folded", head, iri, form, FormKind.ELLIPTIC.value))
    return _held_by_few(by_head, 1)


MODIFIER_MAX_TERMS = 2
"""Words a name leaves without one of its modifiers are a key when the names of at most this
many terms of the version leave them ("outer segment": the photoreceptor's and the rod's)."""


def modifier_dropped_keys(keyed: Sequence[KeyedForm]) -> list[KeyedForm]:
    """Names said without one of their modifiers, as weak keys.

    A text drops a modifier its subject makes plain: a paper on the retina says
    "ganglion cells" for *retinal ganglion cell* and "outer segments" for
    *photoreceptor outer segment*; "erythroid cells" stands for *erythroid lineage
    cell*. A name (label or exact synonym, no unit's) that is a compound of three
    content words or more, each of three letters or more (``_noun_compound``: not
    *regulation of growth*, not *joule per kilogram*), gives its words without one of
    them as a key of kind ``elliptic``: never without its last word (its head;
    ``genus_dropped_keys`` says when that goes); only where the words name nothing in
    the version and the names of at most ``MODIFIER_MAX_TERMS`` terms leave them.
    Such a reading holds only where the
    text says the dropped word elsewhere (``mention_match``'s ``_cohesion``: a retina
    paper writes "retinal") and no term has the span as a name of its own
    (``_outright_first``).

    >>> names = ["retinal ganglion cell", "ganglion", "cell"]
    >>> keyed = [("folded", form_keys(n, "label")[1], f"x:{i}", n, "label")
    ...          for i, n in enumerate(names)]
    >>> [(k[1], k[2]) for k in modifier_dropped_keys(keyed)]
    [(' ganglion cell ', 'x:0'), (' retin cell ', 'x:0')]
    >>> modifier_dropped_keys([("folded", " regul of cell ", "x:r", "regulation of cell",
    ...                         "label")])  # a phrase, no compound: no key
    []
    """
    units = {iri for which, _, iri, _, _ in keyed if which == UNIT_MARK}
    every_key = {key for which, key, _, _, _ in keyed if which == "folded"}
    by_shorter: dict[str, list[KeyedForm]] = {}
    for which, key, iri, form, kind in keyed:
        words = key.split()
        if (which != "folded" or kind not in NAMING_KINDS or len(words) < 3
                or iri in units or not _noun_compound(form, words)):
            continue
        for i in range(len(words) - 1):
            shorter = f" {' '.join(words[:i] + words[i + 1:])} "
            if shorter not in every_key:
                by_shorter.setdefault(shorter, []).append(
                    ("folded", shorter, iri, form, FormKind.ELLIPTIC.value))
    return _held_by_few(by_shorter, MODIFIER_MAX_TERMS)


_LINKING_WORDS = frozenset({
    "per", "via", "between", "within", "without", "during", "after", "before", "against",
    "toward", "towards", "through", "across", "among", "upon", "about", "above", "below",
    "beyond", "near", "like", "along", "around", "onto", "versus", "involved", "using"})
"""Words that link the parts of a name ("joule per kilogram", "splicing via spliceosome")
rather than modify its head, beside the function words (``STOPWORDS``)."""


def _noun_compound(form: str, key_words: Sequence[str]) -> bool:
    """Whether a name is a compound of content words, each of three letters or more
    ("retinal ganglion cell"), whose words are its key's ("regulation of growth",
    "joule per kilogram" are phrases; "T-cell receptor" keys no word for "T")."""
    said = [word.casefold() for word in word_texts(form)]
    return len(said) == len(key_words) and all(
        word.isalpha() and len(word) >= 3 and word not in STOPWORDS
        and word not in _LINKING_WORDS for word in said)


def local_genus_names(keyed: Sequence[KeyedForm], taken: AbstractSet[str],
                      units: AbstractSet[str] = frozenset()
                      ) -> dict[str, list[tuple[str, str]]]:
    """The local names that name their terms on their own, by key: of terms no label
    or exact synonym names in words (a label in another language is mostly written
    like its IRI, "CoberturaDeMozzarella", and keyed exact) and that are no ``units``;
    two words or more, letters only, written as a class's ("Mozzarella Topping" of
    *MozzarellaTopping*; not the codes of QUDT's dimension vectors, nor a relation's
    "has Start Selector"), under a key no label or exact synonym of the version has
    (``taken``).

    >>> keyed = [("folded", " mozzarella top ", "x:MozzarellaTopping", "Mozzarella Topping",
    ...           "local_name"), ("folded", " a 1 e0 ", "x:A-1E0", "A-1E0", "local_name")]
    >>> local_genus_names(keyed, set())
    {' mozzarella top ': [('x:MozzarellaTopping', 'Mozzarella Topping')]}
    """
    worded = {iri for which, _, iri, _, kind in keyed
              if which == "folded" and kind in NAMING_KINDS}
    found: dict[str, list[tuple[str, str]]] = {}
    for which, key, iri, form, kind in keyed:
        if (which == "folded" and kind == FormKind.LOCAL_NAME.value and iri not in worded
                and key.count(" ") >= 3 and key not in taken and iri not in units
                and _class_shaped(form)):
            found.setdefault(key, []).append((iri, form))
    return found


def _class_shaped(form: str) -> bool:
    """A local name written as a class's, capitalized words of letters ("Mozzarella
    Topping"): a relation's is a verb phrase ("has Start Selector") and names no species
    of its last word."""
    return form[:1].isupper() and all(t.isalpha() for t in token_texts(form))
