"""The collector's pause around bulk builds: counted, restored however a block ends."""

from __future__ import annotations

import gc
import threading

import pytest

from ontoretrieve.collector import collector_paused


def test_the_collector_comes_back_after_an_error() -> None:
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("a build failed")
    assert gc.isenabled()


def test_a_collector_off_before_the_pause_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_pauses_in_threads_end_with_the_last() -> None:
    first_in, second_done = threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with collector_paused():
            first_in.set()
            second_done.wait(timeout=10)
            seen.append(gc.isenabled())  # the second pause ended; this one holds

    worker = threading.Thread(target=first)
    worker.start()
    first_in.wait(timeout=10)
    with collector_paused():
        pass
    second_done.set()
    worker.join(timeout=10)
    assert seen == [False]
    assert gc.isenabled()
