"""Outputs that never lose the user's data (issue 22): an output that is an input is
refused; a write goes *into* the path named (symlinks followed, permissions kept, FIFOs
and devices written rather than replaced, ``-`` for stdout); folders keep the user's
files; a failed write leaves nothing behind and names the path; Ctrl-C exits 130.

Device cases use a FIFO and symlinks in a temporary folder, never the real /dev."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest
from safety_corpus import refused, run_cli  # noqa: E402

import teachgbt as tg
from teachgbt.utils import _files


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("outputs")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    y = (X["a"] > 0).astype(int)
    X.assign(y=y).to_csv(d / "d.csv", index=False)
    tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X, y).save(d / "m.json")
    return d


def _no_temp_files(folder):
    assert not [p for p in os.listdir(folder) if p.startswith(".teachgbt-")]


# ------------------------------------------------------------------ output = input
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(files, tmp_path, capsys):
    data, model = tmp_path / "d.csv", tmp_path / "m.json"
    data.write_bytes((files / "d.csv").read_bytes())
    model.write_bytes((files / "m.json").read_bytes())
    (tmp_path / "link.csv").symlink_to(data)
    os.link(model, tmp_path / "hard.json")
    before = {p: p.read_bytes() for p in (data, model)}
    cases = [
        ("train", data, "--target", "y", "--model", data),
        ("predict", model, data, "--output", data),
        ("explore", model, "--data", data, "--output", data),
        ("explore", model, "--output", model),
        ("predict", model, data, "--output", tmp_path / "link.csv"),
        ("draw", tmp_path / "hard.json", "--tree", 1, "--output", model),
    ]
    for argv in cases:
        code, _, err = run_cli(capsys, *argv)
        refused(code, err, "would destroy the input")
    assert {p: p.read_bytes() for p in before} == before


# ------------------------------------------------------------------ into the path named
def test_a_symlinked_output_writes_its_target_and_keeps_the_link(files, tmp_path, capsys):
    target = tmp_path / "real.csv"
    target.write_text("old")
    os.chmod(target, 0o600)
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    code, _, err = run_cli(capsys, "predict", files / "m.json", files / "d.csv", "--output", link)
    assert code == 0, err
    assert link.is_symlink() and target.read_text().startswith("prediction,")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600  # a private file stays private
    _no_temp_files(tmp_path)


def test_a_read_only_output_is_refused_not_replaced(files, tmp_path, capsys):
    out = tmp_path / "keep.csv"
    out.write_text("mine")
    os.chmod(out, 0o444)
    code, _, err = run_cli(capsys, "predict", files / "m.json", files / "d.csv", "--output", out)
    refused(code, err, str(out), "read-only")
    assert out.read_text() == "mine" and stat.S_IMODE(os.stat(out).st_mode) == 0o444


def test_a_fifo_output_is_written_into_not_replaced(files, tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []

    def read():
        with open(fifo, "rb") as f:
            got.append(f.read())

    reader = threading.Thread(target=read)
    reader.start()
    code, _, err = run_cli(capsys, "predict", files / "m.json", files / "d.csv", "--output", fifo)
    reader.join(10)
    assert code == 0, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still a FIFO, not a regular file
    assert got and got[0].startswith(b"prediction,")
    _no_temp_files(tmp_path)


def test_dash_is_standard_output(files, capsys):
    code, out, err = run_cli(capsys, "predict", files / "m.json", files / "d.csv", "--output", "-")
    assert code == 0, err
    assert out.startswith("prediction,") and len(out.splitlines()) == 41
    code, out, _ = run_cli(capsys, "draw", files / "m.json", "--tree", 1, "--output", "-")
    assert code == 0 and out.startswith("digraph")


def test_a_full_disk_names_the_path_and_leaves_the_old_file(files, tmp_path, monkeypatch):
    out = tmp_path / "p.csv"
    out.write_text("old")

    def full(f):
        f.write("part")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError) as e:
        _files.write_atomic(out, full)
    assert str(out) in str(e.value) and "no space left" in str(e.value)
    assert ".teachgbt-" not in str(e.value)
    assert out.read_text() == "old"
    _no_temp_files(tmp_path)


def test_an_unwritable_folder_names_the_output_not_a_temp_file(tmp_path, monkeypatch):
    def denied(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", "/x/.teachgbt-abc.tmp")

    monkeypatch.setattr(_files.tempfile, "mkstemp", denied)
    with pytest.raises(OSError) as e:
        _files.write_atomic(tmp_path / "out.csv", lambda f: f.write("x"))
    assert str(tmp_path / "out.csv") in str(e.value) and ".teachgbt-" not in str(e.value)


# ------------------------------------------------------------------ folders
def test_walkthrough_keeps_the_users_files_unless_forced(tmp_path, capsys):
    out = tmp_path / "wt"
    out.mkdir()
    (out / "walkthrough.txt").write_text("my notes")
    code, _, err = run_cli(capsys, "walkthrough", "troll2", "--out", out)
    refused(code, err, "walkthrough.txt", "--force")
    assert (out / "walkthrough.txt").read_text() == "my notes"
    assert sorted(p.name for p in out.iterdir()) == ["walkthrough.txt"]  # nothing written
    (out / "walkthrough.txt").unlink()
    assert run_cli(capsys, "walkthrough", "troll2", "--out", out)[0] == 0
    assert run_cli(capsys, "walkthrough", "troll2", "--out", out)[0] == 0  # its own files: fine
    (out / "epochs.csv").write_text("edited")
    code, _, err = run_cli(capsys, "walkthrough", "troll2", "--out", out)
    refused(code, err, "epochs.csv")
    assert run_cli(capsys, "walkthrough", "troll2", "--out", out, "--force")[0] == 0
    assert (out / "epochs.csv").read_text() != "edited"
    _no_temp_files(out)


def test_lessons_never_write_through_a_link_out_of_the_folder(tmp_path, capsys):
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours to touch")
    dest = tmp_path / "lessons"
    assert run_cli(capsys, "lessons", dest)[0] == 0
    name = sorted(p.name for p in dest.glob("*.ipynb"))[0]
    (dest / name).unlink()
    (dest / name).symlink_to(outside)
    code, _, err = run_cli(capsys, "lessons", dest)
    refused(code, err, name, "--force")
    assert run_cli(capsys, "lessons", dest, "--force")[0] == 0
    assert outside.read_text() == "not yours to touch"
    assert not (dest / name).is_symlink() and (dest / name).stat().st_size > 100


def test_a_failed_folder_write_leaves_no_partial_file(tmp_path):
    writer = _files.FolderWriter(tmp_path / "out")

    def full(f):
        f.write(b"half a notebook")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError, match="no space left"):
        writer.write("lesson.ipynb", full, binary=True)
    assert not (tmp_path / "out" / "lesson.ipynb").exists()
    _no_temp_files(tmp_path / "out")


# ------------------------------------------------------------------ Ctrl-C
_READY = (
    "import sys, teachgbt.cli; print('ready', flush=True); "
    "sys.exit(teachgbt.cli.main(sys.argv[1:]))"
)


@pytest.fixture(scope="module")
def hist_csv(tmp_path_factory):
    d = tmp_path_factory.mktemp("hist")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40_000, 6))
    y = X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=len(X))
    pd.DataFrame(X, columns=[f"x{i}" for i in range(6)]).assign(y=y).to_csv(
        d / "h.csv", index=False
    )
    return d / "h.csv"


@pytest.mark.parametrize("delay", [0.0, 0.7, 2.0])
def test_ctrl_c_during_a_hist_fit_exits_130_with_nothing_written(hist_csv, tmp_path, delay):
    model = tmp_path / "h.json"
    argv = ["train", str(hist_csv), "--target", "y", "--model", str(model),
            "--tree-method", "hist", "--n-estimators", "400", "--max-depth", "6"]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, "-c", _READY, *argv], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    assert p.stdout.readline().strip() == "ready"
    time.sleep(delay)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, (out, err)
    # one line, after at most the notice of a first compile (an empty numba cache)
    *before, last = err.strip().splitlines()
    assert last == "interrupted", err
    assert all(line.startswith("teachgbt: compiling its numba kernels") for line in before), err
    assert not model.exists() and out == ""
    _no_temp_files(tmp_path)


# ------------------------------------------------------------------ issue 26: links, disks
def test_a_hard_linked_output_is_replaced_and_its_other_name_keeps_the_old(files, tmp_path,
                                                                          capsys):  # fmt: skip
    out, other = tmp_path / "out.csv", tmp_path / "backup.csv"
    out.write_text("old\n")
    os.link(out, other)
    code, _, err = run_cli(capsys, "predict", files / "m.json", files / "d.csv", "--output", out)
    assert code == 0, err
    assert out.read_text().startswith("prediction,") and other.read_text() == "old\n"
    _no_temp_files(tmp_path)


_FULL_DISK = r"""
set -e
mount -t tmpfs -o size=48m tmpfs "$MNT"
printf 'old\n' > "$MNT/out.csv"
ln "$MNT/out.csv" "$MNT/backup.csv"
free=$(df -k --output=avail "$MNT" | tail -1)
dd if=/dev/zero of="$MNT/fill" bs=1k count=$((free - FREE_KB)) 2>/dev/null
set +e
"$PY" -m teachgbt predict "$MODEL" "$DATA" --output "$MNT/out.csv" > /dev/null
echo "exit $?"
head -c 11 "$MNT/out.csv" | tr -d "\n"; echo
wc -l < "$MNT/out.csv"
cat "$MNT/backup.csv"
ls -a "$MNT" | grep -c '^\.teachgbt-' || true
"""


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"),
                    reason="needs root and unshare for a private tmpfs")  # fmt: skip
@pytest.mark.parametrize("free_kb", [600, 9000])
def test_a_hard_linked_output_on_a_full_disk_loses_nothing(tmp_path, free_kb):
    """In a private mount namespace (never the real disks): a tmpfs with room for the
    predictions once (9 MB free) or not at all (0.6 MB). Every name ends with either its
    old content or the complete new file, and no temporary file is left."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(150_000, 3)), columns=["a", "b", "c"])
    X.assign(y=(X["a"] > 0).astype(int)).to_csv(tmp_path / "d.csv", index=False)
    tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X.head(200), (X["a"] > 0)[:200]).save(
        tmp_path / "m.json"
    )
    (tmp_path / "mnt").mkdir()
    env = dict(os.environ, MNT=str(tmp_path / "mnt"), FREE_KB=str(free_kb), PY=sys.executable,
               MODEL=str(tmp_path / "m.json"), DATA=str(tmp_path / "d.csv"))  # fmt: skip
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "bash", "-c", _FULL_DISK],
                          capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
    lines = done.stdout.splitlines()
    assert len(lines) == 5, (done.stdout, done.stderr)
    exit_line, head, count, backup, temps = lines
    assert backup == "old" and temps == "0", done.stdout
    if exit_line == "exit 0":
        assert head == "prediction," and int(count) == 150_001
    else:
        assert exit_line == "exit 2" and "no space left" in done.stderr, done.stderr
        assert head == "old" and count.strip() == "1"


