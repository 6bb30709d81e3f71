#!/bin/bash
# Session 51 probe: scope-alone seeds of one level (no hub, no promotion or closure), against today's.
PKG=/tmp/work/s51/pkg_probe
cd /tmp
run() { out=$1; shift; HF_HUB_OFFLINE=1 PYTHONPATH=$PKG /work/main/.venv/bin/python -m ontoretrieve bench recall "$@" --data-dir /work/data/bench2 --workers 1 --out $out; }
for v in 0 1; do
  if [ $v = 1 ]; then export PROBE_LIGHT=1; else unset PROBE_LIGHT; fi
  run /tmp/work/s51/probe_t2k_$v --units /work/shared/bench/units/t2k_dbpedia.jsonl --sample 300 --seed 1
  run /tmp/work/s51/probe_go_$v --units /tmp/work/s50/craft_go_150.jsonl
done
