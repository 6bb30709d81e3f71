"""One writer, many readers: the writer lock across processes, and a store reader
that follows the writer's changes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyoxigraph as ox
import pytest

from ontoretrieve.backends.access import Access, WriterLock, claim, holder_of
from ontoretrieve.backends.oxigraph import OxigraphStore
from ontoretrieve.errors import DataDirBusyError, StoreUnavailableError

_HOLD = """
import sys, time
from pathlib import Path
from ontoretrieve.backends.access import WriterLock
lock = WriterLock.acquire(Path(sys.argv[1]), "ontoretrieve serve")
print("held" if lock else "refused", flush=True)
time.sleep(60)
"""


def _holder(folder: Path) -> subprocess.Popen[str]:
    child = subprocess.Popen([sys.executable, "-c", _HOLD, str(folder)],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    return child


def test_a_second_writer_is_told_who_holds_the_directory(tmp_path: Path) -> None:
    child = _holder(tmp_path)
    try:
        holder = holder_of(tmp_path)
        assert holder is not None and holder.pid == child.pid
        with pytest.raises(DataDirBusyError, match=rf"PID {child.pid} \(ontoretrieve serve"):
            claim(tmp_path, Access.WRITE)
        assert claim(tmp_path, Access.AUTO) is None  # reads beside it instead
        started = time.monotonic()
        with pytest.raises(DataDirBusyError, match=r"waited 0\.5 s"):
            claim(tmp_path, Access.WRITE, wait_seconds=0.5)
        assert time.monotonic() - started >= 0.5
    finally:
        child.kill()
        child.wait()


def test_a_killed_writer_leaves_no_stale_lock(tmp_path: Path) -> None:
    child = _holder(tmp_path)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert holder_of(tmp_path) is None
    lock = claim(tmp_path, Access.WRITE)
    assert lock is not None and holder_of(tmp_path) is not None
    lock.release()


def test_a_waiting_writer_gets_the_lock_when_the_holder_ends(tmp_path: Path) -> None:
    child = _holder(tmp_path)
    subprocess.Popen(["sh", "-c", f"sleep 0.5; kill {child.pid}"])
    lock = WriterLock.require(tmp_path, "ontoretrieve index", wait_seconds=20)
    assert holder_of(tmp_path) is not None and holder_of(tmp_path).command == (  # type: ignore[union-attr]
        "ontoretrieve index")
    lock.release()
    child.wait()


def test_read_access_takes_no_lock_once_the_store_exists(tmp_path: Path) -> None:
    first = claim(tmp_path, Access.READ)  # nothing to read yet: it may create the store
    assert first is not None
    first.release()
    (tmp_path / "oxigraph").mkdir()
    (tmp_path / "oxigraph" / "CURRENT").write_text("")
    assert claim(tmp_path, Access.READ) is None


def _quad(n: int) -> ox.Quad:
    return ox.Quad(ox.NamedNode(f"http://x/{n}"), ox.NamedNode("http://x/p"), ox.Literal(n),
                   ox.NamedNode("urn:g"))


def test_a_reader_sees_each_finished_write_of_the_writer(tmp_path: Path) -> None:
    path = tmp_path / "oxigraph"
    writer = OxigraphStore.open(path)
    writer.replace_graph("urn:g", [_quad(1).triple])
    reader = OxigraphStore.open_reader(path)
    assert not reader.writable and len(reader.graph_triples("urn:g")) == 1
    writer.replace_graph("urn:g", [_quad(1).triple, _quad(2).triple])
    assert len(reader.graph_triples("urn:g")) == 2
    writer.update("DROP GRAPH <urn:g>")
    assert reader.select("SELECT * WHERE { GRAPH <urn:g> { ?s ?p ?o } }") == []
    reader.close()
    writer.close()


def test_a_reader_before_any_store_says_so(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailableError, match=r"no triple store at .* yet: PID 7"):
        OxigraphStore.open_reader(tmp_path / "oxigraph", "PID 7 (ontoretrieve serve)")


def _stored(path: Path) -> None:
    store = OxigraphStore.open(path)
    store.replace_graph("urn:g", [_quad(1).triple])
    store.close()


def _listing(path: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in path.iterdir()}


def test_a_store_without_its_current_file_is_refused_never_replaced(tmp_path: Path) -> None:
    path = tmp_path / "oxigraph"
    _stored(path)
    (path / "CURRENT").unlink()
    before = _listing(path)
    for opening in (lambda: OxigraphStore.open(path), lambda: OxigraphStore.open_reader(path)):
        with pytest.raises(StoreUnavailableError, match=r"is damaged .*CURRENT file is missing"):
            opening()
    assert _listing(path) == before  # nothing created, nothing removed


def test_a_truncated_manifest_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "oxigraph"
    _stored(path)
    manifest = next(path.glob("MANIFEST-*"))
    with manifest.open("r+b") as handle:
        handle.truncate(10)
    with pytest.raises(StoreUnavailableError, match=r"is damaged \(Corruption: .*Restore"):
        OxigraphStore.open(path)
