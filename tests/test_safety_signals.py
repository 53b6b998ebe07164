"""Ctrl-C always stops the command (issue 26, item 4): wherever its KeyboardInterrupt
lands, including where a library's callback swallows it (llvmlite's object cache during
numba's first compile went on for 40 s), the command ends with one line, "interrupted",
and exit 130, leaving no temporary file; during the package's import too. SIGTERM and
SIGHUP unwind the same way, then end the process by the signal.

Each case runs in a process of its own; the deterministic ones make the interrupt land
exactly where they test it (a meta-path hook inside the import, a command that swallows
its KeyboardInterrupt)."""

from __future__ import annotations

import os
import signal

import numpy as np
import pandas as pd
import pytest
from safety_corpus import run_process

_IMPORT_INTERRUPTED = """
import os, signal, sys
sys.argv[0] = "teachgbt"  # as the console script runs
class Hook:  # Ctrl-C arrives while the package imports its drawing code
    def find_spec(self, name, path=None, target=None):
        if name == "teachgbt.show":
            os.kill(os.getpid(), signal.SIGINT)
sys.meta_path.insert(0, Hook())
import teachgbt
print("imported")
"""


def test_ctrl_c_while_the_package_imports_is_one_line_and_130(tmp_path):
    code, out, err, _ = run_process(["python", "-c", _IMPORT_INTERRUPTED], cwd=tmp_path,
                                    default_sigint=True)  # fmt: skip
    assert code == 130 and out == "" and err == "interrupted\n", (code, out, err)


def test_a_program_importing_the_package_keeps_pythons_ctrl_c(tmp_path):
    """Only the command takes Ctrl-C over at import: a program of the user's gets
    Python's KeyboardInterrupt, to catch as it likes."""
    script = _IMPORT_INTERRUPTED.replace('sys.argv[0] = "teachgbt"', "")
    guarded = "try:\n    import teachgbt\nexcept KeyboardInterrupt:\n    print('caught')\n"
    script = script.replace("import teachgbt\n", guarded)
    code, out, _, _ = run_process(["python", "-c", script], cwd=tmp_path, default_sigint=True)
    assert code == 0 and out.split() == ["caught", "imported"]


# a command whose work swallows every KeyboardInterrupt, as a C callback does, while it
# writes an output through write_atomic (a temporary file exists the whole time)
_SWALLOWING = """
import sys, time
from teachgbt.cli._run import run
from teachgbt.utils import write_atomic

def work(args):
    def write(f):
        f.write("half")
        print("ready", flush=True)
        end = time.monotonic() + 60
        while time.monotonic() < end:
            try:
                time.sleep(0.01)
            except KeyboardInterrupt:
                pass  # swallowed
        f.write(" and the rest")
    write_atomic(sys.argv[1], write)

def parser():
    import argparse
    p = argparse.ArgumentParser()
    p.set_defaults(command="work", func=work)
    return p

sys.exit(run(parser, []))
"""


@pytest.mark.parametrize("twice", [False, True])
def test_a_swallowed_ctrl_c_still_ends_the_command(tmp_path, twice):
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    send = [(0.3, signal.SIGINT)] + ([(0.6, signal.SIGINT)] if twice else [])
    code, stdout, err, _ = run_process(["python", "-c", _SWALLOWING, out], cwd=tmp_path,
                                       send=send, timeout=60, ready="ready")  # fmt: skip
    assert stdout == "ready\n", (stdout, err)
    assert code == 130 and err == "interrupted\n", (code, err)
    assert out.read_text() == "old\n"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".teachgbt-")]


def test_sigterm_unwinds_then_ends_by_the_signal(tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    script = _SWALLOWING.replace("except KeyboardInterrupt:", "except ZeroDivisionError:")
    code, stdout, err, _ = run_process(["python", "-c", script, out], cwd=tmp_path,
                                       send=[(0.3, signal.SIGTERM)], timeout=60,
                                       ready="ready")  # fmt: skip
    assert stdout == "ready\n" and code == -signal.SIGTERM, (code, err)
    assert out.read_text() == "old\n"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".teachgbt-")]


@pytest.fixture(scope="module")
def wide_csv(tmp_path_factory):
    """Past the compiled kernels' size (1M cells), so a hist fit compiles them first."""
    d = tmp_path_factory.mktemp("compile")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200_000, 6)).astype(np.float32),
                     columns=[f"x{i}" for i in range(6)])  # fmt: skip
    X.assign(y=(X["x0"] + X["x1"] * X["x2"] > 0).astype(int)).to_csv(
        d / "w.csv", index=False, float_format="%.6g"
    )
    return d / "w.csv"


@pytest.mark.parametrize("delay", [1.0, 2.5, 4.0])
def test_ctrl_c_during_the_first_numba_compile_ends_in_one_line(wide_csv, tmp_path, delay):
    """An empty numba cache: the kernels compile at the start of the fit, where llvmlite's
    callbacks swallowed the KeyboardInterrupt."""
    pytest.importorskip("numba")
    model = tmp_path / "m.json"
    code, _, err, _ = run_process(
        ["python", "-m", "teachgbt", "train", wide_csv, "--target", "y", "--model", model,
         "--tree-method", "hist", "--n-estimators", 300],
        cwd=tmp_path, send=[(delay, signal.SIGINT)], timeout=120,
        env={"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")},
    )  # fmt: skip
    if code == 0:  # the fit finished before the signal (a fast machine): nothing to test
        pytest.skip(f"the fit ended within {delay} s")
    said = [ln for ln in err.splitlines() if not ln.startswith("teachgbt: compiling")]
    assert code == 130 and said == ["interrupted"], (code, err)  # the compile's note aside
    assert not model.exists()
