"""Running one command of the command line: every failure one line, Ctrl-C exit 130, and
nothing printed that a terminal would obey.

Ctrl-C can land anywhere: in Python code (a ``KeyboardInterrupt``), inside a compiled
numba kernel (numba then reports a ``SystemError``: "returned a result with an exception
set"), in a callback of a library that swallows it (llvmlite's object cache during a
numba compile prints "Exception ignored" and goes on). A handler of our own records it
before raising, so whatever exception comes out, or none, the command ends with
"interrupted" and 130, and no output file is moved into place after it
(``teachgbt.utils._files.interrupted``). Where the ``KeyboardInterrupt`` is swallowed, a
watchdog ends the process one second later all the same (its temporary files removed,
the swallowed exception not printed); a second Ctrl-C ends it at once. SIGTERM and
SIGHUP unwind the same way (no temporary file left), then end the process by that signal.

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

from ..utils import interrupted, kernels, printable, remove_temporaries

__all__ = ["CommandError", "run", "one_line"]

EXIT_INTERRUPTED = 130
GRACE = 1.0  # seconds a stop may take to unwind before the process ends at once
_MESSAGE_LIMIT = 600  # characters of an error message shown; the start says what is wrong


class CommandError(Exception):
    """A problem the user can fix; printed without a traceback."""


class _Stopped(BaseException):
    """SIGTERM or SIGHUP, raised to unwind as Ctrl-C does (temporary files removed)."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def one_line(message):
    """A message on one line, cut to a length a terminal shows whole."""
    text = " ".join(str(message).split())
    return text if len(text) <= _MESSAGE_LIMIT else text[: _MESSAGE_LIMIT - 3] + "..."


def _interrupted():
    print("interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def _end_now(signum):
    """End the process at once, as a stop that could not unwind: temporary files removed,
    one line for Ctrl-C, the signal itself for SIGTERM/SIGHUP."""
    remove_temporaries()
    if signum == signal.SIGINT:
        try:
            os.write(2, b"interrupted\n")
        finally:
            os._exit(EXIT_INTERRUPTED)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)  # pragma: no cover - the signal ends the process first


class _Stops:
    """The command's handlers of Ctrl-C, SIGTERM and SIGHUP, for the length of its run
    (installed from the main thread only, as Python allows)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __init__(self):
        self.done = threading.Event()
        self.previous = {}
        self.hook = None
        self.signum = None  # the stop received, if any

    def install(self):
        for sig in self.SIGNALS:
            self.previous[sig] = signal.signal(sig, self.on_signal)
        self.hook, sys.unraisablehook = sys.unraisablehook, self.unraisable

    def restore(self):
        self.done.set()
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        if self.hook is not None:
            sys.unraisablehook = self.hook

    def on_signal(self, signum, frame):
        if interrupted.is_set():  # a second one: stop now
            _end_now(signum)
        self.signum = signum
        interrupted.set()
        threading.Thread(target=self.watch, args=(signum,), daemon=True).start()
        raise KeyboardInterrupt if signum == signal.SIGINT else _Stopped(signum)

    def watch(self, signum):
        if not self.done.wait(GRACE):  # swallowed on its way, or unwinding too long
            _end_now(signum)

    def unraisable(self, unraisable):
        """After a stop, what finalizers and callbacks fail on is not printed: the stop
        swallowed there, or what it broke (llvmlite's objects half torn down)."""
        if not interrupted.is_set():
            self.hook(unraisable)


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
    stops = _Stops()
    if threading.current_thread() is threading.main_thread():
        stops.install()
    try:
        try:
            parser = build_parser()
            args = parser.parse_args(argv)
        except (KeyboardInterrupt, _Stopped):
            code = EXIT_INTERRUPTED
        else:
            if not getattr(args, "command", None):
                parser.print_help()
                return 0
            code = _run(args.command, args.func, args)
        if stops.signum in (signal.SIGTERM, signal.SIGHUP):  # unwound: now end by it,
            stops.restore()  # as a shell expects of a process it stopped
            _end_now(stops.signum)
        if code == EXIT_INTERRUPTED:
            kernels.stop_compiling()  # a background compile ends with the command
            print("interrupted", file=sys.stderr)
        return code
    finally:
        stops.restore()
        interrupted.clear()  # a library write after this command is no longer stopped


def _run(command, func, args):
    said = f"teachgbt {command}: error:"
    try:
        func(args)
    except (KeyboardInterrupt, _Stopped):
        return EXIT_INTERRUPTED
    except BaseException as e:
        if interrupted.is_set():  # whatever a stop turned into
            return EXIT_INTERRUPTED
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
    if interrupted.is_set():  # a stop swallowed on the way (a finalizer, a thread)
        return EXIT_INTERRUPTED
    return 0
