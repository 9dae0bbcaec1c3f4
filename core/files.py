"""Writing a stored file whole or not at all (issue 16): a worker killed mid-write (kill -9, the
OOM killer, a power cut) must leave no half-written file in the storage, under the name a row
points to or any other.

On a local filesystem the bytes go to an unnamed file in the target's folder (O_TMPFILE: the
kernel discards it if the process dies), are flushed to disk, and only then get a name, in one
step that never replaces a file (a name taken gets the storage's usual free variant, as
Storage.save does); the folder is flushed too. Where O_TMPFILE is not supported a named
temporary file (".<name>.<random>.tmp", removed on any error) stands in for the unnamed one.
Other storages get one save of the complete bytes."""

import os
import tempfile
from pathlib import Path

from django.core.files.base import ContentFile
from django.core.files.storage import Storage

NAME_TRIES = 100


def _write_all(fd: int, content: bytes) -> None:
    view = memoryview(content)
    while view:
        view = view[os.write(fd, view) :]


def _open_unnamed(folder: Path, mode: int) -> tuple[int, str | None]:
    """A file descriptor to write to, and the temporary name it has (None: it has none yet)."""
    try:
        return os.open(folder, os.O_TMPFILE | os.O_WRONLY, mode), None
    except (AttributeError, OSError):  # no O_TMPFILE on this platform or filesystem
        fd, staged = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
        os.fchmod(fd, mode)
        return fd, staged


def _link_free_name(storage: Storage, name: str, source: str, folder_fd: int) -> str:
    """Give the written file `name`, or the storage's free variant of it: os.link never replaces
    a file, so two writers can never take the same name."""
    candidate = name
    for _ in range(NAME_TRIES):
        try:
            # With a src_dir_fd (ignored for an absolute source) CPython calls linkat() with
            # AT_SYMLINK_FOLLOW, which names the file behind /proc/self/fd/N; plain link() would
            # try to link the /proc symlink itself.
            os.link(source, storage.path(candidate), src_dir_fd=folder_fd, follow_symlinks=True)
        except FileExistsError:
            candidate = storage.get_available_name(name)
            continue
        return candidate
    raise FileExistsError(f"No free name for {name} after {NAME_TRIES} tries")


def save_whole(storage: Storage, name: str, content: bytes) -> str:
    """Store `content` under `name` (or a free variant of it, as Storage.save), whole or not at
    all; the name it was stored under."""
    try:
        target = Path(storage.path(name))
    except NotImplementedError:  # not a local filesystem: one save of the complete bytes
        return storage.save(name, ContentFile(content))
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, staged = _open_unnamed(folder, getattr(storage, "file_permissions_mode", None) or 0o644)
    folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            _write_all(fd, content)
            os.fsync(fd)
            stored = _link_free_name(storage, name, staged or f"/proc/self/fd/{fd}", folder_fd)
        finally:
            os.close(fd)
            if staged:
                Path(staged).unlink(missing_ok=True)
        os.fsync(folder_fd)  # the new name itself on disk
    finally:
        os.close(folder_fd)
    return stored
