"""Bounded load test of the HTTP API on loopback: N concurrent clients for S seconds.

Starts a real ``ontoretrieve serve`` over an existing data dir (the result
cache off unless ``--cache``, so every request does the work), sends a fixed
mix of retrieve / slice / lookup requests built from bench unit texts (seeded,
so two runs send the same requests), and reports requests/s, p50/p95/p99
latency per operation and errors. Run it with nothing else on the machine::

    python benchmarks/load_test.py --data-dir /work/data/bench \\
        --units ../shared/bench/units/measeval.jsonl --clients 8 --seconds 60

The figures go to stdout as markdown and, with ``--out FILE``, as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from ontoretrieve.bench.summary import percentile
from ontoretrieve.bench.units import read_units

MIX = (("retrieve", 0.6), ("slice", 0.2), ("lookup", 0.2))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _requests(texts: list[str], count: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    plan: list[tuple[str, dict[str, Any]]] = []
    for _ in range(count):
        text = rng.choice(texts)
        operation = rng.choices([m for m, _ in MIX], [w for _, w in MIX])[0]
        if operation == "retrieve":
            plan.append((operation, {"text": text}))
        elif operation == "slice":
            plan.append((operation, {"text": text, "max_tokens": 2000}))
        else:
            words = [w.strip(".,;:()") for w in text.split() if len(w.strip(".,;:()")) >= 3]
            plan.append((operation, {"mention": rng.choice(words) if words else text[:20]}))
    return plan


async def _client(base: str, plan: list[tuple[str, dict[str, Any]]], start: int, step: int,
                  deadline: float, tenant: str, samples: list[dict[str, Any]]) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        index = start
        while time.monotonic() < deadline:
            operation, body = plan[index % len(plan)]
            index += step
            began = time.perf_counter()
            try:
                response = await http.post(f"/v1/{tenant}/{operation}", json=body)
                status = response.status_code
            except httpx.HTTPError as exc:
                status = f"{type(exc).__name__}"
            samples.append({"op": operation, "ms": (time.perf_counter() - began) * 1000,
                            "status": status})


def run(args: argparse.Namespace) -> dict[str, Any]:
    texts = [u.text for u in read_units(args.units, Path(args.work)).units if u.text.strip()]
    plan = _requests(texts, 5000, args.seed)
    port = _free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "ONTORETRIEVE_SERVER__RESULT_CACHE_SIZE": "256" if args.cache else "0"}
    command = [sys.executable, "-m", "ontoretrieve", "serve", "--port", str(port),
               "--data-dir", str(args.data_dir)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(base + "/health", timeout=2)
                break
            except httpx.HTTPError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("serve did not start: " + (
                        server.stderr.read().decode() if server.stderr else "")) from None
                time.sleep(0.3)
        # Warm-up (model load, graph cache): not measured.
        warm: list[dict[str, Any]] = []
        asyncio.run(_client(base, plan[-50:], 0, 1, time.monotonic() + args.warm_up,
                            args.tenant, warm))
        samples: list[dict[str, Any]] = []

        async def all_clients() -> None:
            end = time.monotonic() + args.seconds
            await asyncio.gather(*(_client(base, plan, c, args.clients, end, args.tenant,
                                           samples) for c in range(args.clients)))

        began = time.perf_counter()
        asyncio.run(all_clients())
        wall = time.perf_counter() - began
    finally:
        server.terminate()
        server.wait(timeout=30)
    return summarize(samples, wall, args)


def summarize(samples: list[dict[str, Any]], wall: float, args: argparse.Namespace
              ) -> dict[str, Any]:
    ok = [s for s in samples if s["status"] == 200]
    errors: dict[str, int] = {}
    for s in samples:
        if s["status"] != 200:
            errors[str(s["status"])] = errors.get(str(s["status"]), 0) + 1

    def spread(rows: list[dict[str, Any]]) -> dict[str, float]:
        values = sorted(r["ms"] for r in rows)
        return {"n": len(values), "p50": round(percentile(values, 0.50), 1),
                "p95": round(percentile(values, 0.95), 1),
                "p99": round(percentile(values, 0.99), 1)}

    return {
        "date": time.strftime("%Y-%m-%d %H:%M"), "clients": args.clients,
        "seconds": round(wall, 1), "requests": len(samples),
        "requests_per_second": round(len(samples) / wall, 2), "errors": errors,
        "latency_ms": spread(ok),
        "by_operation": {op: spread([s for s in ok if s["op"] == op]) for op, _ in MIX},
        "result_cache": bool(args.cache), "data_dir": str(args.data_dir),
        "units": [str(u) for u in args.units],
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [f"{result['clients']} clients, {result['seconds']} s: {result['requests']} "
             f"requests, {result['requests_per_second']} req/s, errors {result['errors'] or 0}",
             "", "| operation | n | p50 ms | p95 ms | p99 ms |", "| --- | --- | --- | --- | --- |"]
    for name, s in [("all", result["latency_ms"]), *result["by_operation"].items()]:
        lines.append(f"| {name} | {s['n']} | {s['p50']} | {s['p95']} | {s['p99']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--units", type=Path, action="append", required=True)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warm-up", type=float, default=10)
    parser.add_argument("--tenant", default="default")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache", action="store_true", help="Leave the result cache on.")
    parser.add_argument("--work", default="/tmp/ontoretrieve-load-units")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    result = run(args)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(markdown(result))


if __name__ == "__main__":
    main()
