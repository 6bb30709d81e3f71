#!/bin/bash
# the final code (6ddfc2a) against the reference profile: seed 1, 300 per source, paired
U=/work/shared/bench/units
for prof in defaults reference; do
  if [ $prof = reference ]; then export ONTORETRIEVE_CONFIG=reference; else unset ONTORETRIEVE_CONFIG; fi
  HF_HUB_OFFLINE=1 PYTHONPATH=/tmp/work/s49/pkg7 /work/main/.venv/bin/python -m ontoretrieve bench recall --units $U/craft.jsonl --units $U/measeval.jsonl --units $U/t2k_dbpedia.jsonl --sample 300 --seed 1 --data-dir /work/data/bench2 --no-warm-up --workers 2 --out /tmp/work/s49/final_$prof > /tmp/work/s49/final_$prof.log 2>&1
  echo "$prof rc=$?"
done
