#!/bin/bash
# bench recall, seed 1, 300 units per source (856), default warm-up:
# one process and two workers, mirrored order, alone
export HF_HUB_OFFLINE=1 PYTHONPATH=/tmp/work/s49/pkg2
S=/work/shared/bench/units
r=0
for w in 1 2 2 1; do
  r=$((r+1)); start=$(date +%s.%N)
  /work/main/.venv/bin/python -m ontoretrieve bench recall --units $S/craft.jsonl --units $S/measeval.jsonl --units $S/t2k_dbpedia.jsonl --sample 300 --seed 1 --data-dir /work/data/bench --workers $w --out /tmp/work/s49/recall/w$w.$r --json > /tmp/work/s49/recall/w$w.$r.json 2> /tmp/work/s49/recall/w$w.$r.err
  rc=$?
  end=$(date +%s.%N)
  echo "run $r workers $w: rc $rc wall $(python3 -c "print(round($end-$start,1))") s"
done
