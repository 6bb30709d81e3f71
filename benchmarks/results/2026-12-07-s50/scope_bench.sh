#!/bin/bash
# Session 50: seeds.scoped_kept_per_window=40 (the new default) against 0 (before), paired.
# PKG: git archive of 6896a81 (the rule). The scoped CRAFT units come from
# craft_scoped_units.py (python craft_scoped_units.py ../shared/bench/units/craft.jsonl /tmp/work/s50).
# Then: ontoretrieve bench compare OUT/seeds.scoped_kept_per_window=0.jsonl OUT/base.jsonl --metric M
set -e
PKG=/tmp/work/s50/pkg_new
U=/work/shared/bench/units
run() { HF_HUB_OFFLINE=1 PYTHONPATH=$PKG /work/main/.venv/bin/python -m ontoretrieve bench recall "$@" --data-dir /work/data/bench2 --no-warm-up --workers 2 --sweep "seeds.scoped_kept_per_window=0"; }
cd /tmp
run --units $U/craft.jsonl --units $U/measeval.jsonl --units $U/t2k_dbpedia.jsonl --sample 300 --seed 1 --out /tmp/work/s50/scope_seed1
run --units $U/t2k_dbpedia.jsonl --sample 600 --seed 3 --out /tmp/work/s50/scope_t2k_seed3
run --units /tmp/work/s50/craft_go_scoped.jsonl --units /tmp/work/s50/craft_uberon_scoped.jsonl --out /tmp/work/s50/scope_craft
