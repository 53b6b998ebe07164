"""The ``teachgbt`` command (also ``python -m teachgbt``)."""

from __future__ import annotations

import argparse
import os
import sys

import pandas as pd

__all__ = ["main", "command"]


from ._run import EXIT_INTERRUPTED, CommandError, run


def _read_csv(path, args):
    from ._csv import read_csv

    na = [v for v in (args.na_values or "").split(",") if v] if args.na_values else None
    return read_csv(path, decimal=args.decimal, thousands=args.thousands, sep=args.sep,
                    na_values=na)  # fmt: skip


def _load_model(args):
    """Any model file (teachgbt, XGBoost .json/.ubj, LightGBM .txt), told apart by content;
    training parameters a file lacks come from the options, and what was assumed is noted."""
    import warnings

    from ..io import ImportAssumptionWarning, open_model

    given = {k: getattr(args, k, None) for k in ("reg_lambda", "learning_rate", "gamma")}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ImportAssumptionWarning)
        model = open_model(args.model, **given)
    for w in caught:
        if issubclass(w.category, ImportAssumptionWarning):
            print(f"note: {_as_options(str(w.message))}", file=sys.stderr)
    if not model.model_.imported and any(v is not None for v in given.values()):
        print(
            "note: --reg-lambda/--learning-rate/--gamma are ignored: a teachgbt model file "
            "stores its parameters",
            file=sys.stderr,
        )
    return model


def _as_options(message):
    """An importer's advice ("Pass reg_lambda=, ...") in command-line words."""
    said, _, advice = message.partition("Pass ")
    if not advice:
        return message
    for arg, opt in (("reg_lambda=", "--reg-lambda"), ("learning_rate=", "--learning-rate"),
                     ("gamma=", "--gamma")):  # fmt: skip
        advice = advice.replace(arg, opt)
    return said + "Give " + advice.replace(" to set them", "")


def _check_output(path, **inputs):
    """Before any work: the output's folder exists and the output is none of the inputs
    (``train d.csv --model d.csv`` would destroy the data). ``-`` is standard output."""
    from ..utils import check_distinct

    if path is None or path == "-":
        return
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise CommandError(f"cannot write {path}: the folder {parent} does not exist")
    check_distinct(path, {k.replace("_", " "): v for k, v in inputs.items()})


def _encode(X, path, only=None):
    """One-hot encode the text columns of the CSV ``path`` (seed 002): returns (X,
    {column: dummies})."""
    from ..teach.datasets import one_hot
    from ..utils import text_columns

    text = [c for c in text_columns(X) if only is None or c in only]
    if not text:
        return X, {}
    try:
        encoded = one_hot(X, columns=text)
    except ValueError as e:
        raise CommandError(f"{path}: {str(e).removeprefix('one_hot: ')}") from None
    return encoded, {c: [d for d in encoded.columns if d.startswith(f"{c}_")] for c in text}


def _as_categories(X):
    """The text columns of a CSV as pandas categories, sorted (``--categorical native``: the
    trees split them into sets): returns (X, {column: categories})."""
    from ..utils import text_columns

    out, found = X.copy(), {}
    for c in text_columns(X):
        categories = sorted(X[c].dropna().unique(), key=str)
        out[c] = pd.Categorical(X[c], categories=categories)
        found[c] = [str(v) for v in categories]
    return out, found


# ------------------------------------------------------------------ commands
def cmd_walkthrough(args):
    from ..teach import walkthrough

    if args.dataset != "troll2":
        raise CommandError(f"unknown dataset {args.dataset!r}; available: troll2")
    out = args.out
    w = walkthrough.troll2()
    if args.html:
        from ..show.explorer import explore

        _check_output(args.html)
        explore(w, title="Troll 2 (seed 004): GBDT, epoch by epoch").save(args.html)
        if args.html != "-":
            print(f"wrote the explorer to {args.html}; open it in a browser (no network needed)")
        if not out:
            return
    print(w)
    if out:
        written = w.save(out, precision=args.precision, force=args.force)
        print(f"\nwrote {len(written)} files to {out}/:")
        for p in written:
            print(f"  {os.path.relpath(p, out)}")


