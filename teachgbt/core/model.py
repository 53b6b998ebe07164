"""The fitted model: what training, an import or a model file produced, and the one place
that turns it into margins.

A ``Model`` holds the base margin(s), the trees in XGBoost's order (round by round, one
tree per class within a round when K ≥ 3), the classes, the feature names, the loss and
its link, where the model came from and the parameters it was trained with. Everything
that shows or checks a model — the estimators, the trace, explanations, plots,
contributions, the command line, the explorer — asks it rather than re-deriving:

    model.margins(X, iteration_range)   base margin + Σ η·f_t(x) over rounds start … end−1
    model.margins_after(X, t)           the margins after t rounds (t = 0: the base margin)
    model.running_margins(X)            the margins after each round in turn, in the
                                        model's precision (what every view that follows a
                                        row round by round shows)
    model.next_margins(X, t, margins)   round t's trees added to the margins before it
                                        (the trace and the eval sets keep theirs)
    model.predict(X, iteration_range)   the link applied: probabilities, or the margin
    model.tree(t, class_)               the tree of round t (1-based) and class k (0-based)
    model.tree_number(t, class_)        its tree number (1-based, counting every tree), and
    model.round_and_class(i)            back: tree number i's round and class
    model.n_rounds, model.n_outputs     rounds, and trees per round (K, or 1)
    model.is_classifier                 the margin is log-odds (or K softmax margins)
    model.feature_name(j)               the name of feature j

Names: ``t`` is a round (1-based), ``k`` or ``class_`` a class (0-based), ``i`` a tree
number (1-based, counting every tree: XGBoost's order, round by round, one tree per class
within a round, so tree i is ``trees[i − 1]``).

``engine.training.train`` returns one; ``BoostingClassifier.from_trees`` wraps one made
from trees.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..utils import check_X, encode_categories
from . import routing
from .tree import add_tree_values

__all__ = [
    "Model",
    "FITTED_HERE",
    "MADE_FROM_TREES",
    "tree_number",
    "round_and_class",
    "add_rounds",
]

# where a model came from, when it was not imported or trained on a cluster
FITTED_HERE = "fitted here"
MADE_FROM_TREES = "made from trees (tg.load, from_trees)"


def tree_number(t, k, K):
    """The number (1-based, counting every tree) of round ``t``'s tree of class ``k`` in a
    model of ``K`` trees a round: XGBoost's order, round by round, class by class. The one
    place a round and a class become a tree number; ``round_and_class`` is the way back."""
    return (t - 1) * K + k + 1


def round_and_class(i, K):
    """``(t, k)``: the round (1-based) and class (0-based) of tree number ``i`` (1-based) in a
    model of ``K`` trees a round; the inverse of ``tree_number``."""
    t, k = divmod(i - 1, K)
    return t + 1, k


def add_rounds(trees, X, margins):
    """``margins`` + Σ η·f(x) of ``trees`` (whole rounds, XGBoost's order), tree after tree
    in the margins' precision: the one place margins are added. ``margins``: (n,), or (n, K)
    whose column k class k's trees (every K-th, from the k-th) add to."""
    if margins.ndim == 1:
        return add_tree_values(trees, X, margins)
    K = margins.shape[1]
    out = np.empty_like(margins)
    for k in range(K):
        out[:, k] = add_tree_values(trees[k::K], X, np.ascontiguousarray(margins[:, k]))
    return out


class Model:
    """A fitted gradient boosted trees model.

    ``trees``: ``tg.Tree`` objects in XGBoost's order, whole rounds; their leaves hold
    η·w*. ``base_score``: in prediction space (a probability for two classes; K margins
    for K ≥ 3). ``loss``: a ``teachgbt.core.losses.Loss`` (its ``transform`` is the link).
    ``classes``: a classifier's labels, None for a regressor. ``params``: the effective
    ``GrowParams`` the trees were (or would be) grown with; ``algorithm``: "xgboost" or
    "gbdt"; ``margin_dtype``: the precision margins are summed in (float32 as XGBoost,
    float64 as scikit-learn's GBDT). ``best_iteration``: 0-based best round of early
    stopping, or None. ``origin``: where the model came from ("fitted here", "made from
    trees (tg.load, from_trees)", "imported from LightGBM (m.txt)", ...). ``categories``:
    ``{feature: its categories}`` of the categorical features (code c is categories[c]),
    by which DataFrame columns are read as codes; every tree shows them.
    """

    def __init__(
        self,
        trees,
        base_score,
        loss,
        *,
        n_features,
        feature_names=None,
        classes=None,
        params=None,
        algorithm="xgboost",
        margin_dtype=np.float32,
        best_iteration=None,
        origin=FITTED_HERE,
        categories=None,
    ):
        self.loss = loss
        self.base_score = base_score
        self.base_margin = loss.base_margin(base_score)
        self.n_features = int(n_features)
        self.feature_names = None if feature_names is None else [str(c) for c in feature_names]
        self.classes = None if classes is None else np.asarray(classes)
        self.params = params
        self.algorithm = algorithm
        self.margin_dtype = margin_dtype
        self.best_iteration = best_iteration
        self.origin = origin
        self.evals_result = {}  # XGBoost's evals_result(): filled while training
        self.trace = None  # an engine.trace.Trace when the training data was kept
        self.categories = {int(j): list(v) for j, v in (categories or {}).items()}
        self.trees = []
        trees = list(trees)
        K = self.n_outputs
        if len(trees) % K:
            raise ValueError(
                f"{K} classes need one tree per class in every round; "
                f"{len(trees)} trees are not whole rounds of {K}"
            )
        for start in range(0, len(trees), K):
            self.add_round(trees[start : start + K])

    # ------------------------------------------------------------ what it is
    @property
    def n_outputs(self):
        """Margins per instance, and trees per round: K for softmax, else 1."""
        return self.loss.n_outputs

    @property
    def n_rounds(self):
        return len(self.trees) // self.n_outputs

    @property
    def is_classifier(self):
        """Whether the margin is log-odds (or K softmax margins) and predictions are
        probabilities: the one answer to "is it a classifier?" for everything that shows it."""
        return bool(self.loss.is_classification)

    @property
    def imported(self):
        """Whether the trees were grown by another library (the importers' origin says
        "imported from <library> (<source>)")."""
        return self.origin.startswith("imported from")

    @property
    def n_classes(self):
        return 0 if self.classes is None else len(self.classes)

    def feature_name(self, j):
        """The name of feature ``j`` (0-based): the model's, else ``f{j}``."""
        if self.feature_names is not None:
            return self.feature_names[j]
        return f"f{j}"

    @property
    def names(self):
        """Every feature's name (``f0``, ``f1``, ... when the model has none)."""
        return [self.feature_name(j) for j in range(self.n_features)]

    def link(self, margin):
        """Margin → prediction: σ, softmax, or the margin itself."""
        return self.loss.transform(margin)

    # ------------------------------------------------------------ trees by round and class
    def add_round(self, trees):
        """Append one round's trees (one, or one per class) and stamp each with its round
        (1-based) and class (0-based, K ≥ 3 only) where it has none: the one place that
        numbers trees."""
        K = self.n_outputs
        if len(trees) != K:
            raise ValueError(f"a round has {K} tree(s); got {len(trees)}")
        t = self.n_rounds + 1
        for k, tree in enumerate(trees):
            if self.categories and not tree.category_names:
                tree.category_names = self.categories
            if tree.round is None:
                tree.round = t
            if tree.class_ is None and K > 1:
                tree.class_ = k
        self.trees.extend(trees)

    def check_round(self, t):
        """``t`` as a round number 1 … n_rounds, or a ValueError saying what is allowed."""
        ok = isinstance(t, numbers.Integral) and not isinstance(t, bool)
        if not ok or not 1 <= t <= self.n_rounds:
            raise ValueError(f"round t must be a whole number from 1 to {self.n_rounds}; got {t!r}")
        return int(t)

    def check_class(self, class_):
        """The class index a round's tree is picked by: required with K ≥ 3 classes (an
        index into ``classes``), None otherwise (then 0 is returned)."""
        K = self.n_outputs
        if K == 1:
            if class_ is not None:
                raise ValueError(
                    f"class_={class_!r}: this model has one tree per round; class_ is for "
                    "classifiers of three or more classes"
                )
            return 0
        labels = ", ".join(f"{k} ({self._label(k)!r})" for k in range(K))
        if class_ is None:
            raise ValueError(
                f"this model has {K} classes and one tree per class each round: "
                f"pass class_= one of {labels}"
            )
        ok = isinstance(class_, numbers.Integral) and not isinstance(class_, bool)
        if not ok or not 0 <= class_ < K:
            raise ValueError(f"class_ must be one of {labels}; got {class_!r}")
        return int(class_)

    def _label(self, k):
        if self.classes is None:
            return k
        return np.asarray(self.classes[k]).tolist()

    def tree_number(self, t, class_=None):
        """The number (1-based, counting every tree) of round ``t``'s tree of class
        ``class_`` (both checked): ``trees[tree_number(t, class_) − 1]``."""
        return tree_number(self.check_round(t), self.check_class(class_), self.n_outputs)

    def check_tree_number(self, i):
        """``i`` as a tree number 1 … len(trees), or a ValueError saying what is allowed."""
        n = len(self.trees)
        ok = isinstance(i, numbers.Integral) and not isinstance(i, bool)
        if not ok or not 1 <= i <= n:
            raise ValueError(
                f"a tree number counts every tree, from 1 to {n}"
                + (f" ({self.n_outputs} a round)" if self.n_outputs > 1 else "")
                + f"; got {i!r}"
            )
        return int(i)

    def round_and_class(self, i):
        """``(t, class_)`` of tree number ``i`` (checked): its round, and its class with K ≥ 3
        classes (None otherwise), ready to pass back as ``tree(t, class_)``."""
        t, k = round_and_class(self.check_tree_number(i), self.n_outputs)
        return t, (k if self.n_outputs > 1 else None)

    def tree(self, t, class_=None):
        """The tree of round ``t`` (1-based); with K ≥ 3 classes, class ``class_``'s."""
        return self.trees[self.tree_number(t, class_) - 1]

    def _first(self, t):
        """Position in ``trees`` of round t's first tree (t = n_rounds + 1: the end)."""
        return tree_number(t, 0, self.n_outputs) - 1

    def round_trees(self, t):
        """The trees of round t (1-based): one, or one per class."""
        return self.trees[self._first(self.check_round(t)) : self._first(t + 1)]

    # ------------------------------------------------------------ prediction
    def rounds(self, iteration_range=None):
        """``(start, end)``: the rounds start … end−1 (0-based) a prediction adds, with
        XGBoost's meaning: None, or ``end = 0``, is up to the last round, or up to
        ``best_iteration`` after early stopping; so (0, 0) is every round."""
        n = self.n_rounds
        last = n if self.best_iteration is None else min(self.best_iteration + 1, n)
        if iteration_range is None:
            return 0, last
        try:
            start, end = iteration_range
        except (TypeError, ValueError):
            raise ValueError(
                f"iteration_range must be a pair (start, end) of rounds; got {iteration_range!r}"
            ) from None
        for v in (start, end):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool):
                raise ValueError(
                    f"iteration_range must be whole numbers (start, end); got {iteration_range!r}"
                )
        end = last if end == 0 else int(end)
        if not 0 <= start <= end <= n:
            raise ValueError(
                f"iteration_range={tuple(iteration_range)!r}: this model has {n} rounds; use "
                f"0 <= start <= end <= {n} (end = 0: up to the last round)"
            )
        return int(start), end

    def used_trees(self, iteration_range=None, class_=None):
        """The trees a prediction over ``iteration_range`` adds; with ``class_`` (K ≥ 3)
        only that class's."""
        start, end = self.rounds(iteration_range)
        trees = self.trees[self._first(start + 1) : self._first(end + 1)]
        if class_ is None:
            return trees
        return trees[self.check_class(class_) :: self.n_outputs]  # class k: every K-th tree

    def class_base_margin(self, class_=None):
        """The starting margin a class's trees add to (the one margin when K = 1)."""
        k = self.check_class(class_)
        return float(np.asarray(self.base_margin, dtype=np.float64).reshape(-1)[k])

    def check_X(self, X, what="X", owner="the model"):
        """``X`` validated and in the precision the trees read it: float32, or float64 when a
        tree compares float64 values (LightGBM, HistGradientBoosting), where finite values
        beyond float32 are numbers too. Returns (matrix, feature names or None).
        ``owner`` names who expects the model's features in the error for a wrong count."""
        trees = self.trees
        X = encode_categories(X, self.categories)  # category columns as their codes
        # the libraries that predict values beyond float32 predict ±inf too (scikit-learn's
        # GradientBoosting and forests refuse both)
        wide = routing.takes_beyond_float32(trees)
        X, names = check_X(X, what, routing.input_dtype(trees), wide, allow_inf=wide)
        if X.shape[1] != self.n_features:
            raise ValueError(
                f"{what} has {X.shape[1]} features, but {owner} is expecting "
                f"{self.n_features} features as input (it was fitted with {self.n_features})"
            )
        return X, names

    def margins(self, X, iteration_range=None):
        """Base margin + Σ η·f_t(x) over the rounds of ``iteration_range``, summed in the
        model's precision: (n,), or (n, K) with K ≥ 3 classes. ``X``: the validated
        feature matrix (``check_X``)."""
        trees = self.used_trees(iteration_range)
        return add_rounds(trees, X, self.start_margins(len(X))).astype(np.float64)

    def margins_after(self, X, t):
        """The margins after the first ``t`` rounds; t = 0 is the base margin alone (which
        no ``iteration_range`` asks for: XGBoost reads (0, 0) as every round)."""
        ok = isinstance(t, numbers.Integral) and not isinstance(t, bool)
        if not ok or not 0 <= t <= self.n_rounds:
            raise ValueError(f"t must be a whole number of rounds from 0 to {self.n_rounds}; "
                             f"got {t!r}")  # fmt: skip
        trees = self.trees[: self._first(t + 1)]
        return add_rounds(trees, X, self.start_margins(len(X))).astype(np.float64)

    def start_margins(self, n):
        """The base margin of ``n`` rows, in the model's precision: (n,), or (n, K)."""
        base = np.asarray(self.base_margin, dtype=self.margin_dtype)
        if self.n_outputs == 1:
            return np.full(n, base, dtype=self.margin_dtype)
        return np.tile(base, (n, 1))

    def running_margins(self, X, iteration_range=None):
        """``(t, margins after round t)`` for the rounds of ``iteration_range`` (as
        ``margins``'s): first ``(start, the base margin)``, then each round's trees added in
        turn, in the model's precision (``margin_dtype``) and order, so that every view that
        follows a row round by round shows these very numbers; the last are ``margins``'s.
        Arrays (n,), or (n, K) with K ≥ 3 classes."""
        start, end = self.rounds(iteration_range)
        margins = self.start_margins(len(X))
        yield start, margins
        for t in range(start + 1, end + 1):
            margins = self.next_margins(X, t, margins)
            yield t, margins

    def next_margins(self, X, t, margins):
        """The margins after round ``t``, given ``margins``, those after round t − 1 in the
        model's precision: ŷ^(t) = ŷ^(t−1) + η·f_t(x)."""
        return add_rounds(self.round_trees(t), X, margins)

    def predict(self, X, iteration_range=None):
        """The link applied to ``margins``: probabilities for a classifier."""
        return self.link(self.margins(X, iteration_range))

    def __repr__(self):
        kind = "classifier" if self.is_classifier else "regressor"
        per = f" of {self.n_outputs} trees" if self.n_outputs > 1 else ""
        return (
            f"<teachgbt.Model: {self.algorithm} {kind}, {self.n_rounds} rounds{per}, "
            f"{self.n_features} features; {self.origin}>"
        )
