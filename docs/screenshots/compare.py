"""The side-by-side of issue 29: supertree, dtreeviz and the explorer on one XGBoost model.

    pip install supertree dtreeviz      # for this picture only: not teachgbt's dependencies
    python docs/screenshots/compare.py [OUT_DIR]

Breast cancer, ``XGBClassifier(n_estimators=20, max_depth=3, tree_method="exact")``, tree
1: supertree's page, dtreeviz's SVG and ``tg.explore(tg.from_xgboost(model), X, y)``, each
in Chromium (no network) at 1280 × 720 and 1920 × 1080, written as
``{supertree,dtreeviz,teachgbt}_WxH.png``.
"""

import os
import sys
import warnings

import dtreeviz
import xgboost as xgb
from playwright.sync_api import sync_playwright
from sklearn.datasets import load_breast_cancer
from supertree import SuperTree

import teachgbt as tg

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def offline(route):
    """Only the files themselves: supertree's page asks the web for its logo."""
    local = route.request.url.startswith(("file:", "data:"))
    return route.continue_() if local else route.abort()


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    warnings.simplefilter("ignore")
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target
    names = ["malignant", "benign"]
    model = xgb.XGBClassifier(n_estimators=20, max_depth=3, tree_method="exact").fit(X, y)
    pages = {
        "supertree": os.path.join(out, "supertree.html"),
        "dtreeviz": os.path.join(out, "dtreeviz.svg"),
        "teachgbt": os.path.join(out, "teachgbt.html"),
    }
    SuperTree(model, X, y, list(X.columns), names).save_html(pages["supertree"], which_tree=0)
    viz = dtreeviz.model(model, X_train=X, y_train=y, feature_names=list(X.columns),
                         target_name="diagnosis", class_names=names, tree_index=0)  # fmt: skip
    viz.view().save(pages["dtreeviz"])
    tg.explore(tg.from_xgboost(model), X, y, class_names=names).save(pages["teachgbt"])
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for W, H in ((1280, 720), (1920, 1080)):
            for name, path in pages.items():
                pg = browser.new_page(viewport={"width": W, "height": H})
                pg.route("**/*", offline)
                pg.goto(f"file://{path}")
                if name == "teachgbt":
                    pg.wait_for_selector("body[data-ready='1']")
                    pg.click("#next")
                else:
                    pg.wait_for_timeout(2500)
                pg.screenshot(path=os.path.join(out, f"{name}_{W}x{H}.png"))
                pg.close()
        browser.close()


if __name__ == "__main__":
    main()