def cmd_train(args):
    from ..estimators import BoostingClassifier, BoostingRegressor
    from ._scores import score_line

    if args.model == "-":
        raise CommandError("--model needs a file name: the training summary is what prints here")
    _check_output(args.model, data_file=args.data)
    df = _read_csv(args.data, args)
    if args.target not in df.columns:
        raise CommandError(
            f"{args.data} has no column {_short(args.target)}; its columns are "
            f"{_short(list(df.columns))}"
        )
    y = df[args.target]
    native = args.categorical == "native"
    if native and args.tree_method != "hist":
        raise CommandError(
            "--categorical native splits text columns into sets of categories, which the hist "
            "trainer does (as XGBoost's enable_categorical): add --tree-method hist"
        )
    features = df.drop(columns=[args.target])
    X, encoded = _as_categories(features) if native else _encode(features, args.data)
    for column, names in encoded.items():
        if native:
            print(f"the text column {column!r} is split into sets of its {len(names)} "
                  f"categories: {_short(names)}")  # fmt: skip
        else:
            print(f"one-hot encoded the text column {column!r} as {', '.join(names)}")
    kind = args.task
    if kind == "auto":  # two values, or labels that are not numbers: classes
        text = not pd.api.types.is_numeric_dtype(y) or pd.api.types.is_bool_dtype(y)
        kind = "classify" if y.nunique(dropna=True) == 2 or text else "regress"
    Est = BoostingClassifier if kind == "classify" else BoostingRegressor
    params = dict(
        algorithm=args.algorithm,
        tree_method=args.tree_method,
        n_estimators=args.n_estimators,
        learning_rate=args.learning_rate,
        max_depth=args.max_depth,
        max_leaves=args.max_leaves,
        reg_lambda=args.reg_lambda,
        gamma=args.gamma,
        min_child_weight=args.min_child_weight,
        max_bin=args.max_bin,
        enable_categorical=native,
    )
    train_rows, held_out = _split_rows(len(X), args.eval_fraction)
    if kind == "classify" and held_out is not None and y.iloc[train_rows].nunique() < 2:
        raise CommandError("the training part holds one class only; use a smaller --eval-fraction")
    model = Est(**params).fit(X.iloc[train_rows], y.iloc[train_rows])
    model.save(args.model)
    kind_word = "classifier" if kind == "classify" else "regressor"
    print(
        f"trained a {kind_word} ({args.algorithm}, {args.tree_method}) with {len(model.trees_)} "
        f"trees on {len(train_rows)} rows x {X.shape[1]} features; saved to {args.model}"
    )
    print(f"training:  {score_line(model, X.iloc[train_rows], y.iloc[train_rows])}")
    if held_out is not None:
        print(f"held out:  {score_line(model, X.iloc[held_out], y.iloc[held_out])} "
              f"({len(held_out)} rows kept out of training)")  # fmt: skip


def _split_rows(n, fraction, seed=0):
    """(training rows, held-out rows or None): a random ``fraction`` held out."""
    import numpy as np

    if fraction is None:
        return np.arange(n), None
    if not 0 < fraction < 1:
        raise CommandError(f"--eval-fraction must be between 0 and 1; got {fraction}")
    n_eval = int(round(fraction * n))
    if n_eval < 1 or n_eval > n - 1:
        raise CommandError(
            f"--eval-fraction {fraction} of {n} rows leaves no rows on one side; "
            "use more rows or another fraction"
        )
    order = np.random.default_rng(seed).permutation(n)
    return np.sort(order[n_eval:]), np.sort(order[:n_eval])


def cmd_predict(args):
    _check_output(args.output, model_file=args.model, data_file=args.data)
    df = _read_csv(args.data, args)  # the data first: its problems are said before model notes
    model = _load_model(args)
    df = _features(model, df, args.data)
    out = pd.DataFrame({"prediction": model.predict(df)})
    classes = getattr(model, "classes_", None)
    if classes is not None and len(classes) > 2:  # one probability and margin per class
        for c, p, m in zip(classes, model.predict_proba(df).T, model.decision_function(df).T):
            out[f"prob_{c}"] = p
            out[f"margin_{c}"] = m
    else:
        if classes is not None:
            out[f"prob_{classes[1]}"] = model.predict_proba(df)[:, 1]
        out["margin"] = model.decision_function(df)
    if args.output and args.output != "-":
        from ..utils import write_atomic

        write_atomic(args.output, lambda f: out.to_csv(f, index=False))
        print(f"wrote {len(out)} predictions to {args.output}")
    else:  # all of it at once: Ctrl-C while computing prints nothing
        sys.stdout.write(out.to_csv(index=False))


