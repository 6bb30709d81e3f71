"""HTTP retrieval under load while the catalog changes: every answer from one catalog version.

Starts `ontoretrieve serve` on a data dir with the mini ontology (and QUDT
units), then runs reader clients that retrieve "a thermometer is a sensor"
while one writer applies a proposal adding Thermometer and rolls it back, over
and over. An answer is consistent when the version of the mini ontology it was
cut from (its snapshot) and its terms agree: Thermometer is there exactly when
the version is the one with Thermometer. Errors and inconsistencies: target 0.

    python benchmarks/reliability/load_during_updates.py --seconds 60 --out load.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
MINI = "http://example.org/mini"
THERMOMETER = f"{MINI}#Thermometer"
ADD = (f"<{THERMOMETER}> a <http://www.w3.org/2002/07/owl#Class> ; "
       f"<http://www.w3.org/2000/01/rdf-schema#label> \"thermometer\" ; "
       f"<http://www.w3.org/2000/01/rdf-schema#subClassOf> <{MINI}#Sensor> .")
ENV = {**os.environ, "HF_HUB_OFFLINE": "1"}


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ontoretrieve-load-") as tmp:
        data, folder = Path(tmp) / "data", Path(tmp) / "catalog"
        folder.mkdir()
        for name in ("mini.ttl", "qudt-units-subset.ttl"):
            shutil.copy(ROOT / "tests/fixtures" / name, folder / name)
        subprocess.run([sys.executable, "-m", "ontoretrieve", "index", "--catalog",
                        str(folder), "--data-dir", str(data)], check=True, env=ENV,
                       capture_output=True)
        port = _port()
        server = subprocess.Popen([sys.executable, "-m", "ontoretrieve", "serve", "--port",
                                   str(port), "--data-dir", str(data)], env=ENV,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    httpx.get(base + "/health", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.2)
            result = _run(base, args.seconds, args.readers)
        finally:
            server.terminate()
            server.wait(timeout=30)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


def _run(base: str, seconds: float, readers: int) -> dict[str, Any]:
    stop = threading.Event()
    lock = threading.Lock()
    tally: dict[str, Any] = {"reads": 0, "read_errors": {}, "inconsistent": 0,
                             "with_thermometer": 0, "applies": 0, "rollbacks": 0,
                             "write_errors": {}}
    versions_with: set[str] = set()

    def count(kind: str, key: str) -> None:
        with lock:
            tally[kind][key] = tally[kind].get(key, 0) + 1

    def reader() -> None:
        with httpx.Client(base_url=base, timeout=60) as http:
            while not stop.is_set():
                r = http.post("/v1/default/retrieve", json={
                    "text": "a thermometer is a sensor", "mode": "vector"})
                if r.status_code != 200:
                    count("read_errors", str(r.status_code))
                    continue
                context = r.json()
                mini = [c["content_hash"] for c in context["snapshot"]["cut_from"]
                        if c["ontology_iri"] == MINI]
                has = THERMOMETER in context["terms"]
                with lock:
                    tally["reads"] += 1
                    tally["with_thermometer"] += has
                    # one version per answer, and the terms agree with it
                    if len(mini) != 1 or has != (mini[0] in versions_with):
                        tally["inconsistent"] += 1

    def writer() -> None:
        with httpx.Client(base_url=base, timeout=300) as http:
            while not stop.is_set():
                listed = http.get("/v1/default/catalog").json()["ontologies"]
                current = next(v["content_hash"] for v in listed if v["ontology_iri"] == MINI)
                r = http.post("/v1/default/proposals/apply", json={"updates": [{
                    "ontology_iri": MINI, "base_hash": current, "add": ADD}]})
                if r.status_code != 200:
                    count("write_errors", str(r.status_code))
                    continue
                with lock:
                    versions_with.add(r.json()["applied"][0]["content_hash"])
                    tally["applies"] += 1
                time.sleep(0.5)
                r = http.post("/v1/default/proposals/rollback", json={"ontology_iri": MINI})
                if r.status_code != 200:
                    count("write_errors", str(r.status_code))
                else:
                    with lock:
                        tally["rollbacks"] += 1
                time.sleep(0.5)

    # Learn the version with Thermometer before reading (apply once, roll back).
    with httpx.Client(base_url=base, timeout=300) as http:
        listed = http.get("/v1/default/catalog").json()["ontologies"]
        current = next(v["content_hash"] for v in listed if v["ontology_iri"] == MINI)
        applied = http.post("/v1/default/proposals/apply", json={"updates": [{
            "ontology_iri": MINI, "base_hash": current, "add": ADD}]}).json()
        versions_with.add(applied["applied"][0]["content_hash"])
        http.post("/v1/default/proposals/rollback", json={"ontology_iri": MINI})
    threads = [threading.Thread(target=reader) for _ in range(readers)]
    threads.append(threading.Thread(target=writer))
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    return {"date": time.strftime("%Y-%m-%d %H:%M"), "seconds": round(wall, 1),
            "readers": readers, **tally, "reads_per_second": round(tally["reads"] / wall, 2)}


if __name__ == "__main__":
    main()
