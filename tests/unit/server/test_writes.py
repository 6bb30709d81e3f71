"""A write past its time limit: answered 504, and a failure after that answer is logged."""

from __future__ import annotations

import logging
import threading
import types
from pathlib import Path

import anyio
import pytest

from ontoretrieve.server.http import ApiError, _Api
from ontoretrieve.settings import load_settings


def _api(tmp_path: Path) -> _Api:
    settings = load_settings(data_dir=str(tmp_path), server={"write_timeout_seconds": 0.01})
    return _Api(types.SimpleNamespace(settings=settings))  # type: ignore[arg-type]


def test_a_write_that_fails_after_its_504_goes_to_the_log(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    answered, finished = threading.Event(), threading.Event()

    def slow_failing_write() -> None:
        answered.wait(5)  # fails only once the client has its 504
        try:
            raise OSError("disk full")
        finally:
            finished.set()

    with caplog.at_level(logging.ERROR, logger="ontoretrieve.server"), \
            pytest.raises(ApiError) as raised:
        anyio.run(_api(tmp_path).write, slow_failing_write)
    assert raised.value.status == 504 and raised.value.kind == "write_in_progress"
    answered.set()
    assert finished.wait(5)
    for _ in range(50):  # the log record follows the raise in the worker thread
        if caplog.records:
            break
        threading.Event().wait(0.02)
    assert "failed afterwards" in caplog.text and "disk full" in caplog.text


def test_a_write_within_its_time_limit_returns_and_logs_nothing(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="ontoretrieve.server"):
        assert anyio.run(_api(tmp_path).write, lambda: 7) == 7
    assert not caplog.records
