"""A Celery app for fault tests (`worker_start(app="testing.slow_letters")`): the project's own
app, with every stored file's write stopping halfway, the half flushed to disk, for ten minutes,
after touching the file named by SLOW_WRITE_MARKER, so a test can SIGKILL the worker mid-write.
Production code knows nothing of it."""

import os
import time
from pathlib import Path

from config.celery import app  # noqa: F401 (what `celery -A testing.slow_letters` runs)
from core import files

MARKER = Path(os.environ["SLOW_WRITE_MARKER"])


def _half_then_wait(fd: int, content: bytes) -> None:
    os.write(fd, content[: len(content) // 2])
    os.fsync(fd)
    MARKER.write_text(str(len(content)))
    time.sleep(600)


files._write_all = _half_then_wait
