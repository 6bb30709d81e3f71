#!/bin/bash
# usage: variants.sh DATA OUTDIR ROUNDS  -- runs annotate variants in turn, prints rates
DATA=$1; OUT=$2; ROUNDS=$3
mkdir -p $OUT
for r in $(seq 1 $ROUNDS); do
  for v in base pin bt256 pinbt256; do
    rm -f $OUT/$v.jsonl
    case $v in
      base) ENVS="";;
      pin) ENVS="ONTORETRIEVE_PIN=1";;
      bt256) ENVS="ONTORETRIEVE_EMBED__BATCH_TOKENS=256";;
      pinbt256) ENVS="ONTORETRIEVE_PIN=1 ONTORETRIEVE_EMBED__BATCH_TOKENS=256";;
    esac
    (cd /tmp && env HF_HUB_OFFLINE=1 PYTHONPATH=/tmp/work/s48/pkg_pin $ENVS /work/main/.venv/bin/python -m ontoretrieve annotate /tmp/work/s48/craft640.jsonl --out $OUT/$v.jsonl --workers 2 --data-dir $DATA --json > $OUT/$v.r$r.json 2> $OUT/$v.r$r.err)
    echo "$r $v $(python3 -c "import json,sys; d=json.load(open('$OUT/$v.r$r.json')); print({k:v for k,v in d.items() if 'second' in k or k in ('units','failed')})")"
  done
done
