"""Screenshots of the explorer, walkthrough.html and slide diagrams (issue 29).

    python docs/screenshots/shoot.py [OUT_DIR] [PREFIX]

Needs Playwright and a Chromium (``/usr/bin/chromium``, or ``CHROMIUM=...``); nothing is
fetched from the network. Writes PREFIX_*.png (default ``after``) into OUT_DIR (default
this folder): breast-cancer models of depth 3 and 5 at 1280 × 720 and 1920 × 1080 after
Next, with a picked row, with three A+ presses; the Troll 2 explorer's round 0 and
Epochs tab; walkthrough.html; a tree for a dark slide.
"""

import io
import os
import sys
import tempfile
import warnings

import matplotlib

matplotlib.use("Agg")

from playwright.sync_api import sync_playwright  # noqa: E402
from sklearn.datasets import load_breast_cancer  # noqa: E402

import teachgbt as tg  # noqa: E402
from teachgbt.teach.walkthrough.html import walkthrough_page  # noqa: E402

SIZES = [(1280, 720), (1920, 1080)]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def pages(folder):
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target
    out = {}
    for depth in (3, 5):
        clf = tg.BoostingClassifier(n_estimators=20, max_depth=depth).fit(X, y)
        ex = tg.explore(clf, X, y, class_names=["malignant", "benign"])
        out[f"cancer_d{depth}"] = ex.save(os.path.join(folder, f"cancer_d{depth}.html"))
    w = tg.walkthrough.troll2()
    out["troll2"] = tg.explore(w).save(os.path.join(folder, "troll2.html"))
    walk = os.path.join(folder, "walkthrough.html")
    with open(walk, "w", encoding="utf-8") as f:
        f.write(walkthrough_page(w))
    out["walkthrough"] = walk
    return out, w


def offline(pg):
    pg.route(
        "**/*",
        lambda r: r.continue_() if r.request.url.startswith(("file:", "data:")) else r.abort(),
    )


def shoot(browser, paths, out, prefix):
    def shot(pg, name):
        pg.screenshot(path=os.path.join(out, f"{prefix}_{name}.png"))

    for W, H in SIZES:
        size = f"{W}x{H}"
        for key in ("cancer_d3", "cancer_d5"):
            pg = browser.new_page(viewport={"width": W, "height": H})
            offline(pg)
            pg.goto(f"file://{paths[key]}")
            pg.wait_for_selector("body[data-ready='1']")
            pg.click("#next")
            if key == "cancer_d5":
                pg.click("#next")  # round 2's tree is five levels deep
            shot(pg, f"{key}_{size}")
            pg.fill("#row-input", "7")
            pg.press("#row-input", "Enter")
            shot(pg, f"{key}_{size}_row7")
            pg.close()
        pg = browser.new_page(viewport={"width": W, "height": H})
        offline(pg)
        pg.goto(f"file://{paths['cancer_d3']}")
        pg.wait_for_selector("body[data-ready='1']")
        pg.click("#next")
        pg.click("g.node[data-node='1'] > rect")
        for _ in range(3):
            pg.click("#font-up")
        shot(pg, f"cancer_d3_{size}_A+x3")
        pg.close()
        pg = browser.new_page(viewport={"width": W, "height": H})
        offline(pg)
        pg.goto(f"file://{paths['troll2']}")
        pg.wait_for_selector("body[data-ready='1']")
        for _ in range(3):
            pg.click("#font-up")
        shot(pg, f"troll2_{size}_round0_A+x3")
        pg.click("#font-down")
        pg.click("#font-down")
        pg.click("#font-down")
        pg.click("#next")
        pg.click("#next")
        pg.click("#tab-epochs")
        shot(pg, f"troll2_{size}_epochs")
        pg.close()
        pg = browser.new_page(viewport={"width": W, "height": H})
        offline(pg)
        pg.goto(f"file://{paths['walkthrough']}")
        pg.locator("#tg-epoch-1 h4").nth(1).scroll_into_view_if_needed()
        shot(pg, f"walkthrough_{size}")
        pg.close()


def slide(w, out, prefix):
    """A tree on a dark slide: the dark theme's transparent PNG over a slide's colour."""
    from PIL import Image

    png = w.model.trees_[0].draw().render("png", transparent=True, theme="dark")
    tree = Image.open(io.BytesIO(png)).convert("RGBA")
    back = Image.new("RGBA", (tree.width + 80, tree.height + 80), (24, 32, 64, 255))
    back.alpha_composite(tree, (40, 40))
    back.convert("RGB").save(os.path.join(out, f"{prefix}_diagram_dark_slide.png"))


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__))
    prefix = sys.argv[2] if len(sys.argv) > 2 else "after"
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as folder:
        paths, w = pages(folder)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            shoot(browser, paths, out, prefix)
            browser.close()
    slide(w, out, prefix)


if __name__ == "__main__":
    main()
