"""Every case of issue 26, run as a hostile user would, each in a process of its own.

    python benchmarks/safety_cases.py                 # all cases, a table on stdout
    python benchmarks/safety_cases.py --only xgb      # the cases whose name holds "xgb"
    PYTHONPATH=/tmp/old python benchmarks/safety_cases.py --out before.tsv

Each case makes its input files in a fresh temporary folder, runs ``python -m teachgbt``
(or a short script) with a 4 GB address-space cap and a time limit, and says what happened:
the exit status or the signal, the first line of the error, the peak memory, the seconds,
and what the case itself checks (the user's old data kept, a dialog fired in Chromium,
margins against the library's own). The teachgbt run is whatever ``import teachgbt`` finds,
so the same script measures an old checkout (PYTHONPATH) and the current one.

Not a test: the suite's tests (tests/test_safety_*.py) assert the outcomes; this prints
them side by side for a report.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

# the suite's sampler of a process tree's peak memory (tests/safety_corpus.py: stdlib only)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from safety_corpus import sample_peaks  # noqa: E402

AS_LIMIT = 4 << 30
TIMEOUT = 60.0
PY = sys.executable
XSS = ["<script>alert(1)</script>", '"><img src=x onerror=alert(2)>']
ESC = ["\x1b]0;pwned\x07", "\x1b[2J"]


# ------------------------------------------------------------------ running one process
class Result:
    def __init__(self, code, out, err, seconds, peak_mb, timed_out):
        self.code, self.out, self.err = code, out, err
        self.seconds, self.peak_mb, self.timed_out = seconds, peak_mb, timed_out

    @property
    def lines(self):
        return [ln for ln in self.err.strip().splitlines() if not ln.startswith("note: ")]

    def describe(self, name_of=None):
        if self.timed_out:
            head = f"still running after {self.seconds:.0f} s (killed)"
        elif self.code < 0:
            head = f"killed by {signal.Signals(-self.code).name} (exit {self.code})"
        else:
            head = f"exit {self.code}"
            first = self.lines[0] if self.lines else ""
            if "Traceback" in self.err:
                head += (
                    f", traceback ({len(self.err.splitlines())} lines): "
                    + (self.err.strip().splitlines()[-1][:90])
                )
            elif first:
                head += f", {len(self.lines)} line{'s' * (len(self.lines) > 1)}: " + first[:110]
            if name_of is not None and self.code == 2 and name_of not in self.err:
                head += " [file not named]"
        return f"{head}; {self.seconds:.1f} s, {self.peak_mb:.0f} MB"


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
    os.setsid()
    # a harness started in the background has Ctrl-C ignored, which its children inherit
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(argv, cwd, timeout=TIMEOUT, stdin=None, env=None, send=None, shell=False):
    """Run ``argv``; ``send``: [(seconds, signal)] sent to the process group meanwhile.
    Returns a Result (peak memory: the process's high-water resident size plus its
    largest child's, sampled from /proc while it runs)."""
    full_env = dict(os.environ, **(env or {}))
    start = time.perf_counter()
    p = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=full_env,
        preexec_fn=_limit,
        shell=shell,
    )
    if stdin is not None:
        p.stdin.write(stdin)
        p.stdin.close()
    import threading

    outs = {}

    def drain(name, stream):
        outs[name] = stream.read()

    threads = [threading.Thread(target=drain, args=(n, s)) for n, s in
               (("out", p.stdout), ("err", p.stderr))]  # fmt: skip
    for t in threads:
        t.start()
    pending = sorted(send or [])
    timed_out = False
    status = None
    peaks = {}
    while True:
        sample_peaks(p.pid, peaks)
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        now = time.perf_counter() - start
        while pending and pending[0][0] <= now:
            _, sig = pending.pop(0)
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                pass
        if now > timeout:
            timed_out = True
            os.killpg(p.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(p.pid, 0)
            break
        time.sleep(0.01)
    seconds = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    for t in threads:
        t.join(5)
    try:
        os.killpg(p.pid, signal.SIGKILL)  # children left behind (a shell's pipeline)
    except (ProcessLookupError, PermissionError):
        pass
    own = peaks.pop(p.pid, 0)
    peak = (own + max(peaks.values(), default=0)) / 1024  # the command and its largest child
    return Result(
        p.returncode,
        outs.get("out", b"").decode("utf-8", "replace"),
        outs.get("err", b"").decode("utf-8", "replace"),
        seconds,
        peak,
        timed_out,
    )


def tg(*args, cwd, **kw):
    return run([PY, "-m", "teachgbt", *map(str, args)], cwd, **kw)


def script(code, cwd, **kw):
    return run([PY, "-c", textwrap.dedent(code)], cwd, **kw)


# ------------------------------------------------------------------ the inputs
def make_fixtures(d):
    """CSV files and models of each library, made once (in this process)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    y = (X["a"] + X["b"] > 0).astype(int)
    X.assign(y=y).to_csv(d / "data.csv", index=False)
    X.assign(y=X["a"] * 3 + X["c"]).to_csv(d / "reg.csv", index=False)
    import lightgbm as lgb
    import xgboost as xgb

    est = xgb.XGBClassifier(n_estimators=3, max_depth=3, n_jobs=1).fit(X, y)
    est.save_model(d / "xgb.json")
    est.save_model(d / "xgb.ubj")
    y3 = np.digitize(X["a"], [-0.5, 0.5])
    xgb.XGBClassifier(n_estimators=2, max_depth=2, n_jobs=1).fit(X, y3).save_model(d / "xgb3.json")
    many = xgb.XGBClassifier(n_estimators=60, max_depth=4, n_jobs=1, learning_rate=0.5)
    Xm = pd.DataFrame(rng.normal(size=(3000, 8)))
    many.fit(Xm, (Xm[0] * Xm[1] + Xm[2] > 0).astype(int)).save_model(d / "xgb_many.json")
    lgbm = lgb.LGBMClassifier(n_estimators=3, num_leaves=4, verbose=-1, n_jobs=1).fit(X, y)
    lgbm.booster_.save_model(d / "lgb.txt")
    # a wide problem for the Ctrl-C and SIGTERM cases: past the compiled kernels' size
    n = 400_000
    big = pd.DataFrame(rng.normal(size=(n, 5)).astype(np.float32), columns=list("pqrst"))
    big["y"] = (big["p"] + big["q"] * big["r"] > 0).astype(int)
    big.to_csv(d / "big.csv", index=False, float_format="%.6g")
    subprocess.run([PY, "-m", "teachgbt", "train", d / "data.csv", "--target", "y", "--model",
                    d / "tg.json", "--n-estimators", "3", "--max-depth", "2"],
                   check=True, capture_output=True)  # fmt: skip
    subprocess.run([PY, "-m", "teachgbt", "train", d / "reg.csv", "--target", "y", "--model",
                    d / "tg_reg.json", "--n-estimators", "3", "--max-depth", "2"],
                   check=True, capture_output=True)  # fmt: skip
    subprocess.run([PY, "-m", "teachgbt", "train", d / "big.csv", "--target", "y", "--model",
                    d / "tg_big.json", "--n-estimators", "3", "--max-depth", "3", "--tree-method",
                    "hist"], check=True, capture_output=True)  # fmt: skip


def xgb_dict(fix, name="xgb.json"):
    return json.loads((fix / name).read_text())


def tree0(d):
    return d["learner"]["gradient_booster"]["model"]["trees"][0]


def gbm(d):
    return d["learner"]["gradient_booster"]["model"]


def write_json(path, d):
    path.write_text(json.dumps(d))
    return path


# ------------------------------------------------------------------ the cases
CASES = {}


def case(name, group):
    def register(f):
        CASES[name] = (group, f)
        return f

    return register


def _explain(path, tmp):
    return tg("explain", path, "--tree", 1, cwd=tmp).describe(str(path))


def _xgb_mutation(mutate, name="xgb.json"):
    def f(fix, tmp):
        d = xgb_dict(fix, name)
        mutate(d)
        return _explain(write_json(tmp / "bad.json", d), tmp)

    return f


def _set_t0(key, i, v):
    def m(d):
        tree0(d)[key][i] = v

    return m


XGB = {
    "xgb tree_info[0] = 10**30": lambda d: gbm(d)["tree_info"].__setitem__(0, 10**30),
    "xgb tree_info[0] = -1": lambda d: gbm(d)["tree_info"].__setitem__(0, -1),
    "xgb tree_info[0] = inf": lambda d: gbm(d)["tree_info"].__setitem__(0, float("inf")),
    "xgb tree_info = 'abc'": lambda d: gbm(d).__setitem__("tree_info", "abc"),
    "xgb iteration_indptr[0] = -1": lambda d: gbm(d)["iteration_indptr"].__setitem__(0, -1),
    "xgb parents[1] = -1": _set_t0("parents", 1, -1),
    "xgb parents[1] = 10**9": _set_t0("parents", 1, 10**9),
    "xgb categories_nodes = [1] (numeric model)": lambda d: tree0(d).__setitem__(
        "categories_nodes", [1]
    ),
    "xgb default_left a scalar": lambda d: tree0(d).__setitem__("default_left", 0),
    "xgb loss_changes = {}": lambda d: tree0(d).__setitem__("loss_changes", {}),
    "xgb num_parallel_tree 'inf'": lambda d: gbm(d)["gbtree_model_param"].__setitem__(
        "num_parallel_tree", "inf"
    ),
    "xgb num_target 'inf'": lambda d: d["learner"]["learner_model_param"].__setitem__(
        "num_target", "inf"
    ),
    "xgb size_leaf_vector 'inf'": lambda d: tree0(d)["tree_param"].__setitem__(
        "size_leaf_vector", "inf"
    ),
    "xgb num_trees 'x'": lambda d: gbm(d)["gbtree_model_param"].__setitem__("num_trees", "x"),
    "xgb num_nodes '-1'": lambda d: tree0(d)["tree_param"].__setitem__("num_nodes", "-1"),
    "xgb no tree_param": lambda d: tree0(d).pop("tree_param"),
    "xgb right child != left + 1": lambda d: (
        tree0(d)["right_children"].__setitem__(0, tree0(d)["left_children"][0]),
        tree0(d)["left_children"].__setitem__(0, tree0(d)["right_children"][0] + 1),
    ),
}
for _name, _m in XGB.items():
    case(_name, "crafted XGBoost files")(_xgb_mutation(_m))


@case("xgb multiclass base_score '[1e308,0,0]'", "silent wrong answers")
def _(fix, tmp):
    d = xgb_dict(fix, "xgb3.json")
    d["learner"]["learner_model_param"]["base_score"] = "[1E308,0,0]"
    path = write_json(tmp / "bad.json", d)
    r = tg("predict", path, fix / "data.csv", cwd=tmp)
    nan = "nan" in r.out.lower()
    return r.describe(str(path)) + (" [NaN probabilities]" if nan and r.code == 0 else "")


@case("xgb num_feature = 1048576 (75 KB file)", "crafted XGBoost files")
def _(fix, tmp):
    d = xgb_dict(fix, "xgb_many.json")
    d["learner"]["learner_model_param"]["num_feature"] = "1048576"
    for t in gbm(d)["trees"]:
        t["tree_param"]["num_feature"] = "1048576"
    d["learner"]["feature_names"] = []
    d["learner"]["feature_types"] = []
    path = write_json(tmp / "wide.json", d)
    return _explain(path, tmp) + f" [{path.stat().st_size // 1024} KB]"


@case("xgb num_feature = 1048576 (1 tree)", "crafted XGBoost files")
def _(fix, tmp):
    d = xgb_dict(fix)
    d["learner"]["learner_model_param"]["num_feature"] = "1048576"
    g = gbm(d)
    g["trees"] = g["trees"][:1]
    g["tree_info"] = [0]
    g["iteration_indptr"] = [0, 1]
    g["gbtree_model_param"]["num_trees"] = "1"
    d["learner"]["feature_names"] = []
    d["learner"]["feature_types"] = []
    path = write_json(tmp / "wide1.json", d)
    return _explain(path, tmp) + f" [{path.stat().st_size} bytes]"


@case("xgb .ubj: 60 random byte flips", "crafted XGBoost files")
def _(fix, tmp):
    data = (fix / "xgb.ubj").read_bytes()
    rng = random.Random(26)
    seen = {}
    worst = None
    for k in range(60):
        b = bytearray(data)
        i = rng.randrange(len(b))
        b[i] = rng.randrange(256)
        p = tmp / f"flip{k}.ubj"
        p.write_bytes(bytes(b))
        r = tg("explain", p, "--tree", 1, cwd=tmp, timeout=30)
        if r.timed_out:
            key = "hang"
        elif r.code < 0:
            key = signal.Signals(-r.code).name
        elif r.code == 2 and len(r.lines) == 1 and str(p) in r.err:
            key = "refused, one line naming the file"
        elif r.code == 2:
            key = "refused, file not named or several lines"
        elif r.code == 0:
            key = "exit 0"
        else:
            key = f"exit {r.code}"
        seen[key] = seen.get(key, 0) + 1
        worst = max(worst or 0, r.peak_mb)
    return ", ".join(f"{v} {k}" for k, v in sorted(seen.items())) + f"; peak {worst:.0f} MB"


def _fifo_case(source):
    def f(fix, tmp):
        fifo = tmp / "model.fifo"
        os.mkfifo(fifo)
        # a writer that feeds the file once, as `cat model > fifo` does
        feeder = subprocess.Popen(["sh", "-c", f"cat '{fix / source}' > '{fifo}'"])
        r = tg("explain", fifo, "--tree", 1, cwd=tmp, timeout=30)
        feeder.kill()
        feeder.wait()
        return r.describe(str(fifo))

    return f


case("xgb model read from a FIFO", "reading files")(_fifo_case("xgb.json"))
case("LightGBM model read from a FIFO", "reading files")(_fifo_case("lgb.txt"))


@case("xgb model as <(cat m.json) (/dev/fd/N)", "reading files")
def _(fix, tmp):
    cmd = f"exec {PY} -m teachgbt explain <(cat '{fix / 'xgb.json'}') --tree 1"
    r = run(["bash", "-c", cmd], tmp)
    return r.describe()


@case("model from standard input (-)", "reading files")
def _(fix, tmp):
    r = tg("explain", "-", "--tree", 1, cwd=tmp, stdin=(fix / "lgb.txt").read_bytes())
    return r.describe()


def _lgb_tree_text(n_leaves):
    """One LightGBM tree of ``n_leaves`` leaves, every split on feature 0 (a balanced heap:
    split i has children 2i+1 and 2i+2, or leaves past the last split)."""
    import numpy as np

    n_int = n_leaves - 1
    kids = np.arange(1, 2 * n_int + 1).reshape(-1, 2)
    leaf_ids = kids - n_int
    kids = np.where(kids >= n_int, ~leaf_ids, kids)
    fmt = lambda a: " ".join(map(str, a))  # noqa: E731
    return "\n".join([
        "Tree=0", f"num_leaves={n_leaves}", "num_cat=0",
        "split_feature=" + fmt(np.zeros(n_int, int)),
        "split_gain=" + fmt(np.ones(n_int, int)),
        "threshold=" + fmt(np.arange(n_int) * 1e-3),
        "decision_type=" + fmt(np.full(n_int, 2)),
        "left_child=" + fmt(kids[:, 0]), "right_child=" + fmt(kids[:, 1]),
        "leaf_value=" + fmt(np.linspace(-1, 1, n_leaves)),
        "leaf_weight=" + fmt(np.ones(n_leaves, int)), "leaf_count=" + fmt(np.ones(n_leaves, int)),
        "internal_value=" + fmt(np.zeros(n_int, int)),
        "internal_weight=" + fmt(np.ones(n_int, int) * 2),
        "internal_count=" + fmt(np.ones(n_int, int) * 2),
        "is_linear=0", "shrinkage=1", "", "",
    ])  # fmt: skip


def _lgb_with_trees(fix, body):
    text = (fix / "lgb.txt").read_text()
    head, _, rest = text.partition("Tree=0")
    _, _, tail = rest.partition("end of trees")
    head = head.replace("tree_sizes=", "x_tree_sizes=")
    return head + body + "end of trees" + tail


for _n in (200_000, 800_000):

    @case(f"LightGBM tree of {_n // 1000}k leaves: predict 2 rows", "crafted LightGBM files")
    def _(fix, tmp, n=_n):
        path = tmp / "wide.txt"
        path.write_text(_lgb_with_trees(fix, _lgb_tree_text(n)))
        rows = tmp / "two.csv"
        rows.write_text("a,b,c\n0.5,0,0\n-1,0,0\n")
        r = tg("predict", path, rows, cwd=tmp, timeout=90)
        return r.describe(str(path))


def _lgb_margins_case(make):
    def f(fix, tmp):
        import lightgbm
        import numpy as np
        import pandas as pd

        path = tmp / "m.txt"
        path.write_text(make((fix / "lgb.txt").read_text()))
        r = tg("predict", path, fix / "data.csv", cwd=tmp)
        note = ""
        if r.code == 0:
            X = pd.read_csv(fix / "data.csv").drop(columns="y").to_numpy()
            theirs = lightgbm.Booster(model_file=str(path)).predict(X, raw_score=True)
            import io

            ours = pd.read_csv(io.StringIO(r.out))["margin"].to_numpy()
            gap = float(np.max(np.abs(ours - theirs)))
            note = f" [margins differ from LightGBM's by up to {gap:.3g}]"
        return r.describe(str(path)) + note

    return f


case("LightGBM text concatenated twice", "silent wrong answers")(_lgb_margins_case(lambda t: t + t))


def _tree_after_end(text):
    head, _, rest = text.partition("Tree=0")
    block = "Tree=0" + rest.partition("Tree=1")[0]
    return text.replace("end of trees", "end of trees\n\n" + block.replace("Tree=0", "Tree=3"), 1)


case("LightGBM Tree= block after 'end of trees'", "silent wrong answers")(
    _lgb_margins_case(_tree_after_end)
)


@case("LightGBM num_class=-1", "crafted LightGBM files")
def _(fix, tmp):
    text = (fix / "lgb.txt").read_text().replace("num_class=1", "num_class=-1", 1)
    path = tmp / "m.txt"
    path.write_text(text)
    return _explain(path, tmp)


def _tg_mutation(mutate, model="tg.json", command="predict"):
    def f(fix, tmp):
        d = json.loads((fix / model).read_text())
        mutate(d)
        path = write_json(tmp / "m.json", d)
        csv = fix / ("reg.csv" if "reg" in model else "data.csv")
        if command == "explain":
            return _explain(path, tmp)
        r = tg("predict", path, csv, cwd=tmp)
        bad = r.code == 0 and ("inf" in r.out or "nan" in r.out.lower())
        return r.describe(str(path)) + (" [inf/NaN predictions]" if bad else "")

    return f


def _leaf_1e308(d):
    t = d["trees"][0]
    i = t["feature"].index(-1)
    t["value"][i] = 1e308
    t2 = d["trees"][1]
    t2["value"][t2["feature"].index(-1)] = 1e308


case("teachgbt JSON leaf values 1e308", "silent wrong answers")(
    _tg_mutation(_leaf_1e308, "tg_reg.json")
)
case("teachgbt JSON base_score 1e308", "silent wrong answers")(
    _tg_mutation(lambda d: d.__setitem__("base_score", 1e308), "tg_reg.json")
)
case("teachgbt JSON classes [0, 0]", "silent wrong answers")(
    _tg_mutation(lambda d: d.__setitem__("classes", [0, 0]))
)
case("teachgbt JSON gain = {}", "crafted teachgbt files")(
    _tg_mutation(lambda d: d["trees"][0].__setitem__("gain", {}), command="explain")
)


# ------------------------------------------------------------------ script injection
_HTML_SCRIPT = r"""
import sys, numpy as np, pandas as pd, teachgbt as tg
out = sys.argv[1]
XSS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(2)>']
rng = np.random.default_rng(0)
X = pd.DataFrame(rng.normal(size=(40, 2)), columns=XSS)
X['c'] = np.where(rng.random(40) < 0.5, XSS[0], XSS[1])
y = np.where(X[XSS[0]] > 0, XSS[0], XSS[1])
Xn = tg.datasets.one_hot(X)
clf = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(Xn, y)
def save(name, text):
    open(f"{out}/{name}.html", "w").write(text)
def attempt(name, make):
    try:
        save(name, make())
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}", file=sys.stderr)
attempt("style-splits", lambda: tg.display.style(clf.trace_.splits(1, 0))._repr_html_())
attempt("style-nodes", lambda: tg.display.style(clf.trace_.nodes(1))._repr_html_())
attempt("style-to_frame", lambda: tg.display.style(clf.trees_[0].to_frame())._repr_html_())
attempt("display-splits", lambda: tg.display.splits(clf, 1, 0)._repr_html_())
attempt("display-instances", lambda: tg.display.instances(clf, 1)._repr_html_())
attempt("display-epochs", lambda: tg.display.epochs(clf)._repr_html_())
attempt("explorer-model", lambda: tg.explore(clf, Xn, y).html())
attempt("explorer-inline", lambda: tg.explore(clf, Xn, y)._repr_html_())
Xw = X.rename(columns={XSS[0]: XSS[0] + "w"})
w = tg.walkthrough.walkthrough(Xw.head(12), y[:12], n_estimators=1)
attempt("walkthrough-block", lambda: w._repr_html_())
from teachgbt.teach.walkthrough.html import walkthrough_page
attempt("walkthrough-page", lambda: walkthrough_page(w))
attempt("explorer-walkthrough", lambda: tg.explore(w).html())
d = clf.trees_[0].draw()
d.save(f"{out}/diagram.svg")
attempt("diagram-inline", lambda: d._repr_mimebundle_().get("text/html", "") or
        '<img src="diagram.svg"><object data="diagram.svg"></object>')
