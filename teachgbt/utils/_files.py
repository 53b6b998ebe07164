"""Reading and writing the user's files so that nothing of theirs is ever lost.

* ``write_atomic(path, write)`` writes *into* the path named: a symlink is followed to
  its target, an existing file keeps its permission bits (and a read-only one is refused),
  a device, FIFO or pipe (``/dev/stdout``, ``/dev/null``) is opened as given and written
  directly instead of being replaced by a file (never resolved through ``/proc``, where
  a pipe has no path), ``-`` is standard output. A regular file is written to a temporary
  file beside it and moved into place, so no reader ever sees half a file and a failure
  (a full disk, Ctrl-C, SIGTERM) leaves the old file as it was and no temporary file
  behind. A file with other hard links is replaced under the name given like any other:
  its other names keep the old content (writing it in place, a full disk left half a file
  under every name). Errors name the path the user gave, never the temporary file.
* ``check_distinct(output, inputs)`` refuses an output that is one of the inputs.
* ``FolderWriter`` writes a command's files into a folder: never over a file it did not
  write itself (unless forced), never through a link (nothing outside the folder).
* ``read_bytes(path, limit)`` reads a file once, at most ``limit`` bytes, also from a FIFO,
  a pipe, standard input (``-``) or a device such as ``/dev/zero``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
import tempfile
import threading

__all__ = [
    "OutputError",
    "write_atomic",
    "check_distinct",
    "FolderWriter",
    "read_bytes",
    "interrupted",
    "remove_temporaries",
]

_NEW_FILE_MODE = 0o666  # what open(path, "w") asks for, before the umask
_TEMP_PREFIX = ".teachgbt-"
_CHUNK = 1 << 20

#: set by the command line's Ctrl-C handler: no file is moved into place after it
interrupted = threading.Event()
#: temporary files being written, which an exit that cannot unwind removes
_temporaries = set()


def remove_temporaries():
    """Remove the temporary files of writes still under way: for an exit that cannot wait
    for them to unwind (a second Ctrl-C, a process stopped from outside)."""
    for tmp in list(_temporaries):
        try:
            os.unlink(tmp)
        except OSError:
            pass
        _temporaries.discard(tmp)


class OutputError(OSError):
    """An output the user named cannot (or must not) be written; the message says why."""


def _umask():
    mask = os.umask(0)  # the only way to read it is to set it; put it straight back
    os.umask(mask)
    return mask


def _failed(path, e):
    """An OSError about the temporary file, told about the user's ``path`` instead."""
    why = e.strerror or str(e)
    if getattr(e, "errno", None) == 28:  # ENOSPC
        why = "no space left on the device (nothing was written)"
    err = OutputError(f"cannot write {path}: {why}")
    err.errno = e.errno
    return err


def _open_stream(path, binary):
    if binary:
        return open(path, "wb")  # noqa: SIM115 - closed by the caller's with
    return open(path, "w", encoding="utf-8", newline="")  # noqa: SIM115


def _write_stdout(write, binary):
    stream = sys.stdout.buffer if binary else sys.stdout
    write(stream)
    stream.flush()


def write_atomic(path, write, binary=False):
    """Write a file through ``write(fileobj)``: into the file ``path`` names (see the
    module's docstring). Returns ``path``."""
    path = os.fspath(path)
    if path == "-":
        _write_stdout(write, binary)
        return path
    try:
        st = os.stat(path)  # through links: /dev/stdout is the pipe or terminal it stands for
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise _failed(path, e) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(f"cannot write {path}: it is a folder")
    if st is not None and not stat.S_ISREG(st.st_mode):
        # a device, a FIFO, a pipe, a terminal: open it as given and write into it;
        # replacing it would break it, and a pipe has no path to resolve it to
        try:
            with _open_stream(path, binary) as f:
                write(f)
        except BrokenPipeError:
            raise  # the reader stopped reading (| head): not a failure to report
        except OSError as e:
            raise _failed(path, e) from None
        return path
    target = os.path.realpath(path)  # a symlink to a file: write its target, keep the link
    if st is not None and not st.st_mode & 0o222:
        raise OutputError(
            f"{path} is read-only: it was not overwritten (make it writable, or choose "
            "another name)"
        )
    tmp = _stage(path, target, write, binary)
    with _removed_on_failure(tmp, path):
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
            if hasattr(os, "chown") and os.geteuid() == 0:  # root keeps the owner too
                os.chown(tmp, st.st_uid, st.st_gid)
        else:
            os.chmod(tmp, _NEW_FILE_MODE & ~_umask())
        if interrupted.is_set():
            raise KeyboardInterrupt
        os.replace(tmp, target)
    _temporaries.discard(tmp)
    return path


