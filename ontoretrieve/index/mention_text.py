"""Text normalization shared by the mention lane's forms and its queries.

Pure. A text and a surface form are cut into the same tokens, so that a form
names a span exactly when its token keys occur, in order and whole, among the
text's token keys:

- tokens are runs of letters or of digits (``BRCA1`` -> ``BRCA`` ``1``,
  ``5mV`` -> ``5`` ``mV``), or one punctuation character; hyphens, slashes
  and underscores separate tokens, so "T-cell", "T cell" and "T_cell" agree;
- a word a line break splits with a hyphen ("mito-\\nchondrial") is one token,
  spanning both halves (``page_text``; a compound's own hyphen stays);
- the text is NFKC-normalized first (``ﬁ`` -> ``fi``, ``µ`` -> ``μ``), one
  character at a time so that every token keeps its offsets in the original,
  and soft hyphens and zero-width characters are dropped;
- the *folded* key of a word token is its case-folded Snowball English stem
  ("Cells" -> ``cell``, "signalling" -> ``signal``), Greek letters spelled
  out first ("TGF-β" -> ``tgf`` ``beta``, as OBO names write it) and British
  spellings made American ("tumours" -> ``tumor``: ``spelling``); punctuation
  has no folded key, so "T-cell" and "T cell" agree;
- the *exact* key keeps the case (for symbols: ``mV`` is not ``MV``) and the
  punctuation (``m/s``), and drops a plural "s" after a capital or a digit
  ("ESTs" -> ``EST``).

>>> [t.text for t in tokenize("The 5mV T-cell (BRCA1)")]
['The', '5', 'mV', 'T', '-', 'cell', '(', 'BRCA', '1', ')']
>>> folded_keys(tokenize("Embryonic stem cells"))
['embryon', 'stem', 'cell']
>>> exact_key("ESTs")
'EST'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import Stemmer

from ontoretrieve.index.commonness import commonness
from ontoretrieve.index.page_text import INVISIBLE, line_break_hyphens
from ontoretrieve.index.spelling import american_spelling

__all__ = [
    "STOPWORDS",
    "Token",
    "agent_verb_forms",
    "exact_key",
    "fold_word",
    "folded_keys",
    "gerund_bases",
    "greek_roots",
    "is_stopword_phrase",
    "may_derive",
    "noun_only",
    "plurals",
    "root_word",
    "token_texts",
    "tokenize",
    "unit_letter",
    "verb_forms",
    "word_texts",
]

# Runs of letters (with combining marks), runs of digits, or one other visible character.
_TOKEN = re.compile(r"(?:[^\W\d_]|[\u0300-\u036f])+|\d+|[^\w\s]", re.UNICODE)

STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "been", "being", "but", "by", "can", "could",
    "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "his", "i", "if",
    "in", "into", "is", "it", "its", "itself", "may", "might", "more", "most", "no", "nor",
    "not", "of", "on", "or", "our", "she", "should", "so", "some", "such", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "too",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why",
    "will", "with", "would", "you", "your", "all", "any", "both", "each", "few", "other",
    "over", "under", "very", "also", "only", "same", "just", "own", "out", "up", "down", "off",
    "again", "further", "once", "here", "how", "one", "two",
})
"""English function words. A form made only of them ("IS", "ARE", "all", a genus
labelled "This") names nothing in ordinary text, whatever its case."""

_STEMMER = Stemmer.Stemmer("english")


@dataclass(frozen=True, slots=True)
class Token:
    """One token of a text, with its character offsets in the original text."""

    text: str
    """NFKC-normalized."""
    start: int
    end: int

    @property
    def is_word(self) -> bool:
        return self.text[0].isalnum()


def tokenize(text: str) -> list[Token]:
    """Tokens of ``text`` with offsets into ``text`` itself (not its NFKC form).

    >>> [(t.text, t.start, t.end) for t in tokenize("ﬁn 4-15")]
    [('fin', 0, 2), ('4', 3, 4), ('-', 4, 5), ('15', 5, 7)]
    """
    normalized, origin = _nfkc_with_origin(text)
    tokens = []
    for match in _TOKEN.finditer(normalized):
        start, end = match.span()
        tokens.append(Token(match.group(), origin[start], origin[end - 1] + 1))
    breaks = line_break_hyphens(text)
    return _joined_across(tokens, dict(breaks)) if breaks else tokens


def token_texts(text: str) -> list[str]:
    """The texts of ``tokenize(text)``'s tokens, without their offsets: a name's words
    when a key is made from it (``mention_keys`` asks it of every name of a version).

    Most names are ASCII on one line, where NFKC changes nothing and no line break joins
    a word, so the tokens are the pattern's matches as they stand: about a third of
    ``tokenize``'s time, which makes a ``Token`` of each.

    >>> token_texts("T-cell (BRCA1)"), token_texts("ﬁn")
    (['T', '-', 'cell', '(', 'BRCA', '1', ')'], ['fin'])
    """
    if text.isascii() and "\n" not in text:
        return _TOKEN.findall(text)
    return [t.text for t in tokenize(text)]


def word_texts(text: str) -> list[str]:
    """The texts of ``tokenize(text)``'s word tokens (``Token.is_word``).

    >>> word_texts("The 5mV T-cell (BRCA1)")
    ['The', '5', 'mV', 'T', 'cell', 'BRCA', '1']
    """
    return [t for t in token_texts(text) if t[0].isalnum()]


def _joined_across(tokens: list[Token], breaks: dict[int, int]) -> list[Token]:
    """The tokens with the halves of each word a line break splits made one token, which
    spans both halves in the original text (``breaks``: hyphen offset -> next letter's).

    >>> [(t.text, t.start, t.end) for t in tokenize("a mito-\\nchondrion")]
    [('a', 0, 1), ('mitochondrion', 2, 17)]
    >>> [t.text for t in tokenize("apop\\u00ad\\ntosis cell-\\nmediated")]  # a soft hyphen
    ['apoptosis', 'cell', '-', 'mediated']
    """
    joined: list[Token] = []
    position = 0
    while position < len(tokens):
        token = tokens[position]
        tail_start = breaks.get(joined[-1].end, -1) if joined else -1
        if tail_start >= 0 and token.start < tail_start and position + 1 < len(tokens):
            position += 1  # the hyphen's own token (a soft hyphen has none)
            token = tokens[position]
        if token.start == tail_start:
            head = joined.pop()
            joined.append(Token(head.text + token.text, head.start, token.end))
        else:
            joined.append(token)
        position += 1
    return joined


def _nfkc_with_origin(text: str) -> tuple[str, list[int]]:
    """NFKC of ``text`` without the characters that only hint at a line break or a
    join (``page_text.INVISIBLE``: a soft hyphen inside "mito\\u00adchondrial"), and,
    per output character, the input character it came from."""
    if text.isascii():
        return text, list(range(len(text)))
    parts: list[str] = []
    origin: list[int] = []
    for position, char in enumerate(text):
        normal = "" if char in INVISIBLE else unicodedata.normalize("NFKC", char)
        parts.append(normal)
        origin.extend([position] * len(normal))
    return "".join(parts), origin


_GREEK_NAMES = {code: unicodedata.name(chr(code)).rsplit(" ", 1)[-1].lower()
                .replace("lamda", "lambda")  # Unicode's spelling, not the catalogs'
                for code in range(0x3B1, 0x3CA) if code != 0x3C2}  # alpha .. omega
"""The Greek small letters and the English names the catalogs spell them with (case
folding makes a final sigma a sigma, NFKC the symbol variants of theta, phi and epsilon
their letters)."""


@lru_cache(maxsize=200_000)
def fold_word(word: str) -> str:
    """The folded key of one word token: case-folded, Greek letters spelled out as the
    catalogs write them ("TGFβ" as "TGFbeta", "β" as "beta", "Δ" as "delta"), in
    American spelling (``american_spelling``: "haemostasis" as "hemostasis"), then
    stemmed.

    >>> [fold_word(w) for w in ["Nuclei", "days", "IS", "signalling"]]
    ['nuclei', 'day', 'is', 'signal']
    >>> [fold_word(w) for w in ["tumours", "tumors", "Metre", "meters"]]
    ['tumor', 'tumor', 'meter', 'meter']
    >>> [fold_word(w) for w in ["β", "TGFβ", "κB", "Δ"]]
    ['beta', 'tgfbeta', 'kappab', 'delta']
    """
    folded = word.casefold()
    if not folded.isascii():  # a text's Greek letter for an OBO name's "alpha", "beta"
        folded = folded.translate(_GREEK_NAMES)
    if not folded.isalpha() or len(folded) <= 3:
        return folded
    stem: str = _STEMMER.stemWord(american_spelling(folded))
    return stem


_ROOT_SUFFIXES = ("ation", "ition", "ium", "ion", "ian", "ial", "ori", "ar", "al", "ic", "on",
                  "um", "us", "ae", "a", "e", "i", "o", "y")
_ROOT_MIN = 5


@lru_cache(maxsize=200_000)
def root_word(word: str) -> str:
    """A derivational root of a folded word, for the mention lane's weakest key.

    Snowball stems inflections ("nuclei" is not "nucleus"'s stem, "nuclear"
    neither); stripping noun and adjective endings from the stem while at
    least five letters remain joins a term's name and the adjective or plural
    a text uses for it. Applied the same way to forms and text.

    >>> [root_word(fold_word(w)) for w in ["nuclear", "nucleus", "nuclei"]]
    ['nucle', 'nucle', 'nucle']
    >>> [root_word(fold_word(w)) for w in ["embryonic", "embryo", "epithelial", "epithelium"]]
    ['embry', 'embry', 'epithel', 'epithel']
    >>> [root_word(fold_word(w)) for w in ["gene", "genetic", "cell", "cellular"]]
    ['gene', 'genet', 'cell', 'cellul']
    """
    root = word
    changed = True
    while changed:
        changed = False
        for suffix in _ROOT_SUFFIXES:
            if root.endswith(suffix) and len(root) - len(suffix) >= _ROOT_MIN:
                root = root[: -len(suffix)]
                changed = True
                break
    return root


def greek_roots(word: str) -> list[str]:
    """The Greek noun roots an adjective in -ic may stand for, beside its own root
    (``root_word``); none for other words.

    Greek nouns in -sis make adjectives in -tic ("mitosis", "mitotic"; "synapse",
    "synaptic"; "glycolysis", "glycolytic"; "morphogenesis", "morphogenetic") or
    plain -ic after -osis and -esis ("endocytosis", "endocytic"; "spermatogenesis",
    "spermatogenic"). The mention lane looks them up among Greek nouns' names only.

    >>> greek_roots("mitotic"), greek_roots("endocytic")[-2:], greek_roots("nuclear")
    (['mitos', 'mitotos', 'mitotes'], ['endocytos', 'endocytes'], [])
    >>> root_word(fold_word("mitosis")), root_word(fold_word("endocytosis"))
    ('mitos', 'endocytos')
    """
    if not word.casefold().endswith("ic"):  # most words: no folding, no root
        return []
    root = root_word(fold_word(word))
    greek = [root[:-1] + "s"] if root.endswith("t") else []
    return [*greek, root + "os", root + "es"]


_LATIN_ALTERNATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ical", ("ex", "ix")),  # cortex, cortical; cervix, cervical
    ("atic", ("as", "a")),  # pancreas, pancreatic; soma, somatic
    ("inal", ("en",)),  # abdomen, abdominal; lumen, luminal; semen, seminal
    ("ngeal", ("nx",)),  # pharynx, pharyngeal; larynx; phalanx, phalangeal
    ("geal", ("gus",)),  # esophagus, esophageal
    ("ular", ("le",)),  # vesicle, vesicular; ventricle, ventricular; follicle
)
"""Relational adjectives whose noun's stem alternates (Latin and Greek stems), longest
ending first (an adjective takes its longest ending's nouns only): the adjective's ending
and the noun endings it may stand for. Only stem alternations: an ending merely swapped on
a short stem (-al for -us, -um or -a; -ic or -ine for -us) reads common words as nouns
("spinal" as *Spinus*, "equal" as *Equus*, "static" as *status*, "thymine" as *thymus*:
in the dev suite 41 gold among 485 new matches, against 95 among 229 for these)."""

_LATIN_STEM_MIN = 3
"""Letters an adjective keeps before its ending ("apical" is left to its root: "ap" is no stem
to read a noun from)."""


@lru_cache(maxsize=50_000)
def latin_nouns(word: str) -> tuple[str, ...]:
    """The nouns a relational adjective may stand for when its noun's stem alternates, which
    ``root_word`` does not join; none for other words.

    Latin and Greek nouns keep an older stem in their adjectives: *cortex* makes
    "cortical", *pancreas* "pancreatic", *pharynx* "pharyngeal", *vesicle*
    "vesicular", *abdomen* "abdominal". The mention lane takes a candidate only
    when a term has it as a whole name (``MentionDictionary.find``).

    >>> latin_nouns("cortical"), latin_nouns("Pharyngeal"), latin_nouns("vesicular")
    (('cortex', 'cortix'), ('pharynx',), ('vesicle',))
    >>> latin_nouns("abdominal"), latin_nouns("rectal"), latin_nouns("cells")
    (('abdomen',), (), ())
    """
    folded = word.casefold()
    for ending, nouns in _LATIN_ALTERNATIONS:
        stem = folded[: -len(ending)]
        if folded.endswith(ending) and len(stem) >= _LATIN_STEM_MIN and stem.isalpha():
            return tuple(stem + noun for noun in nouns)  # the longest ending only
    return ()


AGENT_ENDINGS = ("er", "or")
"""Endings of English agent nouns (leader, builder, creator, editor)."""

_VERB_FORMS = ("VBD", "VBN", "VBZ")
"""Past, participle and third person: "led", "built", "written", "leads". Not the
base form nor the gerund, which are nouns as often ("lead", "found", "building")."""


@lru_cache(maxsize=4096)
def agent_verb_forms(noun: str) -> tuple[str, ...]:
    """The past, participle and third-person forms of the verb an agent noun is made
    from; none when no English verb is its base (LemmInflect's lexicon).

    A relation named by an agent noun is said with its verb: *leader* by "is led
    by" or "leads", *writer* by "written by" or "wrote", *creator* by "created".

    >>> agent_verb_forms("leader"), agent_verb_forms("writer")
    (('leads', 'led'), ('writes', 'written', 'wrote'))
    >>> agent_verb_forms("creator"), agent_verb_forms("member"), agent_verb_forms("cell")
    (('created', 'creates'), (), ())
    """
    if len(noun) < 5 or not (noun.isalpha() and noun.islower()) \
            or not noun.endswith(AGENT_ENDINGS):
        return ()
    stem = noun[:-2]
    return verb_forms((stem, stem + "e", noun[:-1]))  # lead-er, creat-or, write-r


def gerund_bases(word: str) -> tuple[str, ...]:
    """The verbs a word in -ing is the gerund of ("operating": operate), by LemmInflect's
    lexicon; none for another word. A relation named by a gerund and a noun
    (*operatingOrganisation*, *servingTemperature*) is said with the verb: "is operated
    by", "served".

    >>> gerund_bases("operating"), gerund_bases("building"), gerund_bases("ring")
    (('operate',), ('build',), ())
    """
    if len(word) < 6 or not word.endswith("ing") or not word.isalpha():
        return ()
    from lemminflect import getAllLemmas  # its lexicon loads on first use (0.2 s)

    return tuple(getAllLemmas(word, upos="VERB").get("VERB", ()))


def verb_forms(bases: Iterable[str]) -> tuple[str, ...]:
    """The past, participle and third-person forms (``_VERB_FORMS``) of each base that
    English knows as a verb (LemmInflect's lexicon), sorted.

    >>> verb_forms(["die", "succeed"]), verb_forms(["cel"])
    (('died', 'dies', 'succeeded', 'succeeds'), ())
    """
    from lemminflect import getAllInflections  # its lexicon loads on first use (0.2 s)

    forms: set[str] = set()
    for base in dict.fromkeys(bases):
        inflections = getAllInflections(base, upos="VERB")
        forms.update(form for tag in _VERB_FORMS for form in inflections.get(tag, ()))
    return tuple(sorted(forms))


@lru_cache(maxsize=50_000)
def noun_only(word: str) -> bool:
    """Whether English's lexicon knows a word as a noun and never as an adjective: the
    word a three-word name's species stands on ("cone" of *retinal cone cell*), not a
    second modifier ("bipolar", "red").

    >>> [noun_only(w) for w in ["cone", "rod", "bipolar", "red", "hippocampal", "cells"]]
    [True, True, False, False, False, True]
    """
    readings = _lexicon_readings(word)
    return readings is not None and _as_noun(readings) and "ADJ" not in readings


@lru_cache(maxsize=50_000)
def plurals(noun: str) -> tuple[str, ...]:
    """The plural forms of a noun in English's lexicon (LemmInflect's), lower case.

    >>> plurals("cone"), plurals("Nucleus")
    (('cones',), ('nuclei', 'nucleuses'))
    """
    from lemminflect import getInflection

    return tuple(form.casefold() for form in getInflection(noun.casefold(), "NNS"))


@lru_cache(maxsize=50_000)
def may_be_noun(word: str) -> bool:
    """Whether a word may be a noun: English's lexicon (LemmInflect's, of nouns, verbs,
    adjectives and adverbs) knows it as one, or knows it not at all and it is rare in
    everyday English (names, symbols, Latin: "BMP", "vagus"). "predicted", "spicy" and
    "metabolic" are only verbs or adjectives there; an everyday word the lexicon does not
    hold is a function word ("per", "via", "during": ``FUNCTION_WORD_COMMONNESS``).

    >>> [may_be_noun(w) for w in ["signaling", "muscle", "BMP", "predicted", "spicy", "per"]]
    [True, True, True, False, False, False]
    """
    readings = _lexicon_readings(word)
    if readings is None:
        return False
    if not readings:
        return commonness(word) < FUNCTION_WORD_COMMONNESS
    return _as_noun(readings)


def _lexicon_readings(word: str) -> Mapping[str, tuple[str, ...]] | None:
    """The parts of speech English's lexicon (LemmInflect's) knows a word as, by tag (empty:
    it does not know the word); None for no word it could hold (not all letters, under
    three letters, a stopword)."""
    if not word.isalpha() or len(word) < 3 or word.casefold() in STOPWORDS:
        return None
    from lemminflect import getAllLemmas  # its lexicon loads on first use (0.2 s)

    readings: Mapping[str, tuple[str, ...]] = getAllLemmas(word.casefold())
    return readings


def _as_noun(readings: Mapping[str, tuple[str, ...]]) -> bool:
    return "NOUN" in readings or "PROPN" in readings


FUNCTION_WORD_COMMONNESS = 4.0
"""Zipf frequency from which a word English's open-class lexicon does not hold is a
function word ("per" 5.4, "via" 5.0, "toward" 4.7), not a name ("BMP" 2.7, "vagus" 2.4,
"kinase" 3.3)."""


_DERIVED_ENDINGS = ("al", "ar", "ic", "ian", "ine", "ary", "ory", "ous", "i", "ae", "ia")
"""Endings of relational adjectives (nuclear, retinal, embryonic, mammalian, murine,
biliary, olfactory, fibrous) and of Latin and Greek plurals (nuclei, vertebrae,
epithelia)."""


def may_derive(word: str) -> bool:
    """Whether a text's word may stand for a term's name by derivation: a relational
    adjective or a Latin or Greek plural. A root shared with any other word joins
    unrelated ones ("candidate" and the yeast *Candida*, "complex" and the muscle
    *complexus*, "temperature" and *temperatura*): those words take a term's name as
    they are or not at all.

    >>> [may_derive(w) for w in ["nuclear", "Nuclei", "embryonic", "candidate", "complex"]]
    [True, True, True, False, False]
    """
    return word.casefold().endswith(_DERIVED_ENDINGS)


def folded_keys(tokens: Sequence[Token]) -> list[str]:
    """Folded keys of the word tokens (punctuation has none)."""
    return [fold_word(t.text) for t in tokens if t.is_word]


def exact_key(token: str) -> str:
    """The case-kept key of one token: a plural "s" after a capital or digit is dropped,
    except from a function word ("CAF-1 Is Essential": "Is" is no plural of the
    symbol "I" after a number; stopword forms name nothing, so no form's key changes).

    >>> [exact_key(t) for t in ["mRNAs", "ES", "mV", "Gs", "cells", "Is", "As"]]
    ['mRNA', 'ES', 'mV', 'G', 'cells', 'Is', 'As']
    """
    if (len(token) >= 2 and token.endswith("s") and (token[-2].isupper() or token[-2].isdigit())
            and token.casefold() not in STOPWORDS):
        return token[:-1]
    return token


def is_stopword_phrase(keys: Sequence[str]) -> bool:
    """True when every key is a function word (or there are none).

    >>> is_stopword_phrase(["is"]), is_stopword_phrase(["the", "cell"])
    (True, False)
    """
    return all(k.casefold() in STOPWORDS for k in keys)


_REFERENCE_WORDS = frozenset({
    "fig", "figs", "figure", "figures", "table", "tables", "panel", "panels", "plate",
    "plates", "scheme", "schemes", "eq", "eqs", "equation", "equations", "appendix", "movie",
    "movies", "video", "videos", "supplementary", "suppl", "supp"})
"""Words a figure, table or equation reference starts with ("Figure 8a,8b", "Eq. 3b")."""

_REFERENCE_CHAIN = frozenset({",", ";", ".", "&", "-", "\u2013", "and", "or", "to"})
"""What stands between the items of a reference list besides numbers and letters."""

_REFERENCE_REACH = 12
"""Tokens looked back from a number for the word its reference list starts with."""


def unit_letter(tokens: Sequence[Token], index: int) -> bool:
    """A one-letter token right after a number may name a unit there.

    Not when it is glued to the number and labels something instead: a capital
    ("Figure 1A", "3D", "13C", "16S": a panel, a dimension, an isotope; SI
    spaces "5 A"), a panel in a figure, table or equation reference ("Figure
    8a,8b", "Figs. 3a and 4c") or a citation's year suffix ("et al., 2006a",
    "Knox 1998b"). A glued lower-case letter elsewhere is a unit ("10m", "1.8g").

    >>> tokens = tokenize("Figure 1A at 5 A and 10m (Figure 8a,8b) after Pagani et al., 2006a")
    >>> [(tokens[i].text, unit_letter(tokens, i)) for i in (2, 5, 8, 12, 15, 24)]
    [('A', False), ('A', True), ('m', True), ('a', False), ('b', False), ('a', False)]
    """
    letter, number = tokens[index], tokens[index - 1]
    if index == 0 or number.end < letter.start or not number.text.isdigit():
        return True  # spaced, or not right after a number: nothing to read from the glue
    if letter.text[:1].isupper():
        return False
    before = _reference_head(tokens, index - 1)
    if before is None:
        return True
    word = before.text.casefold()
    if word in _REFERENCE_WORDS:
        return False
    year = len(number.text) == 4 and 1700 <= int(number.text) <= 2099
    return not (year and (word == "al" or before.text[:1].isupper()))


def _reference_head(tokens: Sequence[Token], index: int) -> Token | None:
    """The first word before the list of numbers, letters and separators ending at
    ``index`` (within ``_REFERENCE_REACH`` tokens), or None."""
    for position in range(index - 1, max(-1, index - 1 - _REFERENCE_REACH), -1):
        token = tokens[position]
        text = token.text
        if text.isdigit() or text in _REFERENCE_CHAIN or (len(text) == 1 and text.isalpha()):
            continue
        return token if token.is_word else None
    return None