"""


def _dialogs(files):
    """{file: dialogs fired} when each page is opened in Chromium."""
    import shutil

    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    counts = {}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for f in files:
            pg = b.new_page()
            fired = []

            def on_dialog(dlg, fired=fired):
                fired.append(dlg.message)
                dlg.dismiss()

            pg.on("dialog", on_dialog)
            pg.goto(f"file://{f}")
            pg.wait_for_timeout(800)
            for frame in pg.frames:  # an explorer inline sits in an iframe
                try:
                    frame.wait_for_load_state()
                except Exception:
                    pass
            pg.wait_for_timeout(200)
            counts[f.name] = len(fired)
            pg.close()
        b.close()
    return counts


@case("HTML of every view with injected names", "script injection")
def _(fix, tmp):
    r = run([PY, "-c", _HTML_SCRIPT, str(tmp)], tmp, env={"MPLBACKEND": "Agg"}, timeout=300)
    if r.code != 0:
        return r.describe()
    files = sorted(tmp.glob("*.html")) + sorted(tmp.glob("*.svg"))
    counts = _dialogs(files)
    fired = {k: v for k, v in counts.items() if v}
    said = ", ".join(f"{k}: {v}" for k, v in fired.items()) or "none"
    errors = f"; errors: {r.err.strip()[:200]}" if r.err.strip() else ""
    return f"{sum(counts.values())} dialogs in {len(counts)} pages ({said}){errors}"


def _terminal_case(argv_of):
    def f(fix, tmp):
        import numpy as np
        import pandas as pd

        rng = np.random.default_rng(1)
        X = pd.DataFrame(rng.normal(size=(60, 2)), columns=["x" + ESC[0], "z" + ESC[1]])
        X["k"] = np.where(rng.random(60) < 0.5, "u" + ESC[1], "v")
        X["y"] = np.where(X.iloc[:, 0] > 0, "yes" + ESC[0], "no")
        X.to_csv(tmp / "esc.csv", index=False)
        r0 = tg("train", tmp / "esc.csv", "--target", "y", "--model", tmp / "m.json",
                "--n-estimators", 2, "--max-depth", 2, cwd=tmp)  # fmt: skip
        if "train" in argv_of("", tmp):
            r = r0
        else:
            r = tg(*argv_of(fix, tmp), cwd=tmp)
        raw = "\x1b" in r.out or "\x1b" in r.err or "\x07" in r.out
        return ("raw control characters printed; " if raw else "no raw control characters; ") + (
            r.describe()
        )

    return f


case("terminal: train summary with escape sequences in names", "script injection")(
    _terminal_case(lambda fix, tmp: ["train"])
)
case("terminal: explain --tree", "script injection")(
    _terminal_case(lambda fix, tmp: ["explain", tmp / "m.json", "--tree", 1])
)
case("terminal: explain --data --row", "script injection")(
    _terminal_case(
        lambda fix, tmp: ["explain", tmp / "m.json", "--data", tmp / "esc.csv", "--row", 0]
    )
)
case("terminal: draw --output -", "script injection")(
    _terminal_case(lambda fix, tmp: ["draw", tmp / "m.json", "--tree", 1, "--output", "-"])
)
case("terminal: predict to stdout", "script injection")(
    _terminal_case(lambda fix, tmp: ["predict", tmp / "m.json", tmp / "esc.csv"])
)


# ------------------------------------------------------------------ data loss
@case("hard-linked output on a full disk", "data loss")
def _(fix, tmp):
    """The output (16 MB) fits once in the free space but not twice: the temporary file
    is written, then copying it into a hard-linked target runs out of space."""
    mnt = tmp / "mnt"
    mnt.mkdir()
    old = "old,content\n" * 2000
    (tmp / "old.txt").write_text(old)
    sh = f"""
        set -e
        mount -t tmpfs -o size=64m tmpfs '{mnt}'
        cp '{tmp}/old.txt' '{mnt}/out.csv'
        ln '{mnt}/out.csv' '{mnt}/backup.csv'
        free=$(df -k --output=avail '{mnt}' | tail -1)
        dd if=/dev/zero of='{mnt}/fill' bs=1k count=$((free - 24000)) 2>/dev/null
        set +e
        {PY} -m teachgbt predict '{fix / "tg_big.json"}' '{fix / "big.csv"}' \\
            --output '{mnt}/out.csv' > /dev/null
        if cmp -s '{mnt}/out.csv' '{tmp}/old.txt'; then echo out-kept
        elif [ "$(wc -l < '{mnt}/out.csv')" = 400001 ]; then echo out-complete
        else echo out-HALF-WRITTEN; fi
        cmp -s '{mnt}/backup.csv' '{tmp}/old.txt' && echo backup-kept || echo backup-CHANGED
        ls -a '{mnt}' | grep -c teachgbt || true
    """
    r = run(["unshare", "-m", "--propagation", "private", "bash", "-c", sh], tmp, timeout=120)
    words = r.out.split()
    said = r.err.strip().splitlines()[-1][:110] if r.err.strip() else ""
    return f"{' '.join(words[:2])}, temporary files left: {words[2:3]}; {said}"


def _exercises_link(force, edition=False):
    def f(fix, tmp):
        out = tmp / "out"
        out.mkdir()
        outside = tmp / "outside.txt"
        name = "05_tree_structure_student.ipynb" if edition else "lesson05-student-1.txt"
        if force:
            outside.write_text("the user's file\n")
        (out / name).symlink_to(outside)
        argv = ["exercises", 5, "--out", out]
        argv += ["--edition", "student"] if edition else ["--class", 2]
        if force:
            argv.append("--force")
        r = tg(*argv, cwd=tmp)
        if force:
            kept = outside.read_text() == "the user's file\n"
            what = "outside file kept" if kept else "outside file OVERWRITTEN"
        else:
            what = "file created outside DIR" if outside.exists() else "nothing outside DIR"
        return f"{what}; " + r.describe()

    return f


case("exercises --class --out DIR: dangling link in DIR", "data loss")(_exercises_link(False))
case("exercises --class --force: link in DIR to an outside file", "data loss")(
    _exercises_link(True)
)
case("exercises --edition --out DIR: dangling link in DIR", "data loss")(
    _exercises_link(False, edition=True)
)
case("exercises --edition --force: link to an outside file", "data loss")(
    _exercises_link(True, edition=True)
)


def _signal_during_write(sig):
    def f(fix, tmp):
        left, outcomes = 0, []
        for delay in (1.5, 2.5, 3.5, 4.5, 6.0):
            work = tmp / f"d{delay}"
            work.mkdir()
            r = tg("predict", fix / "tg_big.json", fix / "big.csv", "--output",
                   work / "out.csv", cwd=tmp, send=[(delay, sig)])  # fmt: skip
            tmps = [p for p in work.iterdir() if p.name.startswith(".teachgbt-")]
            left += bool(tmps)
            outcomes.append(r.code)
        return f"temporary file left in {left} of 5 runs; exits {outcomes}"

    return f


case("SIGTERM during predict --output", "data loss")(_signal_during_write(signal.SIGTERM))
case("SIGHUP during predict --output", "data loss")(_signal_during_write(signal.SIGHUP))


# ------------------------------------------------------------------ Ctrl-C
@case("Ctrl-C during the first compile (empty numba cache)", "Ctrl-C")
def _(fix, tmp):
    worst, codes, extra = 0.0, [], 0
    for delay in (0.8, 1.2, 1.6, 2.2, 3.0):
        cache = tmp / f"cache{delay}"
        r = tg("train", fix / "big.csv", "--target", "y", "--model", tmp / "m.json",
               "--tree-method", "hist", "--n-estimators", 300, cwd=tmp,
               env={"NUMBA_CACHE_DIR": str(cache)}, send=[(delay, signal.SIGINT)],
               timeout=delay + 30)  # fmt: skip
        worst = max(worst, r.seconds - delay)
        codes.append("hang" if r.timed_out else r.code)
        said = [ln for ln in r.err.strip().splitlines() if not ln.startswith("teachgbt: compil")]
        extra += "Exception ignored" in r.err or len(said) > 1
    return f"exits {codes}; slowest stop {worst:.1f} s after Ctrl-C; noisy stderr in {extra} of 5"


@case("Ctrl-C while Python imports teachgbt", "Ctrl-C")
def _(fix, tmp):
    outcomes = []
    for delay in (0.05, 0.15, 0.3, 0.45, 0.6):
        r = tg("explain", fix / "tg.json", "--tree", 1, cwd=tmp, send=[(delay, signal.SIGINT)],
               env={"PYTHONDONTWRITEBYTECODE": "1"})  # fmt: skip
        n = len(r.err.strip().splitlines())
        outcomes.append(f"{r.code}/{n} line{'s' * (n != 1)}")
    return "exit/stderr lines: " + ", ".join(outcomes)


# ------------------------------------------------------------------ devices
@case("--output /dev/stdout into a pipe", "devices")
def _(fix, tmp):
    cmd = (f"{PY} -m teachgbt predict '{fix / 'tg.json'}' '{fix / 'data.csv'}' "
           "--output /dev/stdout | head -3")  # fmt: skip
    r = run(["bash", "-c", cmd], tmp)
    return f"{len(r.out.splitlines())} lines on the pipe; " + r.describe()


# ------------------------------------------------------------------ inputs read wrong
@case("CSV rows with one more field than the header", "silent wrong answers")
def _(fix, tmp):
    rows = ["a,b,y"] + [f"{i},{i % 7},{i % 2},{i % 5}" for i in range(200)]
    (tmp / "d.csv").write_text("\n".join(rows) + "\n")
    return tg("train", tmp / "d.csv", "--target", "y", "--model", tmp / "m.json",
              cwd=tmp).describe(str(tmp / "d.csv"))  # fmt: skip


@case("CSV category literally 'NA'", "silent wrong answers")
def _(fix, tmp):
    rows = ["c,a,y"] + [f"{['NA', 'b', 'c'][i % 3]},{i},{i % 2}" for i in range(60)]
    (tmp / "d.csv").write_text("\n".join(rows) + "\n")
    r = tg("train", tmp / "d.csv", "--target", "y", "--model", tmp / "m.json", cwd=tmp)
    enc = [ln for ln in r.out.splitlines() if "one-hot" in ln]
    return (enc[0][:110] if enc else "no one-hot line") + "; " + r.describe()


_DASK = r"""
import sys, numpy as np, pandas as pd, dask, dask.dataframe as dd
from distributed import Client, LocalCluster
import teachgbt as tg
import teachgbt.dask as tgd
how = sys.argv[1]
rng = np.random.default_rng(0)
X = pd.DataFrame(rng.normal(size=(4000, 3)), columns=list("abc"))
y = (X.a + 0.5 * X.b > 0).astype(int)
parts = [X.iloc[:2000], X.iloc[2000:]]
if how == "order":
    parts[1] = parts[1][["c", "b", "a"]]