def _features(model, df, path):
    """The model's feature columns of a CSV, its text columns one-hot encoded as in training."""
    from ._csv import model_features

    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        # encode the text columns the model was trained on; others (say the target) are unused
        trained = [c for c in df.columns if any(str(n).startswith(f"{c}_") for n in names)]
        df, encoded = _encode(df, path, only=trained)
        # a category absent from these rows is a one-hot column of zeros
        dummies = {d for ds in encoded.values() for d in ds}
        for c in names:
            if c not in df.columns and any(c.startswith(f"{col}_") for col in encoded):
                df[c] = 0.0
                dummies.add(c)
        missing = [c for c in names if c not in df.columns]
        if missing:
            raise CommandError(f"{path} lacks the model's feature columns {missing}")
        unknown = sorted(dummies - set(names))
        if unknown:
            raise CommandError(f"{path} has categories the model never saw in training: {unknown}")
    from ..utils import check_X, encode_categories

    X = model_features(model, df, path)
    categories = model.model_.categories  # features split into sets: read by category name
    text = [c for j, c in enumerate(X.columns)
            if not pd.api.types.is_numeric_dtype(X[c]) and j not in categories]  # fmt: skip
    if text:
        raise CommandError(f"{path}: the feature column {_short(text[0])} holds text, not numbers")
    # an inf named by its column and row of the file, not of a selection
    check_X(encode_categories(X, categories), path)
    return X


def _running_margin(model, values):
    """One row per round: the value its (class's) tree adds and the margin after it, as the
    model sums it (``explain.prediction``'s ``margins``), and the prediction through the
    link when there is one (p for two classes; with K ≥ 3, p needs every class's margin)."""
    import numpy as np

    fitted = model.model_
    adds = np.asarray(values["leaf_values"], dtype=float)
    margin = np.asarray(values["margins"], dtype=float)
    table = pd.DataFrame({"round": values["rounds"], "leaf value": adds,
                          "margin after": margin})  # fmt: skip
    start = {"round": "start", "leaf value": np.nan, "margin after": values["base_margin"]}
    linked = fitted.n_outputs == 1 and fitted.loss.link not in _NO_LINK
    column = "p after" if fitted.loss.link in ("logit", "half logit") else "prediction after"
    if linked:
        table[column] = fitted.link(margin)
        start[column] = float(fitted.link(np.asarray([values["base_margin"]]))[0])
    table = pd.concat([pd.DataFrame([start]), table], ignore_index=True)
    numbers = ["leaf value", "margin after"] + ([column] if linked else [])
    table[numbers] = table[numbers].astype(float).round(4) + 0.0  # + 0.0: never "-0.0"
    return table.astype(object).where(table.notna(), "")


# the links whose prediction is the margin itself: no column of their own
_NO_LINK = ("identity", "score", "mean of trees", "logitraw")


def _numbered_tree(model, i):
    """The tree ``--tree`` names: a tree number (1-based, counting every tree; with three or
    more classes a round has one tree per class), as the model numbers them."""
    n = len(model.trees_)
    if not 1 <= i <= n:
        raise CommandError(f"--tree must be from 1 to {n} (the model has {n} trees)")
    return model.model_.tree(*model.model_.round_and_class(i))


def cmd_draw(args):
    from ..show.draw import MAX_DPI

    if args.dpi is not None and not 10 <= args.dpi <= MAX_DPI:
        raise CommandError(f"--dpi must be from 10 to {MAX_DPI}; got {args.dpi:g}")
    _check_output(args.output, model_file=args.model)
    model = _load_model(args)
    diagram = _numbered_tree(model, args.tree).draw()
    look = {"dpi": args.dpi, "transparent": args.transparent, "theme": args.theme}
    if args.output == "-":  # DOT text, the one format a terminal or a pipe takes
        sys.stdout.write(diagram.dot(**look))
        return
    diagram.save(args.output, **look)
    print(f"drew tree {args.tree} to {args.output}")


