"""Token counts for context budgets: a fast estimate of a language model's tokenizer.

A context is meant for a language model's prompt, so its budget is counted
in that model's tokens, not in the dense encoder's WordPiece tokens (which
overstate GPT-4's count of a Turtle context by about 1.1-1.2x). No LLM tokenizer
ships with ontoretrieve (their vocabularies are large and each vendor's
differs), so the default counter is an estimate: a linear formula over
letters-words, long-word letters, digits, punctuation and lines, fitted to
the largest of three BPE tokenizers (OpenAI cl100k_base and o200k_base,
Anthropic's published Claude tokenizer) on Turtle contexts of the dev suite.
Measured on held-out contexts (benchmarks/RESULTS.md, "Token estimate"): about
5 % above the Claude tokenizer's count on average and 17 % above GPT-4's, at
worst 6 % under either, so a budget in estimated tokens rarely overflows a
real prompt. A caller who
knows the model passes its own counter instead (``Engine.retrieve(...,
count_tokens=...)``).

>>> estimate_tokens("")
0
>>> estimate_tokens('unit:MilliV rdfs:label "millivolt"@en .') in range(10, 16)
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from ontoretrieve.settings.groups import TokenCounterKind

__all__ = ["TokenCounter", "TokenCounterKind", "counter_for", "estimate_tokens"]

TokenCounter = Callable[[str], int]
"""Tokens of one text, as the prompt's model would count them."""


_WORD = re.compile(r"[A-Za-z]+")
# Punctuation and every letter outside ASCII count alike: BPE spends about a token on
# each (accented and non-Latin letters are rare in its merges).
_LONG_WORD = 6
"""BPE vocabularies hold most words up to about six letters whole; longer ones split."""

# Fitted by least relative error to max(cl100k, o200k, Claude) over 180 Turtle texts
# (benchmarks/token_estimate.py); rounded.
_PER_WORD = 0.77
_PER_LONG_LETTER = 0.376
_PER_DIGIT = 0.41
_PER_PUNCTUATION = 0.99
_PER_LINE = 3.8
"""A Turtle line break carries its indentation, one or two tokens more."""


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text`` for a large language model's BPE tokenizer.

    >>> estimate_tokens("The probe recorded a 5 mV signal for 4-15 days.") in range(10, 16)
    True
    """
    if not text:
        return 0
    words = _WORD.findall(text)
    letters = sum(map(len, words))
    long_letters = sum(len(w) - _LONG_WORD for w in words if len(w) > _LONG_WORD)
    digits = sum(map(text.count, "0123456789"))
    # Everything else that is not white space: punctuation and non-ASCII letters
    # (counted with str.count, several times faster than a regex on short texts).
    punctuation = len(text) - letters - digits - sum(map(text.count, " \t\n\r\f\v"))
    estimate = (_PER_WORD * len(words) + _PER_LONG_LETTER * long_letters
                + _PER_DIGIT * digits + _PER_PUNCTUATION * punctuation
                + _PER_LINE * text.count("\n"))
    return max(1, math.ceil(estimate))


def counter_for(kind: TokenCounterKind, encoder: Callable[[], TokenCounter]) -> TokenCounter:
    """The counter of ``kind``; ``encoder`` gives the encoder's, asked only when needed (it
    loads the model's tokenizer).

    >>> counter_for(TokenCounterKind.ESTIMATE, lambda: len) is estimate_tokens
    True
    """
    return encoder() if kind == TokenCounterKind.ENCODER else estimate_tokens