@contextlib.contextmanager
def _removed_on_failure(tmp, path):
    """Whatever fails (a full disk, Ctrl-C) leaves no temporary file behind, and an OS
    error names the path the user gave, not the temporary file."""
    try:
        yield
    except BaseException as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        _temporaries.discard(tmp)
        if isinstance(e, OSError) and not isinstance(e, OutputError):
            raise _failed(path, e) from None
        raise


def _stage(path, target, write, binary):
    """The content written to a temporary file beside ``target``; its name."""
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=_TEMP_PREFIX, suffix=".tmp", dir=os.path.dirname(target) or "."
        )
    except OSError as e:
        raise _failed(path, e) from None
    _temporaries.add(tmp)
    with _removed_on_failure(tmp, path):
        if binary:
            f = os.fdopen(fd, "wb")
        else:
            f = os.fdopen(fd, "w", encoding="utf-8", newline="")
        with f:
            write(f)
    return tmp


def _identity(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def check_distinct(output, inputs):
    """Refuse ``output`` when it is the same file as one of ``inputs`` (a dict
    ``{what it is: path}``): compared by resolved path and by inode, so a symlink or a
    hard link to an input is caught too."""
    if output is None or os.fspath(output) == "-":
        return
    out = os.fspath(output)
    try:
        if not stat.S_ISREG(os.stat(out).st_mode):
            return  # a device, FIFO or pipe (/dev/stdout) is written into, never replaced
    except OSError:
        pass  # a new file
    out_real, out_id = os.path.realpath(out), _identity(out)
    for what, given in inputs.items():
        if given is None or os.fspath(given) == "-":
            continue
        same_id = out_id is not None and _identity(given) == out_id
        if same_id or os.path.realpath(os.fspath(given)) == out_real:
            raise OutputError(
                f"the output {out} is the {what} {os.fspath(given)}: writing it would destroy "
                "the input. Choose another output name"
            )


def read_bytes(path, limit, what="file", check_start=None):
    """The content of ``path`` (``-``: standard input), read once and refused beyond
    ``limit`` bytes. A FIFO, a pipe (``/dev/fd/N``, ``<(cmd)``) or a device has no size to
    ask for and can be read only once: it is read in pieces and stopped at the limit, so
    ``/dev/zero`` ends in an error, not in all the memory there is; ``check_start(first
    bytes)`` may refuse it sooner (raising ValueError) when its start cannot be a
    ``what``."""
    path = os.fspath(path)
    if path == "-":
        return _read_limited(sys.stdin.buffer, "standard input", limit, what, check_start)
    st = os.stat(path)  # FileNotFoundError for a missing file, as open would
    if stat.S_ISDIR(st.st_mode):
        raise ValueError(f"{path} is a folder, not a {what}")
    if stat.S_ISREG(st.st_mode) and st.st_size > limit:
        raise ValueError(f"{path} has {st.st_size} bytes: too large for a {what} (at most {limit})")
    with open(path, "rb") as f:
        return _read_limited(f, path, limit, what, check_start)


def _read_limited(f, path, limit, what, check_start):
    parts, total = [], 0
    while total <= limit:
        chunk = f.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            break
        if not parts and check_start is not None:
            check_start(chunk)
        parts.append(chunk)
        total += len(chunk)
    if total > limit:
        raise ValueError(
            f"{path} gave more than {limit} bytes without ending: not a {what} (a device or "
            "an endless stream?)"
        )
    return b"".join(parts)


def _digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


class FolderWriter:
    """Writes named files into one folder (created if needed) for a command.

    A file already there is overwritten only when this writer wrote it before and it has
    not changed since (the folder's ``.teachgbt.json`` keeps the digest of each file it
    wrote), or with ``force``. A name in the folder that is a link or not a regular file
    is never followed: with ``force`` it is replaced by the file, else refused. Names are
    plain file names, so nothing is written outside the folder."""

    MANIFEST = ".teachgbt.json"

    def __init__(self, folder, force=False):
        self.folder = os.fspath(folder)
        self.force = force
        if os.path.lexists(self.folder) and not os.path.isdir(self.folder):
            raise OutputError(f"cannot write into {self.folder}: it is not a folder")
        try:
            os.makedirs(self.folder, exist_ok=True)
        except OSError as e:
            raise _failed(self.folder, e) from None
        self.ours = self._manifest()

    def _manifest(self):
        path = os.path.join(self.folder, self.MANIFEST)
        if os.path.islink(path) or not os.path.isfile(path):
            return {}
        try:
            with open(path, encoding="utf-8") as f:
                d = json.load(f)
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in d.items()} if isinstance(d, dict) else {}

    def path(self, name):
        if not name or os.path.basename(name) != name or name in (".", "..", self.MANIFEST):
            raise ValueError(f"{name!r} is not a plain file name")
        return os.path.join(self.folder, name)

    def is_theirs(self, name):
        """Whether ``name`` in the folder is something this writer must not overwrite."""
        p = self.path(name)
        if not os.path.lexists(p):
            return False
        if os.path.islink(p) or not os.path.isfile(p):
            return True
        return self.ours.get(name) != _digest(p)

    def check(self, names):
        """Refuse, before writing anything, when any of ``names`` is the user's."""
        clashes = [n for n in names if self.is_theirs(n)]
        if clashes and not self.force:
            shown = ", ".join(clashes[:6]) + (
                f" and {len(clashes) - 6} more" if len(clashes) > 6 else ""
            )
            raise OutputError(
                f"{self.folder} already holds {shown}, which teachgbt did not write there (or "
                "which was changed since); nothing was overwritten. Choose another folder, "
                "or pass --force to overwrite"
            )

    def write(self, name, write, binary=False):
        """Write ``name`` through ``write(fileobj)``; returns its path."""
        p = self.path(name)
        if self.is_theirs(name):
            if not self.force:
                self.check([name])
            if os.path.islink(p) or (os.path.lexists(p) and not os.path.isfile(p)):
                if os.path.isdir(p) and not os.path.islink(p):
                    raise OutputError(f"cannot write {p}: it is a folder")
                os.unlink(p)  # the link itself, never what it points to
        tmp = _stage(p, p, write, binary)
        with _removed_on_failure(tmp, p):
            os.chmod(tmp, _NEW_FILE_MODE & ~_umask())
            digest = _digest(tmp)
            if interrupted.is_set():
                raise KeyboardInterrupt
            os.replace(tmp, p)  # onto the name: a link there is replaced, not followed
        _temporaries.discard(tmp)
        self.ours[name] = digest
        self._save_manifest()
        return p

    def _save_manifest(self):
        path = os.path.join(self.folder, self.MANIFEST)
        if os.path.islink(path):
            os.unlink(path)
        text = json.dumps(self.ours, indent=1, sort_keys=True)
        tmp = _stage(path, path, lambda f: f.write(text), False)
        with _removed_on_failure(tmp, path):
            os.replace(tmp, path)
        _temporaries.discard(tmp)