@pytest.mark.parametrize("edition", [False, True])
@pytest.mark.parametrize("force", [False, True])
def test_exercises_never_write_through_a_link_out_of_the_folder(tmp_path, capsys, edition, force):
    out, outside = tmp_path / "out", tmp_path / "outside.txt"
    out.mkdir()
    name = "05_tree_structure_student.ipynb" if edition else "lesson05-student-1.txt"
    if force:
        outside.write_text("the user's file\n")
    (out / name).symlink_to(outside)
    argv = ["exercises", 5, "--out", out] + (["--edition", "student"] if edition else
                                              ["--class", 2])  # fmt: skip
    code, _, err = run_cli(capsys, *argv, *(["--force"] if force else []))
    if force:  # the link itself is replaced by the file; what it pointed to is untouched
        assert code == 0, err
        assert outside.read_text() == "the user's file\n" and not (out / name).is_symlink()
    else:
        refused(code, err, "already holds", name)
        assert not outside.exists() and (out / name).is_symlink()


@pytest.fixture(scope="module")
def big_files(tmp_path_factory):
    """A model and a CSV whose predictions take a few seconds to write (tens of MB)."""
    d = tmp_path_factory.mktemp("big")
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(400_000, 3)).astype(np.float32), columns=["a", "b", "c"])
    X.assign(y=(X["a"] > 0).astype(int)).to_csv(d / "d.csv", index=False, float_format="%.6g")
    tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X.head(300), (X["a"] > 0)[:300]).save(
        d / "m.json"
    )
    return d


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_or_sighup_during_a_write_leaves_no_temporary_file(big_files, tmp_path, sig):
    from safety_corpus import run_process

    for delay in (1.0, 2.5, 4.0):
        work = tmp_path / f"at{delay}"
        work.mkdir()
        (work / "out.csv").write_text("old\n")
        code, _, err, _ = run_process(
            ["python", "-m", "teachgbt", "predict", big_files / "m.json", big_files / "d.csv",
             "--output", work / "out.csv"], send=[(delay, sig)], timeout=120,
        )  # fmt: skip
        _no_temp_files(work)
        text = (work / "out.csv").read_text()
        assert text == "old\n" or text.count("\n") == 400_001, text[:100]
        if text == "old\n":  # stopped before the move: by the signal itself, as shells expect
            assert code == -sig, (code, err)


def test_dev_stdout_into_a_pipe_is_written_as_given(files, tmp_path):
    """/dev/stdout on a pipe is opened as given (it was resolved through /proc to a name
    that does not exist, "cannot write /dev/stdout")."""
    if not os.path.exists("/dev/stdout"):
        pytest.skip("no /dev/stdout here")
    done = subprocess.run(
        [sys.executable, "-m", "teachgbt", "predict", str(files / "m.json"), str(files / "d.csv"),
         "--output", "/dev/stdout"], capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("prediction,") and done.stdout.count("\n") >= 41


def test_dev_stdout_into_a_pipe_closed_early_is_quiet(big_files, tmp_path):
    """`| head`: the reader stops; that is no error to report (as for `-`)."""
    command = (f"'{sys.executable}' -m teachgbt predict '{big_files / 'm.json'}' "
               f"'{big_files / 'd.csv'}' --output /dev/stdout | head -2")  # fmt: skip
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.stdout.startswith("prediction,") and done.stdout.count("\n") == 2
    assert done.stderr == "" and done.returncode == 0, (done.returncode, done.stderr)
