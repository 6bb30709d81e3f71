"""Context recall, tokens and seeds per source for several ``bench recall`` runs side by side.

Recall at each budget counts the gold IRIs in the context cut to that many tokens (every
variant of a gold term counted, so MeasEval can pass 100 %; the runs' own summary.md
counts terms). For a quick look while sweeping; the figures of record are ``bench
compare``'s.

    python budgets.py RUN_A.jsonl RUN_B.jsonl ...
"""

import json
import sys

BUDGETS = ("500", "1000", "2000", "4000", "8000")


def load(path: str) -> dict[str, dict]:
    with open(path, encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    return {row["id"]: row for row in rows}


def described(run: dict[str, dict], ids: list[str], gold_terms: int) -> str:
    at = [100 * sum(len(run[i]["gold_at_tokens"][b]) for i in ids) / gold_terms
          for b in BUDGETS]
    found = sum(sum(1 for g in run[i]["gold"] if set(g) & set(run[i]["context_subjects"]))
                for i in ids)
    tokens = sum(run[i]["context_tokens"] for i in ids) / len(ids)
    seeds = sum(len(run[i]["retrieved_term_iris"]) for i in ids) / len(ids)
    return (f"[ctx {100 * found / gold_terms:.1f} tok {tokens:.0f} seeds {seeds:.1f} | "
            + " ".join(f"{x:.1f}" for x in at) + "]")


runs = [load(path) for path in sys.argv[1:]]
for source in ("craft", "measeval", "text2kg", "all"):
    ids = [i for i in runs[0] if source == "all" or runs[0][i]["source"] == source]
    gold_terms = sum(len(runs[0][i]["gold"]) for i in ids)
    print(source, *(described(run, ids, gold_terms) for run in runs))
