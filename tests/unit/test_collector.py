"""The collector's pause around bulk builds: counted, restored however a block ends; its
young-collection threshold, raised by an engine and never lowered."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from ontoretrieve import Engine, load_settings
from ontoretrieve.collector import collector_paused, raise_young_threshold


@pytest.fixture
def thresholds() -> Iterator[None]:
    """Python's own thresholds for the test, the process's back after it."""
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


@pytest.mark.usefixtures("thresholds")
def test_the_young_threshold_is_raised_never_lowered_and_a_host_s_zero_kept() -> None:
    raise_young_threshold(5_000)
    assert gc.get_threshold() == (5_000, 10, 10)
    raise_young_threshold(1_000)
    raise_young_threshold(0)
    assert gc.get_threshold() == (5_000, 10, 10)
    gc.set_threshold(0, 10, 10)  # the host turned automatic collections off
    raise_young_threshold(50_000)
    assert gc.get_threshold() == (0, 10, 10)


@pytest.mark.usefixtures("thresholds")
@pytest.mark.parametrize(("setting", "expected"), [(None, 50_000), (0, 700), (9_000, 9_000)])
def test_an_engine_raises_the_threshold_its_settings_name(setting: int | None,
                                                          expected: int) -> None:
    server = {} if setting is None else {"young_collection_threshold": setting}
    with Engine.open(load_settings(server=server), in_memory=True):
        assert gc.get_threshold()[0] == expected


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
