#!/bin/bash
for w in auto 1; do
  rm -f /tmp/work/s48/full_$w.jsonl
  s=$(date +%s.%N)
  (cd /tmp && HF_HUB_OFFLINE=1 PYTHONPATH=/tmp/work/s48/pkg_new /work/main/.venv/bin/python -m ontoretrieve annotate /work/shared/bench/units/craft.jsonl --out /tmp/work/s48/full_$w.jsonl --workers $w --data-dir /work/data/bench --json > /tmp/work/s48/full_$w.json 2>/tmp/work/s48/full_$w.err)
  e=$(date +%s.%N)
  echo "workers=$w process_wall=$(python3 -c "print(round($e-$s,1))") $(python3 -c "import json;d=json.load(open('/tmp/work/s48/full_$w.json'));print({k:d[k] for k in ('units','annotated','failed','seconds','units_per_second','workers')})")"
done
