#!/bin/bash
# annotate on 640 CRAFT paragraphs, two workers, batch 64 vs 256, in turn, alone
export HF_HUB_OFFLINE=1 PYTHONPATH=/tmp/work/s49/pkg
for b in 64 256 256 64; do
  /work/main/.venv/bin/ontoretrieve annotate /tmp/work/s48/craft640.jsonl --out /tmp/work/s49/bs_$b.jsonl --data-dir /work/data/bench --batch $b --workers 2 --json > /tmp/work/s49/bs_$b.json 2>/dev/null
  echo "batch $b: $(python3 -c "import json;d=json.load(open('/tmp/work/s49/bs_$b.json'));print(d['units_per_second'], d['seconds'])")"
  rm -f /tmp/work/s49/bs_$b.jsonl
done
