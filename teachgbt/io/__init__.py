"""Reading and writing models: teachgbt's versioned JSON, and models of other libraries.

* ``load(path)`` reads a model written by ``model.save(path)``; ``open_model(path)`` reads
  any model file teachgbt knows, told apart by content (teachgbt JSON, XGBoost JSON or
  UBJSON, LightGBM text).
* ``from_xgboost``, ``from_lightgbm``, ``from_sklearn`` turn another library's fitted
  model into a fitted teachgbt model: the same predictions, and trees whose nodes carry
  the G, H, w* and gain the tutorials compute, recovered from what the library stores.

Categorical splits are read as set splits (``x ∈ S``), with each library's rule for which
way its set, missing and unseen categories go, and the categories' names (``_categories``).

A file is read once (a FIFO, a pipe or ``-`` cannot be read twice), checked field by
field before anything uses it (``_validate``), and the import's margins are compared with
the library's own, which the library computes in a child process on the file's own bytes
(``_library``): a file that crashes it is refused in one line, never taking teachgbt down.

Every model is built through the public constructor ``BoostingClassifier.from_trees`` /
``BoostingRegressor.from_trees``. The teachgbt file format itself (name, version,
model → dict) lives in ``teachgbt.io.native``, which ``model.save`` uses.
"""

from __future__ import annotations

import os

from ..core.tree import Tree
from ..estimators import BoostingClassifier, BoostingRegressor
from ._common import ImportAssumptionWarning, build, check_margins, named, self_check
from ._validate import check_model_dict
from .native import (
    FORMAT,
    VERSION,
    check_header,
    save,
    to_dict,
)

__all__ = [
    "save",
    "load",
    "open_model",
    "to_dict",
    "from_dict",
    "from_xgboost",
    "from_lightgbm",
    "from_sklearn",
    "ImportAssumptionWarning",
    "FORMAT",
    "VERSION",
]

_ESTIMATORS = {cls.__name__: cls for cls in (BoostingClassifier, BoostingRegressor)}


def from_dict(d):
    """The model a dict from ``to_dict`` describes (a model file's content)."""
    check_header(d)
    if d.get("estimator") not in _ESTIMATORS:
        raise ValueError(f"unknown estimator {d.get('estimator')!r} in model file")
    check_model_dict(d)  # the counts; Tree.from_dict checks each tree before it is built
    try:
        params = dict(d["params"])
        # the parameter as it was given (None: estimated from y); the fitted value is below
        base_score_param = params.pop("base_score", None)
        # a model fitted and saved is, once loaded, made from trees; any other origin stays
        origin = {} if d.get("origin") is None else {"origin": d["origin"]}
        model = _ESTIMATORS[d["estimator"]].from_trees(
            [Tree.from_dict(t, f"tree {k + 1}") for k, t in enumerate(d["trees"])],
            base_score=d["base_score"],
            feature_names=d.get("feature_names_in"),
            classes=d.get("classes"),
            n_features=d["n_features_in"],
            best_iteration=d.get("best_iteration"),
            categories={int(j): v for j, v in (d.get("categories") or {}).items()},
            **origin,
            **params,
        )
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        raise ValueError(f"the teachgbt model file is incomplete or corrupted ({e!r})") from None
    check_margins(model)
    return model.set_params(base_score=base_score_param)


def load(path):
    """Read a model written by ``model.save(path)``."""
    from ..utils import read_bytes
    from ._sniff import MAX_FILE, display_name, kind_of_start, parse_json

    shown = display_name(path)
    data = read_bytes(path, MAX_FILE, "model file", lambda start: kind_of_start(shown, start))
    return named(shown, from_dict, parse_json(shown, data))


_LIBRARY = {"teachgbt": "teachgbt", "xgboost": "an XGBoost", "lightgbm": "a LightGBM"}


