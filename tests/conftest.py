"""Fixtures the test files share."""

import os
import shutil

# XGBoost, LightGBM and scikit-learn each run OpenMP threads that spin while they wait;
# on a small machine the spinning threads of one library starve the next one (a 0.1 s
# HistGradientBoosting fit took 5 to 20 s after XGBoost and LightGBM had run). Passive
# waiting must be chosen before any OpenMP runtime starts: here, before the imports.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import pytest  # noqa: E402
from hist_data import KERNELS

import teachgbt as tg
from teachgbt.teach.datasets import troll2_xy
from teachgbt.utils import kernels

# seed 004's settings: two trees, learning rate 0.8, depth 2
SEED_004 = dict(n_estimators=2, learning_rate=0.8, max_depth=2)
# for algorithm="xgboost": XGBoost's penalties off and the tutorial's start, p0 = 4/6
XGBOOST_AS_TUTORIAL = dict(reg_lambda=0.0, min_child_weight=0.0, base_score=4 / 6)


@pytest.fixture(scope="session")
def troll2_model():
    """``troll2_model(algorithm="xgboost", **params) -> (model, X, y)``: the Troll 2
    classifier with seed 004's settings; ``params`` override them."""

    def make(algorithm="xgboost", **params):
        X, y = troll2_xy()
        settings = {**SEED_004, **(XGBOOST_AS_TUTORIAL if algorithm == "xgboost" else {})}
        model = tg.BoostingClassifier(algorithm=algorithm, **{**settings, **params}).fit(X, y)
        return model, X, y

    return make


@pytest.fixture(params=KERNELS)
def kernel(request, monkeypatch):
    """Run a test with each kernel (numpy always; numba when installed)."""
    monkeypatch.setattr(kernels, "KERNEL", request.param)
    return request.param


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium (the system's, which .ci/run installs from Debian) for one test
    module; the module's tests are skipped when Playwright or Chromium is missing."""
    sync_api = pytest.importorskip("playwright.sync_api")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium on PATH")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield b
        b.close()
