#!/bin/bash
export HF_HUB_OFFLINE=1 PYTHONPATH=/tmp/work/s49/pkg
U=/tmp/work/s48/craft640.jsonl
for r in 1; do
/usr/bin/time -f "loop: %e s wall %U user %S sys" /work/main/.venv/bin/python /tmp/work/s49/loop.py $U /tmp/work/s49/cpu_loop.jsonl /work/data/bench
/usr/bin/time -f "annotate w1: %e s wall %U user %S sys" /work/main/.venv/bin/ontoretrieve annotate $U --out /tmp/work/s49/cpu_w1.jsonl --data-dir /work/data/bench --workers 1 --json; rm -f /tmp/work/s49/cpu_w1.jsonl; echo
/usr/bin/time -f "annotate w2: %e s wall %U user %S sys" /work/main/.venv/bin/ontoretrieve annotate $U --out /tmp/work/s49/cpu_w2.jsonl --data-dir /work/data/bench --workers 2 --json; rm -f /tmp/work/s49/cpu_w2.jsonl; echo
done