elif how == "rename":
    parts[1] = parts[1].rename(columns={"c": "d"})
elif how == "inf":
    parts[1] = parts[1].copy(); parts[1].iloc[5, 0] = np.inf
ddf = dd.from_delayed([dask.delayed(p) for p in parts], meta=X.iloc[:0], verify_meta=False)
dy = dd.from_pandas(y, npartitions=2, sort=False)
with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as c, Client(c) as cl:
    if how == "closed":
        cl.close()
    try:
        m = tgd.DaskBoostingClassifier(n_estimators=5, max_depth=2).fit(ddf, dy)
    except Exception as e:
        print(f"{type(e).__name__}: {e}".splitlines()[0][:150]); sys.exit(0)
    local = tg.BoostingClassifier(n_estimators=5, max_depth=2, tree_method="hist").fit(X, y)
    gap = np.max(np.abs(m.predict_proba(X)[:, 1] - local.predict_proba(X)[:, 1]))
    print(f"trained; probabilities differ from the local fit by up to {gap:.2g}")
"""


def _dask_case(how):
    def f(fix, tmp):
        r = run([PY, "-c", _DASK, how], tmp, timeout=180)
        return (r.out.strip() or r.describe())[:160]

    return f


for _how, _what in (("order", "columns in another order"), ("rename", "a renamed column"),
                    ("inf", "inf in a partition"), ("closed", "a closed client")):  # fmt: skip
    case(f"Dask: a partition with {_what}", "silent wrong answers")(_dask_case(_how))


_API = {
    "DataFrame with 0 columns": (
        "tg.BoostingRegressor().fit(pd.DataFrame(index=range(5)), np.ones(5))"
    ),
    "regression target near 1e18, exact": (
        "r = np.random.default_rng(0); tg.BoostingRegressor(n_estimators=3).fit("
        "r.normal(size=(1000, 3)), 3e18 * r.random(1000))"
    ),
    "eval_set of another width": (
        "tg.BoostingRegressor(n_estimators=2).fit(np.ones((20, 2)), np.arange(20.), "
        "eval_set=[(np.ones((5, 3)), np.ones(5))])"
    ),
    "eval_set y of another length (classifier)": (
        "tg.BoostingClassifier(n_estimators=2).fit(np.ones((20, 2)), np.arange(20) % 2, "
        "eval_set=[(np.ones((5, 2)), np.ones(7))])"
    ),
    "y mixing ints and strings": (
        "tg.BoostingClassifier(n_estimators=2).fit(np.arange(20.).reshape(-1, 1), "
        "np.array([1, 'a'] * 10, dtype=object))"
    ),
    "duplicate DataFrame column names": (
        "tg.BoostingRegressor(n_estimators=2).fit(pd.DataFrame(np.ones((20, 2)), "
        "columns=['a', 'a']), np.arange(20.))"
    ),
    "text column a (value 'x') beside numeric a_x": (
        "tg.walkthrough.walkthrough(pd.DataFrame({'a': list('xy') * 10, "
        "'a_x': np.arange(20.)}), np.arange(20) % 2)"
    ),
    "classes given twice (from_trees)": (
        "m = tg.BoostingClassifier(n_estimators=1).fit(np.arange(20.).reshape(-1, 1), "
        "np.arange(20) % 2); tg.BoostingClassifier.from_trees(m.trees_, base_score=0.5, "
        "classes=[0, 0])"
    ),
}

for _name, _code in _API.items():

    @case(f"API: {_name}", "API messages")
    def _(fix, tmp, code=_code):
        prog = (
            "import numpy as np, pandas as pd, teachgbt as tg\n"
            f"try:\n    {code}\n    print('accepted')\n"
            "except Exception as e:\n    print(f'{type(e).__name__}: {e}'.splitlines()[0][:150])"
        )
        r = run([PY, "-c", prog], tmp)
        return r.out.strip() or r.describe()


# ------------------------------------------------------------------ mutated files, in bulk
_BULK = r"""
import copy, json, sys
from teachgbt.cli import main
src, out = sys.argv[1], sys.argv[2]
start = int(sys.argv[3])
d0 = json.load(open(src))
VALUES = [{}, "x", -1, 10**30, [], None, 1.5, "1e400", [[1]], True]
def paths(d, prefix=()):
    if isinstance(d, dict):
        for k, v in d.items():
            if k == "trees":
                yield from paths(v[0], prefix + (k, 0))
                continue
            yield prefix + (k,)
            yield from paths(v, prefix + (k,))
    elif isinstance(d, list) and d and not isinstance(d[0], (dict, list)):
        yield prefix + (0,)
