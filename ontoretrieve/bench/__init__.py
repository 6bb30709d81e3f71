"""Recall and performance benchmarks as library code.

``units`` reads the unit layouts, ``runner`` runs variants of the engine over
them, ``summary`` computes the figures (pure), ``report`` writes tables, plots
and the HTML page, ``compare`` pairs two runs, ``perf`` measures throughput,
latency and memory at several catalog sizes. ``cli.bench`` is their shell.
"""
