"""The ``teachgbt`` command (also ``python -m teachgbt``)."""

from __future__ import annotations

import argparse
import os
import sys

import pandas as pd

__all__ = ["main"]


class CommandError(Exception):
    """A problem the user can fix; printed without a traceback."""


def _read_csv(path):
    if not os.path.exists(path):
        raise CommandError(f"{path}: no such file")
    try:
        return pd.read_csv(path)
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as e:
        raise CommandError(f"{path}: not a readable CSV file ({e})") from None


def _check_output_dir(path):
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise CommandError(f"cannot write {path}: the folder {parent} does not exist")


def _encode(X, only=None):
    """One-hot encode the text columns of a CSV (seed 002): returns (X, {column: dummies})."""
    from ._validation import text_columns
    from .datasets import one_hot

    text = [c for c in text_columns(X) if only is None or c in only]
    if not text:
        return X, {}
    encoded = one_hot(X, columns=text)
    return encoded, {c: [d for d in encoded.columns if d.startswith(f"{c}_")] for c in text}


# ------------------------------------------------------------------ commands
def cmd_walkthrough(args):
    from . import walkthrough

    if args.dataset != "troll2":
        raise CommandError(f"unknown dataset {args.dataset!r}; available: troll2")
    out = args.out
    w = walkthrough.troll2()
    if args.html:
        from .explore import explore

        _check_output_dir(args.html)
        explore(w, title="Troll 2 (seed 004): GBDT, epoch by epoch").save(args.html)
        print(f"wrote the explorer to {args.html}; open it in a browser (no network needed)")
        if not out:
            return
    print(w)
    if out:
        written = w.save(out)
        print(f"\nwrote {len(written)} files to {out}/:")
        for p in written:
            print(f"  {os.path.relpath(p, out)}")


def cmd_train(args):
    from . import BoostingClassifier, BoostingRegressor

    df = _read_csv(args.data)
    if args.target not in df.columns:
        raise CommandError(
            f"{args.data} has no column {args.target!r}; its columns are {list(df.columns)}"
        )
    y = df[args.target]
    X, encoded = _encode(df.drop(columns=[args.target]))
    for column, dummies in encoded.items():
        print(f"one-hot encoded the text column {column!r} as {', '.join(dummies)}")
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
    )
    _check_output_dir(args.model)
    model = Est(**params).fit(X, y)
    model.save(args.model)
    kind_word = "classifier" if kind == "classify" else "regressor"
    print(
        f"trained a {kind_word} ({args.algorithm}, {args.tree_method}) with {len(model.trees_)} "
        f"trees on {len(X)} rows x {X.shape[1]} features; saved to {args.model}"
    )


def _model_frame(model, df, path):
    """The model's feature columns of a CSV frame, text columns one-hot encoded as in train."""
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        # encode the text columns the model was trained on; others (say the target) are unused
        trained = [c for c in df.columns if any(str(n).startswith(f"{c}_") for n in names)]
        df, encoded = _encode(df, only=trained)
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
        df = df[list(names)]
    return df


def cmd_predict(args):
    from .io import load

    model = load(args.model)
    df = _model_frame(model, _read_csv(args.data), args.data)
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
    if args.output:
        from ._files import write_atomic

        _check_output_dir(args.output)
        write_atomic(args.output, lambda f: out.to_csv(f, index=False))
        print(f"wrote {len(out)} predictions to {args.output}")
    else:
        out.to_csv(sys.stdout, index=False)


def cmd_draw(args):
    from .io import load

    model = load(args.model)
    n = len(model.trees_)
    if not 1 <= args.tree <= n:
        raise CommandError(f"--tree must be from 1 to {n} (the model has {n} trees)")
    _check_output_dir(args.output)
    model.trees_[args.tree - 1].draw().save(args.output)
    print(f"drew tree {args.tree} to {args.output}")