cases = [(p, v) for p in paths(d0) for v in VALUES]
for k in range(start, len(cases)):
    p, v = cases[k]
    d = copy.deepcopy(d0)
    node = d
    for key in p[:-1]:
        node = node[key]
    node[p[-1]] = v
    path = f"{out}/m{k}.json"
    json.dump(d, open(path, "w"))
    print(f"START {k}", flush=True)
    import io, contextlib
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["explain", path, "--tree", "1"])
    lines = [l for l in err.getvalue().strip().splitlines() if not l.startswith("note: ")]
    named = path in err.getvalue()
    kind = ("ok" if code == 0 else "clean" if code == 2 and len(lines) == 1 and named
            else "internal" if "internal error" in err.getvalue() else "unnamed")
    print(f"DONE {k} {kind} {len(cases)}", flush=True)
"""


@case("mutated XGBoost JSON, every field x 10 values", "messages")
def _(fix, tmp):
    counts, start, total = {}, 0, None
    while total is None or start < total:
        r = run([PY, "-c", _BULK, str(fix / "xgb.json"), str(tmp), str(start)], tmp,
                timeout=900)  # fmt: skip
        last = start
        for ln in r.out.splitlines():
            parts = ln.split()
            if parts[0] == "START":
                last = int(parts[1])
            else:
                counts[parts[2]] = counts.get(parts[2], 0) + 1
                total = int(parts[3])
                last = int(parts[1]) + 1
        if r.code != 0 or r.timed_out:  # the case at `last` crashed the process
            kind = "hang" if r.timed_out else f"signal {-r.code}" if r.code < 0 else "crash"
            counts[kind] = counts.get(kind, 0) + 1
            last += 1
        start = last
        if total is None:
            break
    return f"{total} files: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))


# ------------------------------------------------------------------ main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="run the cases whose name holds this")
    ap.add_argument("--out", help="also write 'case<TAB>outcome' lines here")
    ap.add_argument("--fixtures", help="reuse (or make) the inputs in this folder")
    args = ap.parse_args()
    fix = Path(args.fixtures or tempfile.mkdtemp(prefix="tg-fix-"))
    fix.mkdir(parents=True, exist_ok=True)
    if not (fix / "tg_big.json").exists():
        make_fixtures(fix)
    rows = []
    for name, (group, f) in CASES.items():
        if args.only.lower() not in name.lower() and args.only.lower() not in group.lower():
            continue
        with tempfile.TemporaryDirectory(prefix="tg-case-") as t:
            try:
                outcome = f(fix, Path(t))
            except Exception as e:  # the harness's own failure, said as such
                outcome = f"(harness: {type(e).__name__}: {e})"
        outcome = " ".join(outcome.split())
        rows.append((group, name, outcome))
        print(f"{group}\t{name}\t{outcome}", flush=True)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as f_out:
                f_out.write(f"{group}\t{name}\t{outcome}\n")


if __name__ == "__main__":
    main()