def _from_file(path, given, expect=None, **options):
    """The model in the file ``path``, read once (a FIFO or a pipe has no second read),
    every refusal naming the file; ``expect``: the kind it must be."""
    from ._sniff import display_name, read_model_file

    kind, content, data = read_model_file(path)
    shown = display_name(path)
    if expect is not None and kind != expect:
        raise ValueError(f"{shown} is {_LIBRARY[kind]} model, not {_LIBRARY[expect]} model")
    return named(shown, _import_file, kind, content, data, shown, given, options)


def _import_file(kind, content, data, shown, given, options):
    if kind == "teachgbt":
        return from_dict(content)
    if kind == "xgboost":
        from ._xgboost import xgboost_file

        imp, margin = xgboost_file(content, data, shown, **options, **given)
        return _checked(imp, margin, "XGBoost")
    from ._lightgbm import lightgbm_file

    imp, margin = lightgbm_file(content, data, shown, **given)
    return _checked(imp, margin, "LightGBM")


def _checked(imp, margin, library):
    """The model an ``Imported`` describes, its margins checked against the library's."""
    out = build(imp)
    self_check(out, margin, library)
    return out


def open_model(path, reg_lambda=None, learning_rate=None, gamma=None):
    """Any model file teachgbt reads, told apart by its content: a teachgbt JSON, an
    XGBoost ``.json``/``.ubj`` or a LightGBM ``.txt`` (``-``: standard input).
    ``reg_lambda``, ``learning_rate`` and ``gamma`` fill in training parameters the file
    does not store (XGBoost files)."""
    given = dict(reg_lambda=reg_lambda, learning_rate=learning_rate, gamma=gamma)
    return _from_file(path, given)


def from_xgboost(model, reg_lambda=None, learning_rate=None, gamma=None, missing=None):
    """An XGBoost model as a fitted teachgbt model.

    ``model``: an ``xgboost.Booster``, an ``XGBClassifier``/``XGBRegressor``, or the path
    of a ``.json``/``.ubj`` model file (reading a file does not need XGBoost). ``missing``:
    the input value that stands for "missing" (inputs equal to it are routed as NaN is);
    an estimator knows its own, a Booster or a file does not store it (NaN unless given).
    Objectives
    ``binary:logistic``, ``reg:squarederror`` and, for K ≥ 3 classes, ``multi:softprob`` /
    ``multi:softmax`` (a softmax classifier; its ``base_score_`` is the K start margins
    the file stores, used as they are; ``tree_info`` gives each tree's ``class_``).

    Each tree keeps XGBoost's node ids (pruned nodes dropped) and statistics: ``value``
    (the leaf value, already × η), ``H`` (``sum_hessian``), ``loss_chg``
    (``loss_changes``), and the recovered ``weight`` (w* = value/η; ``base_weights`` on
    splits), ``G`` = −w*·(H+λ) and ``gain`` = ½(loss_chg − γ). ``n`` is unknown (-1):
    XGBoost stores no row counts.

    λ, η and γ are training parameters, which a model file does not hold: from a Booster
    or estimator they are read from its configuration; for a file pass ``reg_lambda``,
    ``learning_rate``, ``gamma`` (else XGBoost's defaults 1, 0.3, 0 are assumed, with an
    ``ImportAssumptionWarning``). Only ``weight``, ``G`` and ``gain`` depend on them;
    ``value``, ``H``, ``loss_chg`` and every prediction do not. ``G`` is NaN where it
    cannot be recovered: with ``reg_alpha`` or ``max_delta_step``, and where w* was set
    to 0 because H < ``min_child_weight``. ``model.import_notes_`` lists what was assumed.
    Categorical splits become set splits: XGBoost sends its set right, so such a node's
    children are swapped (teachgbt's set goes left); the categories' names are the ones
    the model keeps from a DataFrame (``cats``).
    """
    from ._xgboost import xgboost_source

    given = dict(reg_lambda=reg_lambda, learning_rate=learning_rate, gamma=gamma)
    if isinstance(model, (str, os.PathLike)):
        return _from_file(model, given, "xgboost", missing=missing)
    return _checked(*xgboost_source(model, missing=missing, **given), "XGBoost")