_FORMULAS_FOR_ALL = 15  # nodes: a tree this small gets every node's formula


def cmd_explain(args):
    import numpy as np

    from .. import explain

    if args.data is not None:
        if args.tree is not None or args.node is not None:
            raise CommandError("give either --tree [--node] or --data --row, not both")
        df = _read_csv(args.data, args)  # the data first: its problems before model notes
        if args.row is None or not 0 <= args.row < len(df):
            raise CommandError(
                f"--row must be from 0 to {len(df) - 1} (the data rows of {args.data})"
            )
    model = _load_model(args)
    origin = model.model_.origin if model.model_.imported else None
    if args.data is not None:
        X = _features(model, df, args.data)
        if origin:
            print(f"model {origin}")
        print(f"row {args.row} of {args.data} (line {args.row + 2} of the file)")
        class_ = None
        if model.model_.n_outputs > 1:  # follow the class the model predicts for the row
            class_ = int(np.argmax(model.predict_proba(X.iloc[[args.row]])[0]))
        ex = explain.prediction(model, X.iloc[[args.row]], class_=class_)
        print(ex)
        print()
        print(_running_margin(model, ex.values).to_string(index=False))
        return
    if args.tree is None:
        raise CommandError("give --tree K (a tree's nodes and formulas) or --data CSV --row I")
    i = args.tree
    tree = _numbered_tree(model, i)
    if args.node is not None and not 0 <= args.node < tree.n_nodes:
        raise CommandError(f"--node must be from 0 to {tree.n_nodes - 1} (tree {i}'s nodes)")
    if origin:
        print(f"model {origin}")
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(f"tree {i} of {len(model.trees_)}: {tree.n_nodes} nodes, {tree.n_leaves} leaves")
        print(tree.to_frame().to_string(index=False))
    if args.node is not None:
        nodes = [args.node]
    elif tree.n_nodes <= _FORMULAS_FOR_ALL:
        nodes = range(tree.n_nodes)
    else:
        nodes = [0]
        print(f"\n(the root's formula; --node N shows another of the {tree.n_nodes} nodes)")
    for i in nodes:
        print()
        show = explain.leaf if tree.feature[i] < 0 else explain.split
        print(show(model, tree.round, int(i), class_=tree.class_))


def cmd_explore(args):
    from ..show.explorer import explore

    _check_output(args.output, model_file=args.model, data_file=args.data)
    model = _load_model(args)
    X = y = None
    if args.data:
        df = _read_csv(args.data, args)
        if args.target:
            if args.target not in df.columns:
                raise CommandError(f"{args.data} has no column {_short(args.target)}")
            y = df[args.target]
            df = df.drop(columns=[args.target])
        X = _features(model, df, args.data)
    explore(model, X, y, title=os.path.basename(args.model)).save(args.output)
    rows = f" with {len(X)} rows of {args.data}" if X is not None else ""
    if args.output != "-":
        print(f"wrote the explorer of {args.model}{rows} to {args.output}")


def cmd_exercises(args):
    from ..teach.exercises import command

    command(args)


def cmd_lessons(args):
    from importlib import resources
    from pathlib import Path

    from ..utils import FolderWriter

    try:
        src = resources.files("teachgbt.lessons")
    except ModuleNotFoundError:  # an editable install of a source checkout
        src = Path(__file__).resolve().parents[2] / "lessons"
    names = sorted(p.name for p in src.iterdir() if p.name.endswith((".ipynb", ".md")))
    if not names:
        raise CommandError("this installation of teachgbt has no lesson notebooks")
    dest = args.dir
    writer = FolderWriter(dest, force=args.force)
    writer.check(names)  # your work there is kept: nothing is written when one clashes
    for n in names:
        data = (src / n).read_bytes()
        writer.write(n, lambda f, data=data: f.write(data), binary=True)
    print(f"copied {len(names)} files to {dest}/; open them with: jupyter lab {dest}")
    for n in names:
        print(f"  {n}")


