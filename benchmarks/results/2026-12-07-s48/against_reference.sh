#!/bin/bash
U=/work/shared/bench/units
for prof in defaults reference; do
  if [ $prof = reference ]; then export ONTORETRIEVE_CONFIG=reference; else unset ONTORETRIEVE_CONFIG; fi
  HF_HUB_OFFLINE=1 PYTHONPATH=/tmp/work/s48/pkg_fin /work/main/.venv/bin/python -m ontoretrieve bench recall --units $U/craft.jsonl --units $U/measeval.jsonl --units $U/t2k_dbpedia.jsonl --sample 300 --seed 1 --data-dir /work/data/bench2 --no-warm-up --out /tmp/work/s48/seed1_$prof > /tmp/work/s48/seed1_$prof.log 2>&1
  echo "$prof rc=$?"
done