def from_lightgbm(model, reg_lambda=None, learning_rate=None, gamma=None):
    """A LightGBM model as a fitted teachgbt model.

    ``model``: a ``lightgbm.Booster``, an ``LGBMClassifier``/``LGBMRegressor``, or the
    path of a model ``.txt`` (reading a file does not need LightGBM). Objectives
    ``binary``, ``regression`` (L2) and ``multiclass`` (softmax; tree round·K + class is
    round's class k, the K initial scores come out of the first round's trees).
    ``multiclassova`` (one-vs-all sigmoids) is refused.

    The trees keep LightGBM's thresholds and its rule (``tree.rule == "lightgbm"``): x ≤ t
    compared in float64, |x| ≤ 1e-35 read as 0, NaN read as 0 unless the split's missing
    type is NaN, and with ``zero_as_missing=true`` 0 routed as missing. ``num_class=2``
    multiclass models stay a softmax over two margins. ``cover`` holds the row counts
    (LightGBM's TreeSHAP weight). The initial score, which LightGBM adds into
    the first tree, is taken out again and shown as the base score (its root's internal
    value, written with about 6 digits). ``value`` is the leaf value, ``H`` the
    ``leaf_weight``/``internal_weight``, ``n`` the counts; ``weight`` = value/η,
    ``G`` = −w*·(H+λ) on leaves and the sum of its leaves' G on splits (NaN with
    lambda_l1, max_delta_step or path_smooth); ``loss_chg`` = ``split_gain`` (no ½;
    LightGBM 4.7 does not subtract ``min_gain_to_split``, the model's γ) and ``gain`` =
    ½(split_gain − γ); ``split_gain`` itself is also an extra column. λ, η, γ come from the
    model's parameters section, or from the arguments when it lacks them. Categorical
    splits become set splits (LightGBM's bitsets; its set goes left, NaN and other codes
    right), named by the ``pandas_categorical`` line when the model has one.
    """
    from ._lightgbm import lightgbm_source

    given = dict(reg_lambda=reg_lambda, learning_rate=learning_rate, gamma=gamma)
    if isinstance(model, (str, os.PathLike)):
        return _from_file(model, given, "lightgbm")
    return _checked(*lightgbm_source(model, **given), "LightGBM")


def from_sklearn(model):
    """A scikit-learn ``GradientBoostingClassifier``/``Regressor`` or
    ``HistGradientBoostingClassifier``/``Regressor`` (log loss with 2 or K ≥ 3 classes,
    or squared error) as a fitted teachgbt model. With K ≥ 3 classes round m, class k is
    ``estimators_[m, k]`` / ``_predictors[m][k]`` and ``base_score_`` the K start margins.

    GradientBoosting trees become ``algorithm="gbdt"`` trees: ``weight`` is the leaf's
    Newton step (not × the learning rate), ``value`` = η·weight, thresholds and rule as
    scikit-learn's (float32(x) ≤ t; HistGradientBoosting: x ≤ t in float64, NaN by
    ``missing_go_to_left``), ``cover`` the (weighted) row counts, ``n`` the row counts
    and ``loss_chg``
    the drop in the residuals' squared error. For the regressor G = −Σ residual and H =
    Σ weights on every node; the classifier stores neither on leaves (NaN).
    HistGradientBoosting trees: ``value`` is the leaf value (× η), ``loss_chg`` its
    ``gain``; H is known only for the regressor (= n, unit weights assumed). Categorical
    features become set splits, their codes the encoder's (the categories sorted): a
    DataFrame is read by category, a numpy array as those codes; an unknown or negative
    code goes with the missing values, as scikit-learn sends an unknown category. A start
    (``init``) other than the default, "zero" or a DummyClassifier/DummyRegressor is
    refused.
    """
    from ._sklearn import sklearn_source

    return _checked(*sklearn_source(model), "scikit-learn")
