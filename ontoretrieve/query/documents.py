"""The document a text comes from: the abbreviations it defines, read once per document.

A paper defines "brown adipose tissue (BAT)" at its first use and writes "BAT"
in the paragraphs after. A caller that retrieves paragraph by paragraph gives
each paragraph's document along with it (``Engine.retrieve(text,
document=...)``); the mention lane then reads the document's abbreviations in
the paragraph (``MentionDictionary.find``'s ``defined``). Reading a document's
definitions costs a scan of the whole document, so the last few documents'
are kept: a loop over one document's paragraphs reads its definitions once.

>>> defined = defined_in("Brown adipose tissue (BAT) grew. Later, BAT shrank.")
>>> dict(defined)
{'BAT': ('brown', 'adipos', 'tissu')}
>>> document_key(None), document_key("a paper")
('', '9231cd9150e63f73')

Units that carry a document id (``doc_id`` in ``annotate`` and ``bench recall``
files) are paragraphs of one document, in the order given:

>>> joined_documents([("d1", "Brown adipose tissue (BAT)."), (None, "x"), ("d1", "BAT.")])
{'d1': 'Brown adipose tissue (BAT).\\n\\nBAT.'}
>>> document_id(17), document_id(None)
('17', None)
>>> documents_per_text(["a", "b"], None)
[None, None]
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Sequence
from types import MappingProxyType

from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.index.mention_match import Abbreviations, document_abbreviations

__all__ = ["DOCUMENT_HELP", "defined_in", "document_id", "document_key", "documents_per_text",
           "joined_documents"]

DOCUMENT_HELP = ("The whole text the text is part of (a paper, the text one of its "
                 "paragraphs): the abbreviations it defines are read in the text too "
                 "(\"BAT\" as the brown adipose tissue another paragraph defines).")
"""What a document is, as the surfaces' help says it."""

_KEPT_DOCUMENTS = 16
"""How many documents' definitions stay read (a batch interleaves a few documents)."""


@functools.lru_cache(maxsize=_KEPT_DOCUMENTS)
def defined_in(document: str) -> Abbreviations:
    """The abbreviations ``document`` defines, first definition first (read-only)."""
    return MappingProxyType({short: tuple(keys)
                             for short, keys in document_abbreviations([document]).items()})


@functools.lru_cache(maxsize=_KEPT_DOCUMENTS)
def document_key(document: str | None) -> str:
    """A short digest of the document for cache keys ("" for none): a paragraph's
    context depends on the document it is read with."""
    if not document:
        return ""
    return hashlib.blake2b(document.encode("utf-8"), digest_size=8).hexdigest()


def joined_documents(units: Iterable[tuple[str | None, str]]) -> dict[str, str]:
    """Per document id, the texts of its units (``(doc_id, text)``; None: no document)
    in the order given, one paragraph each."""
    parts: dict[str, list[str]] = {}
    for doc_id, text in units:
        if doc_id is not None:
            parts.setdefault(doc_id, []).append(text)
    return {doc_id: "\n\n".join(texts) for doc_id, texts in parts.items()}


def document_id(value: object) -> str | None:
    """A unit's ``doc_id`` as given in a units file: a string or a number (as its
    string), or None for none.

    Raises:
        TypeError: any other value (the caller names the file and line).
    """
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    raise TypeError(type(value).__name__)


def documents_per_text(texts: Sequence[str], documents: Sequence[str | None] | None
                       ) -> list[str | None]:
    """Each text's document (None: none; no list at all: none for every text).

    Raises:
        OntoRetrieveError: ``documents`` is one string, or not one per text.
    """
    if documents is None:
        return [None] * len(texts)
    if isinstance(documents, str) or len(documents) != len(texts):
        given = "one string" if isinstance(documents, str) else f"{len(documents)} documents"
        raise OntoRetrieveError(f"retrieve_many takes one document (or None) per text: "
                                f"{given} for {len(texts)} texts")
    return list(documents)
