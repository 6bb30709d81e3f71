"""Recall benchmarks as library code: paired comparison of runs (more to come, issue 6)."""
