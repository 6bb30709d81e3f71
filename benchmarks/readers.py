"""Readers beside a writer on one data directory: what each costs.

    python benchmarks/readers.py --data-dir DATA [--out FILE]

Starts ``ontoretrieve serve`` on ``DATA`` (the writer: it holds the store and
the shard), then times, each in a process of its own as a user would run them:
``catalog list``, ``index status``, and ``lookup`` twice (the first makes the
replica of the shard, the second reuses it); a second writer (``catalog load``)
refused; the replica's size against the shard's; and an MCP server over stdio
answering a lookup beside the HTTP one. ``DATA`` is not changed but for the
replica under ``index/<tenant>/readers/``, removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ENV = {**os.environ, "HF_HUB_OFFLINE": "1"}


def _timed(*args: str) -> dict[str, Any]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ontoretrieve", *args], capture_output=True,
                          text=True, env=ENV, timeout=3600)
    return {"command": " ".join(args[:2]), "exit": done.returncode,
            "seconds": round(time.perf_counter() - started, 2),
            "stderr": done.stderr.strip().splitlines()[-1:] if done.returncode else []}


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


async def _mcp_lookup(data_dir: Path) -> float:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, env=ENV,
                                   args=["-m", "ontoretrieve", "mcp", "--data-dir",
                                         str(data_dir)])
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("lookup", {"mention": "mV"})
        assert not result.is_error, result.content
    return round(time.perf_counter() - started, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    data: Path = args.data_dir
    tenant = data / "index" / "default"
    state = json.loads((tenant / "state.json").read_text())
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "ontoretrieve", "serve", "--data-dir",
                               str(data), "--host", "127.0.0.1", "--port", str(port)],
                              stderr=subprocess.DEVNULL, env=ENV)
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                httpx.get(f"{url}/health", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        started = time.perf_counter()
        httpx.post(f"{url}/v1/default/lookup", json={"mention": "mV"}, timeout=600)
        writer_first = round(time.perf_counter() - started, 2)
        runs = [_timed("catalog", "list", "--data-dir", str(data), "--json"),
                _timed("index", "status", "--data-dir", str(data), "--json"),
                _timed("lookup", "mV", "--data-dir", str(data), "--json"),
                _timed("lookup", "mV", "--data-dir", str(data), "--json"),
                _timed("catalog", "load", str(data / "nothing-here"), "--data-dir", str(data))]
        runs[2]["command"] += " (makes the replica)"
        runs[3]["command"] += " (reuses it)"
        mcp_seconds = asyncio.run(_mcp_lookup(data))
        replicas = [p for p in (tenant / "readers").iterdir() if p.is_dir()]
        record = {
            "data_dir": str(data), "atoms": state.get("points"),
            "shard_mib": round(_size(tenant / state["location"]) / 2**20, 1),
            "replica_mib": round(sum(_size(r) for r in replicas) / 2**20, 1),
            "writer_first_lookup_seconds": writer_first, "runs": runs,
            "mcp_stdio_lookup_seconds": mcp_seconds,
            "date": time.strftime("%Y-%m-%d %H:%M")}
    finally:
        server.terminate()
        server.wait(timeout=60)
    shutil.rmtree(tenant / "readers", ignore_errors=True)
    text = json.dumps(record, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
