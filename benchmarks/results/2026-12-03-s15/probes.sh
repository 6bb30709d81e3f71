#!/bin/sh
# The loop A/B and merge probes of session 15, as run (sequentially, nothing else running).
cd /work/main  # the checkout; /tmp/base: a worktree of the commit before (git worktree add /tmp/base daf3a15)
R=benchmarks/results/2026-12-03-s15
U=../shared/bench/units/craft.jsonl
for side in base new new base base new; do
  if [ $side = base ]; then P=/tmp/base; else P=; fi
  echo -n "$side " >> $R/probe-runs.txt
  HF_HUB_OFFLINE=1 CHECKOUT=$P .venv/bin/python $R/loop_probe.py /work/data/bench $U loop /tmp/probe_$side.json 2>> $R/probe-runs.txt
done
for side in base new; do
  if [ $side = base ]; then P=/tmp/base; else P=; fi
  echo -n "merge $side " >> $R/probe-runs.txt
  HF_HUB_OFFLINE=1 CHECKOUT=$P .venv/bin/python $R/merge_probe.py /work/data/bench $U 300 >> $R/probe-runs.txt 2>&1
done
cmp /tmp/probe_base.json /tmp/probe_new.json && echo "results equal (byte for byte)" >> $R/probe-runs.txt || echo "results DIFFER" >> $R/probe-runs.txt
echo done >> $R/probe-runs.txt
