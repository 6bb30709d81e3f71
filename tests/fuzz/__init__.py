"""Fuzzers of everything that takes outside input (hypothesis)."""

import os

SCALE = int(os.environ.get("FUZZ_SCALE", "1"))
"""FUZZ_SCALE=50 runs 50x every fuzzer's examples for a longer sweep (benchmarks/RESULTS.md)."""
