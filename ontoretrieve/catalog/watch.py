"""Watch mode: poll a catalog folder, settle, refresh single-flight.

Polling, not file-system events: copies over scp, editor saves and atomic
renames all end as a changed (size, mtime) of an RDF file, which a poll
sees whatever the file system is. Hidden files and names without an RDF
extension (``.x.ttl.swp``, ``x.ttl~``, ``x.ttl.part``) are not part of the
snapshot, so an editor's temporary file counts only once it is renamed into
place. A refresh starts when nothing changed for ``settle`` seconds; it runs
in one worker thread, and changes seen while it runs queue exactly one
follow-up (they make the snapshot dirty again, and one dirty flag is one
run, however many changes set it).

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "a.ttl").write_text("<urn:a> <urn:p> 1 .")
>>> _ = (folder / ".a.ttl.swp").write_text("editor junk")
>>> sorted(snapshot(folder))
['a.ttl']
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ontoretrieve.catalog.files import rdf_format

__all__ = ["Watcher", "snapshot"]

log = logging.getLogger(__name__)

Snapshot = dict[str, tuple[int, int]]


def snapshot(root: Path) -> Snapshot:
    """(size, mtime in ns) of every visible RDF file under ``root``, by relative path."""
    found: Snapshot = {}
    if root.is_file():
        candidates = [root]
        base = root.parent
    else:
        candidates = [p for p in root.rglob("*") if p.is_file()] if root.exists() else []
        base = root
    for path in candidates:
        relative = path.relative_to(base)
        if any(part.startswith(".") for part in relative.parts) or rdf_format(path) is None:
            continue
        try:
            stat = path.stat()
        except OSError:  # removed between listing and stat: the next poll sees it gone
            continue
        found[relative.as_posix()] = (stat.st_size, stat.st_mtime_ns)
    return found


@dataclass
class Watcher:
    """Poll ``root``; call ``refresh`` once it has settled; never two refreshes at once."""

    root: Path
    refresh: Callable[[], object]
    settle: float = 3.0
    clock: Callable[[], float] = time.monotonic
    on_result: Callable[[object], None] = lambda result: None
    on_error: Callable[[BaseException], None] = lambda exc: None
    runs: int = 0
    _last: Snapshot | None = None
    _dirty_since: float | None = None
    _worker: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def tick(self) -> bool:
        """One poll; returns True when it started a refresh."""
        now = self.clock()
        current = snapshot(self.root)
        if current != self._last:
            if self._last is not None or self._dirty_since is None:
                self._dirty_since = now
            self._last = current
        if self.running or self._dirty_since is None or now - self._dirty_since < self.settle:
            return False
        self._dirty_since = None
        self._worker = threading.Thread(target=self._run, name="ontoretrieve-refresh",
                                        daemon=True)
        self._worker.start()
        return True

    @property
    def running(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    @property
    def pending(self) -> bool:
        """Whether a change is waiting for its refresh."""
        return self._dirty_since is not None

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the running refresh, if any (for tests and shutdown)."""
        if self._worker is not None:
            self._worker.join(timeout)

    def _run(self) -> None:
        with self._lock:
            self.runs += 1
            try:
                result = self.refresh()
            except Exception as exc:  # reported, and the next change tries again
                log.warning("refresh failed: %s", exc)
                self.on_error(exc)
                return
            self.on_result(result)

    def run_forever(self, interval: float, stop: threading.Event) -> None:
        """Poll every ``interval`` seconds until ``stop`` is set, then let a run finish."""
        while not stop.is_set():
            self.tick()
            stop.wait(interval)
        self.wait()
