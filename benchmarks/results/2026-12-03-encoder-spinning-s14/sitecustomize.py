"""Probe only: with NOSPIN=1, every ONNX Runtime session of the process starts with its
threads' spinning off (put this folder on PYTHONPATH)."""

import os

if os.environ.get("NOSPIN") == "1":
    import onnxruntime as ort

    class _QuietOptions(ort.SessionOptions):
        def __init__(self) -> None:
            super().__init__()
            self.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self.add_session_config_entry("session.inter_op.allow_spinning", "0")

    ort.SessionOptions = _QuietOptions  # type: ignore[misc]