def cmd_explore(args):
    from .explore import explore
    from .io import load

    model = load(args.model)
    X = y = None
    if args.data:
        df = _read_csv(args.data)
        if args.target:
            if args.target not in df.columns:
                raise CommandError(f"{args.data} has no column {args.target!r}")
            y = df[args.target]
            df = df.drop(columns=[args.target])
        X = _model_frame(model, df, args.data)
    _check_output_dir(args.output)
    explore(model, X, y, title=os.path.basename(args.model)).save(args.output)
    rows = f" with {len(X)} rows of {args.data}" if X is not None else ""
    print(f"wrote the explorer of {args.model}{rows} to {args.output}")


def cmd_lessons(args):
    import shutil
    from importlib import resources
    from pathlib import Path

    try:
        src = resources.files("teachgbt.lessons")
    except ModuleNotFoundError:  # an editable install of a source checkout
        src = Path(__file__).resolve().parent.parent / "lessons"
    names = sorted(p.name for p in src.iterdir() if p.name.endswith((".ipynb", ".md")))
    if not names:
        raise CommandError("this installation of teachgbt has no lesson notebooks")
    dest = args.dir
    clashes = [n for n in names if os.path.exists(os.path.join(dest, n))]
    if clashes and not args.force:
        raise CommandError(
            f"{dest} already holds {', '.join(clashes)}; your work there is kept. "
            "Choose another folder, or pass --force to overwrite"
        )
    os.makedirs(dest, exist_ok=True)
    for n in names:
        with resources.as_file(src / n) as path:
            shutil.copyfile(path, os.path.join(dest, n))
    print(f"copied {len(names)} files to {dest}/; open them with: jupyter lab {dest}")
    for n in names:
        print(f"  {n}")


def build_parser():
    p = argparse.ArgumentParser(
        prog="teachgbt",
        description="Gradient boosted trees you can read: walkthroughs, training, diagrams.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    w = sub.add_parser("walkthrough", help="the tutorial's tables, tree diagrams and plots")
    w.add_argument("dataset", nargs="?", default="troll2", help="troll2 (seed 004)")
    w.add_argument("--out", metavar="DIR", help="also write tables (CSV), diagrams and plots here")
    w.add_argument("--html", metavar="FILE.html", help="write the interactive explorer page here")
    w.set_defaults(func=cmd_walkthrough)

    t = sub.add_parser("train", help="fit a model on a CSV file and save it as JSON")
    t.add_argument("data", metavar="DATA.csv")
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
    t.set_defaults(func=cmd_train)

    r = sub.add_parser("predict", help="predict a CSV file with a saved model")
    r.add_argument("model", metavar="MODEL.json")
    r.add_argument("data", metavar="DATA.csv")
    r.add_argument("--output", metavar="OUT.csv", help="default: print to the terminal")
    r.set_defaults(func=cmd_predict)

    d = sub.add_parser("draw", help="draw one tree of a saved model")
    d.add_argument("model", metavar="MODEL.json")
    d.add_argument(
        "--tree",
        type=int,
        required=True,
        help="1-based tree number (K classes: K trees a round, class by class)",
    )
    d.add_argument("--output", required=True, metavar="FILE.svg|.png|.pdf|.dot")
    d.set_defaults(func=cmd_draw)

    e = sub.add_parser("explore", help="one HTML page to step through a model's trees")
    e.add_argument("model", metavar="MODEL.json")
    e.add_argument("--data", metavar="CSV", help="rows to follow through the trees")
    e.add_argument("--target", metavar="COL", help="the column of --data holding y")
    e.add_argument("--output", required=True, metavar="FILE.html")
    e.set_defaults(func=cmd_explore)

    les = sub.add_parser("lessons", help="copy the lesson notebooks into a folder to work on")
    les.add_argument("dir", nargs="?", default="teachgbt-lessons", metavar="DIR")
    les.add_argument("--force", action="store_true", help="overwrite notebooks already there")
    les.set_defaults(func=cmd_lessons)
    return p


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    try:
        args.func(args)
    except FileNotFoundError as e:
        print(f"teachgbt {args.command}: error: {e.filename}: no such file", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return 0
    except (CommandError, ValueError, TypeError, KeyError, OSError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        print(f"teachgbt {args.command}: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug of ours: still one line, with what to report
        print(
            f"teachgbt {args.command}: internal error: {type(e).__name__}: {e} "
            "(please report this with the command you ran)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
