"""Benchmark: slow and half-open clients against a real ``ontoretrieve serve``.

Opens ``--connections`` sockets to the server: half send nothing, half send a
request head one byte every two seconds (each byte would reset an idle
timer). Meanwhile it asks ``/health`` and one retrieve like a normal client,
then waits for the server to let the slow ones go and reports when it did.

    python benchmarks/reliability/slow_clients.py --data-dir DIR [--connections 500]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start(data_dir: Path, port: int, deadline: float) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "ONTORETRIEVE_SERVER__READ_DEADLINE_SECONDS": str(deadline)}
    process = subprocess.Popen([sys.executable, "-m", "ontoretrieve", "serve", "--data-dir",
                                str(data_dir), "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    for _ in range(600):
        try:
            httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
            return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("serve did not start")


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _closed(connection: socket.socket) -> bool:
    try:
        return connection.recv(1024) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--connections", type=int, default=500)
    parser.add_argument("--deadline", type=float, default=30.0,
                        help="server.read_deadline_seconds for the server")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    port = _free_port()
    server = _start(args.data_dir, port, args.deadline)
    url = f"http://127.0.0.1:{port}"
    client = httpx.Client(base_url=url, timeout=60)
    client.post("/v1/default/retrieve", json={"text": "a 5 mV signal"})  # warm
    rss_before = _rss_mib(server.pid)
    opened = time.monotonic()
    silent, trickling = [], []
    for i in range(args.connections):
        connection = socket.create_connection(("127.0.0.1", port))
        connection.setblocking(False)
        (silent if i % 2 else trickling).append(connection)
    head = b"POST /v1/default/retrieve HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n"
    health, retrieves = [], []
    closed_at: dict[int, float] = {}
    sent = 0
    while time.monotonic() - opened < args.deadline + 15:
        if sent < len(head):  # one byte every two seconds on every trickling socket
            for connection in trickling:
                if id(connection) not in closed_at:
                    try:
                        connection.send(head[sent:sent + 1])
                    except OSError:
                        closed_at[id(connection)] = time.monotonic() - opened
            sent += 1
        started = time.perf_counter()
        client.get("/health")
        health.append(time.perf_counter() - started)
        started = time.perf_counter()
        client.post("/v1/default/retrieve", json={"text": "a 5 mV signal for 4 days"})
        retrieves.append(time.perf_counter() - started)
        for connection in silent + trickling:
            if id(connection) not in closed_at and _closed(connection):
                closed_at[id(connection)] = time.monotonic() - opened
        time.sleep(2)
    rss_held = _rss_mib(server.pid)
    found: dict[str, Any] = {
        "connections": args.connections, "deadline_seconds": args.deadline,
        "closed_by_server": len(closed_at),
        "closed_after_seconds": {"min": round(min(closed_at.values(), default=0), 1),
                                 "max": round(max(closed_at.values(), default=0), 1)},
        "health_ms": {"p50": round(1000 * statistics.median(health), 1),
                      "max": round(1000 * max(health), 1), "requests": len(health)},
        "retrieve_ms": {"p50": round(1000 * statistics.median(retrieves), 1),
                        "max": round(1000 * max(retrieves), 1), "requests": len(retrieves)},
        "server_rss_mib": {"before": round(rss_before), "while_held": round(rss_held)},
    }
    for connection in silent + trickling:
        connection.close()
    client.close()
    server.terminate()
    server.wait(timeout=30)
    print(json.dumps(found, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(found, indent=2) + "\n")


if __name__ == "__main__":
    main()