def _short(value):
    from ..core import shorten

    return shorten(value)


_MODEL_HELP = "a teachgbt .json, an XGBoost .json/.ubj or a LightGBM .txt (told apart by content)"


def _file_params(parser):
    """Training parameters another library's model file may lack (XGBoost's never has them)."""
    g = parser.add_argument_group("for XGBoost and LightGBM model files")
    g.add_argument("--reg-lambda", type=float, help="λ the model was trained with (default 1)")
    g.add_argument("--learning-rate", type=float, help="η the model was trained with (0.3)")
    g.add_argument("--gamma", type=float, help="γ (min_split_loss) it was trained with (0)")


def _csv_options(parser):
    g = parser.add_argument_group("reading the CSV")
    g.add_argument("--sep", default=",", help="the column separator (default ,)")
    g.add_argument("--decimal", default=".", help="the decimal mark: --decimal , for 3,5")
    g.add_argument("--thousands", default=None, help="the thousands separator: , for 1,234")
    g.add_argument(
        "--na-values",
        metavar="A,B",
        help="texts that mean a missing value in every column (default: an empty cell; NA, "
        "NaN, null ... are missing in a numeric column, categories in a text column)",
    )


def _categorical_option(parser):
    parser.add_argument(
        "--categorical",
        choices=("onehot", "native"),
        default="onehot",
        help="what becomes of text columns: onehot (the default) makes one 0/1 column per "
        "category (seed 002); native splits them into sets of categories, colour ∈ {red, "
        "blue}, as XGBoost's enable_categorical (needs --tree-method hist)",
    )


