#!/bin/bash
# Session 50: latency of the new scoped cut, alone, one process (bench recall's p50/p95).
PKG=/tmp/work/s50/pkg_new
cd /tmp
for units in "/work/shared/bench/units/t2k_dbpedia.jsonl --sample 300 --seed 1" "/tmp/work/s50/craft_go_150.jsonl"; do
  HF_HUB_OFFLINE=1 PYTHONPATH=$PKG /work/main/.venv/bin/python -m ontoretrieve bench recall --units $units --data-dir /work/data/bench2 --workers 1 --sweep "seeds.scoped_kept_per_window=0,40" --out /tmp/work/s50/latency_$(basename ${units%% *} .jsonl)
done
