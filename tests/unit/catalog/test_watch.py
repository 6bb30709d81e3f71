"""Watch mode: partial writes, editor-style renames and bursts, on real files, a fake clock."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ontoretrieve.catalog.watch import Watcher, snapshot


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _watcher(root: Path, settle: float = 3.0, gate: threading.Event | None = None
             ) -> tuple[Watcher, Clock, list[dict[str, tuple[int, int]]]]:
    clock = Clock()
    seen: list[dict[str, tuple[int, int]]] = []

    def refresh() -> int:
        if gate is not None:
            gate.wait(10)
        seen.append(snapshot(root))
        return len(seen)

    return Watcher(root, refresh, settle=settle, clock=clock), clock, seen


def _touch(path: Path, text: str, stamp: int) -> None:
    path.write_text(text)
    os.utime(path, ns=(stamp, stamp))  # mtime resolution differs between file systems


def test_first_poll_refreshes_once_settled(tmp_path: Path) -> None:
    _touch(tmp_path / "a.ttl", "<urn:a> <urn:p> 1 .", 1)
    watcher, clock, seen = _watcher(tmp_path)
    assert not watcher.tick()
    clock.now = 3.0
    assert watcher.tick()
    watcher.wait()
    assert len(seen) == 1 and not watcher.pending
    clock.now = 10.0
    assert not watcher.tick()  # nothing changed: no run


def test_a_partial_write_waits_until_the_file_stops_growing(tmp_path: Path) -> None:
    watcher, clock, seen = _watcher(tmp_path)
    watcher.tick()
    clock.now = 5.0
    watcher.tick()
    watcher.wait()
    target = tmp_path / "big.ttl"
    for step in range(1, 6):  # a copy writing a chunk per second: never settles
        _touch(target, "<urn:a> <urn:p> 1 .\n" * step, 10 + step)
        clock.now = 5.0 + step
        assert not watcher.tick()
    clock.now = 10.0 + 2.9
    assert not watcher.tick()
    clock.now = 10.0 + 3.0
    assert watcher.tick()
    watcher.wait()
    assert seen[-1]["big.ttl"][0] == len("<urn:a> <urn:p> 1 .\n" * 5)  # the whole file
    assert len(seen) == 2


def test_editor_temp_files_count_only_once_renamed(tmp_path: Path) -> None:
    watcher, clock, seen = _watcher(tmp_path)
    watcher.tick()
    clock.now = 5.0
    watcher.tick()
    watcher.wait()
    for name in (".onto.ttl.swp", "onto.ttl~", "onto.ttl.part", ".onto.ttl.tmp", "4913"):
        _touch(tmp_path / name, "junk", 7)
    clock.now = 20.0
    assert not watcher.tick()  # nothing the catalog reads has changed
    os.replace(tmp_path / "onto.ttl.part", tmp_path / "onto.ttl")  # the atomic save
    clock.now = 21.0
    assert not watcher.tick()
    clock.now = 24.0
    assert watcher.tick()
    watcher.wait()
    assert list(seen[-1]) == ["onto.ttl"] and len(seen) == 2


def test_a_burst_during_a_refresh_queues_exactly_one_follow_up(tmp_path: Path) -> None:
    gate = threading.Event()
    watcher, clock, seen = _watcher(tmp_path, gate=gate)
    watcher.tick()
    clock.now = 5.0
    assert watcher.tick()  # the first run, held at the gate
    for n in range(20):  # a burst of changes while it runs
        _touch(tmp_path / f"f{n}.ttl", "<urn:a> <urn:p> 1 .", 100 + n)
        clock.now = 6.0 + n * 0.1
        assert not watcher.tick()  # single flight: never a second run at once
    assert watcher.running and watcher.pending
    gate.set()
    watcher.wait()
    clock.now = 20.0
    assert watcher.tick()  # exactly one follow-up for the whole burst
    watcher.wait()
    clock.now = 40.0
    assert not watcher.tick()
    assert len(seen) == 2 and len(seen[-1]) == 20


def test_a_failing_refresh_is_reported_and_retried_on_the_next_change(tmp_path: Path) -> None:
    errors: list[BaseException] = []
    clock = Clock()
    calls: list[int] = []

    def refresh() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("store locked")

    watcher = Watcher(tmp_path, refresh, settle=1.0, clock=clock, on_error=errors.append)
    watcher.tick()
    clock.now = 2.0
    watcher.tick()
    watcher.wait()
    assert [str(e) for e in errors] == ["store locked"]
    _touch(tmp_path / "a.ttl", "x", 5)
    clock.now = 3.0
    watcher.tick()
    clock.now = 5.0
    assert watcher.tick()
    watcher.wait()
    assert len(calls) == 2