def build_parser():
    p = argparse.ArgumentParser(
        prog="teachgbt",
        description="Gradient boosted trees you can read: walkthroughs, training, diagrams.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    _walkthrough_parser(sub)
    _train_parser(sub)
    _model_parsers(sub)
    _classroom_parsers(sub)
    return p


def _walkthrough_parser(sub):
    w = sub.add_parser("walkthrough", help="the tutorial's tables, tree diagrams and plots")
    w.add_argument("dataset", nargs="?", default="troll2", help="troll2 (seed 004)")
    w.add_argument("--out", metavar="DIR", help="also write tables (CSV), diagrams and plots here")
    w.add_argument("--html", metavar="FILE.html", help="write the interactive explorer page here")
    w.add_argument("--precision", type=int, default=6, help="significant digits in the CSVs (6)")
    w.add_argument("--force", action="store_true", help="overwrite files of yours in --out DIR")
    w.set_defaults(func=cmd_walkthrough)


def _train_parser(sub):
    t = sub.add_parser("train", help="fit a model on a CSV file and save it as JSON")
    t.add_argument("data", metavar="DATA.csv")
    _csv_options(t)
    t.add_argument("--target", required=True, help="the column to predict")
    t.add_argument("--model", required=True, metavar="OUT.json")
    t.add_argument(
        "--task",
        choices=("auto", "classify", "regress"),
        default="auto",
        help="auto: a classifier when the target has two values or text labels",
    )
    t.add_argument("--algorithm", choices=("xgboost", "gbdt"), default="xgboost")
    t.add_argument("--tree-method", choices=("exact", "hist"), default="exact")
    t.add_argument("--n-estimators", type=int, default=100)
    t.add_argument("--learning-rate", type=float, default=None)
    t.add_argument("--max-depth", type=int, default=6)
    t.add_argument("--max-leaves", type=int, default=None)
    t.add_argument("--reg-lambda", type=float, default=None)
    t.add_argument("--gamma", type=float, default=0.0)
    t.add_argument("--min-child-weight", type=float, default=None)
    t.add_argument("--max-bin", type=int, default=256)
    _categorical_option(t)
    t.add_argument(
        "--eval-fraction",
        type=float,
        default=None,
        metavar="F",
        help="hold out this share of the rows (at random) and report the metrics on it",
    )
    t.set_defaults(func=cmd_train)


def _model_parsers(sub):
    """The commands that read a model file: predict, draw, explain, explore."""
    r = sub.add_parser("predict", help="predict a CSV file with a saved model")
    r.add_argument("model", metavar="MODEL", help=_MODEL_HELP)
    r.add_argument("data", metavar="DATA.csv")
    _csv_options(r)
    r.add_argument("--output", metavar="OUT.csv", help="default (or -): print to the terminal")
    _file_params(r)
    r.set_defaults(func=cmd_predict)

    d = sub.add_parser("draw", help="draw one tree of a saved model")
    d.add_argument("model", metavar="MODEL", help=_MODEL_HELP)
    d.add_argument(
        "--tree",
        type=int,
        required=True,
        help="1-based tree number (K >= 3 classes: K trees a round, class by class)",
    )
    d.add_argument("--output", required=True, metavar="FILE.svg|.png|.pdf|.dot",
                   help="- prints the DOT text")  # fmt: skip
    d.add_argument("--dpi", type=float, metavar="N",
                   help="resolution of a PNG (default 96; 300 for print or slides)")  # fmt: skip
    d.add_argument("--transparent", action="store_true", help="no background")
    d.add_argument("--theme", choices=("light", "dark"), default="light",
                   help="dark: light text and edges, for a dark slide")  # fmt: skip
    _file_params(d)
    d.set_defaults(func=cmd_draw)

    e = sub.add_parser("explain", help="a tree's nodes and formulas, or one prediction")
    e.add_argument("model", metavar="MODEL", help=_MODEL_HELP)
    e.add_argument(
        "--tree",
        type=int,
        help="1-based tree number, counting every tree (K >= 3 classes: K trees a round, "
        "class by class): its node table and formulas",
    )
    e.add_argument("--node", type=int, help="only this node's formula (node ids from 0)")
    e.add_argument("--data", metavar="CSV", help="explain the prediction of one row of this CSV")
    e.add_argument("--row", type=int, help="the data row, counted from 0 (the header is no row)")
    _csv_options(e)
    _file_params(e)
    e.set_defaults(func=cmd_explain)
    x = sub.add_parser("explore", help="one HTML page to step through a model's trees")
    x.add_argument("model", metavar="MODEL", help=_MODEL_HELP)
    x.add_argument("--data", metavar="CSV", help="rows to follow through the trees")
    x.add_argument("--target", metavar="COL", help="the column of --data holding y")
    _csv_options(x)
    x.add_argument("--output", required=True, metavar="FILE.html")
    _file_params(x)
    x.set_defaults(func=cmd_explore)


def _classroom_parsers(sub):
    les = sub.add_parser("lessons", help="copy the lesson notebooks into a folder to work on")
    les.add_argument("dir", nargs="?", default="teachgbt-lessons", metavar="DIR")
    les.add_argument("--force", action="store_true", help="overwrite notebooks already there")
    les.set_defaults(func=cmd_lessons)

    ex = sub.add_parser("exercises", help="a lesson's exercises, one sheet per student")
    ex.add_argument("lesson", metavar="LESSON", help="a lesson's number (5) or name")
    ex.add_argument(
        "--student", metavar="ID", help="the student's own numbers (default: the lesson's)"
    )
    ex.add_argument("--key", action="store_true", help="add the answers, for the teacher")
    ex.add_argument("--solutions", action="store_true", help="add the worked solutions")
    ex.add_argument("--edition", choices=["student", "solutions"], help="write the notebook so")
    ex.add_argument("--class", dest="class_size", type=int, metavar="N", help="N sheets and a key")
    ex.add_argument("--out", metavar="DIR", help="where --class writes its files")
    ex.add_argument("--force", action="store_true", help="overwrite sheets already in DIR")
    ex.set_defaults(func=cmd_exercises)


def main(argv=None):
    """Run the command ``argv`` (default: the process's arguments); its exit status."""
    return run(build_parser, argv)


def command():
    """The ``teachgbt`` program (and ``python -m teachgbt``): ``main()``, then exit with its
    status. After Ctrl-C the process ends at once with 130: a KeyboardInterrupt that passed
    through a library's C code can leave Python marked to end by SIGINT at exit, which
    would turn the one-line "interrupted" into a death by signal."""
    code = main()
    if code == EXIT_INTERRUPTED:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    command()
