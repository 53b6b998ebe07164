"""Writing output files so that a failure never leaves half a file behind."""

from __future__ import annotations

import os
import tempfile

__all__ = ["write_atomic"]

_NEW_FILE_MODE = 0o666  # what open(path, "w") asks for, before the umask


def _umask():
    mask = os.umask(0)  # the only way to read it is to set it; put it straight back
    os.umask(mask)
    return mask


def write_atomic(path, write, binary=False):
    """Write a file through ``write(fileobj)`` and a temporary file in the same folder, so
    that no reader ever sees half a file and a failure leaves nothing behind."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".teachgbt-", suffix=".tmp", dir=directory)
    try:
        if binary:
            with os.fdopen(fd, "wb") as f:
                write(f)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                write(f)
        # mkstemp makes the file private (0600); give it the permissions a normal write would
        os.chmod(tmp, _NEW_FILE_MODE & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
