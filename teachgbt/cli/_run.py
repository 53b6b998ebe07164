"""Running one command of the command line: every failure one line, Ctrl-C exit 130, and
nothing printed that a terminal would obey.

Ctrl-C can land anywhere: in Python code (a ``KeyboardInterrupt``), inside a compiled
numba kernel (numba then reports a ``SystemError``: "returned a result with an exception
set"), in a finalizer that swallows it. A handler of our own records it before raising,
so whatever exception comes out, or none, the command ends with "interrupted" and 130,
and no output file is moved into place after it (``teachgbt.utils._files.interrupted``).

Names read from files (features, classes, categories) reach stdout and stderr in tables,
rules, messages and CSV text. While a command runs, both streams show each control
character as ``\x1b`` (``teachgbt.utils.printable``), so a name holding an escape
sequence cannot retitle the window or clear the screen; stderr keeps the carriage return
its progress bar needs. Bytes written to ``sys.stdout.buffer`` (a PNG) pass untouched.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

from ..utils import interrupted, printable

__all__ = ["CommandError", "run", "one_line"]

EXIT_INTERRUPTED = 130
_MESSAGE_LIMIT = 600  # characters of an error message shown; the start says what is wrong


class CommandError(Exception):
    """A problem the user can fix; printed without a traceback."""


def one_line(message):
    """A message on one line, cut to a length a terminal shows whole."""
    text = " ".join(str(message).split())
    return text if len(text) <= _MESSAGE_LIMIT else text[: _MESSAGE_LIMIT - 3] + "..."


def _on_sigint(signum, frame):
    if interrupted.is_set():  # a second Ctrl-C: stop now
        os._exit(EXIT_INTERRUPTED)
    interrupted.set()
    raise KeyboardInterrupt


def _interrupted():
    print("interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


class _Printable:
    """A text stream whose ``write`` shows control characters (``printable``)."""

    def __init__(self, stream, keep):
        self._stream, self._keep = stream, keep

    def write(self, text):
        return self._stream.write(printable(text, self._keep))

    def __getattr__(self, name):  # flush, isatty, fileno, buffer, encoding, ...
        return getattr(self._stream, name)


def run(build_parser, argv):
    """Parse ``argv`` and run its command, its failures as one line on stderr; the exit
    status. Ctrl-C is ours from the first line on, parsing included."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Printable(sys.stdout, "\n\t"), _Printable(sys.stderr, "\n\t\r")
    try:
        return _parse_and_run(build_parser, argv)
    except KeyboardInterrupt:  # before our handler was in place, or after it was put back
        return _interrupted()
    finally:  # a stream swapped meanwhile (stdout for /dev/null after a broken pipe) stays
        if isinstance(sys.stdout, _Printable):
            sys.stdout = streams[0]
        if isinstance(sys.stderr, _Printable):
            sys.stderr = streams[1]


def _parse_and_run(build_parser, argv):
    interrupted.clear()
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, _on_sigint) if main_thread else None
    try:
        try:
            parser = build_parser()
            args = parser.parse_args(argv)
        except KeyboardInterrupt:
            return _interrupted()
        if not getattr(args, "command", None):
            parser.print_help()
            return 0
        return _run(args.command, args.func, args)
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, previous)
        interrupted.clear()  # a library write after this command is no longer stopped


def _run(command, func, args):
    said = f"teachgbt {command}: error:"
    try:
        func(args)
    except KeyboardInterrupt:
        return _interrupted()
    except BaseException as e:
        if interrupted.is_set():  # whatever Ctrl-C turned into
            return _interrupted()
        if isinstance(e, SystemExit):
            raise
        if isinstance(e, FileNotFoundError) and e.filename is not None:
            print(f"{said} {e.filename}: no such file", file=sys.stderr)
            return 2
        if isinstance(e, BrokenPipeError):  # e.g. piped into `head`: stop quietly
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
            return 0
        if isinstance(e, (CommandError, ValueError, TypeError, KeyError, OSError, Warning)):
            msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
            print(one_line(f"{said} {msg}"), file=sys.stderr)
            return 2
        if isinstance(e, (MemoryError, RecursionError)):
            why = f"the input is too large or too deep to handle ({type(e).__name__})"
            print(f"{said} {why}", file=sys.stderr)
            return 2
        if not isinstance(e, Exception):
            raise
        # a bug of ours: still one line, with what to report
        print(
            one_line(
                f"teachgbt {command}: internal error: {type(e).__name__}: {e} "
                "(please report this with the command you ran)"
            ),
            file=sys.stderr,
        )
        return 1
    if interrupted.is_set():  # Ctrl-C swallowed on the way (a finalizer, a thread)
        return _interrupted()
    return 0
