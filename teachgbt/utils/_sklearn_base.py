"""scikit-learn's estimator protocol, without importing scikit-learn.

The estimators follow scikit-learn's conventions (``get_params``/``set_params``,
``__sklearn_tags__``, ``score``), so ``clone``, ``cross_val_score``, pipelines and
``check_estimator`` work when scikit-learn is installed; but ``import teachgbt``
must not pay scikit-learn's import (1–4 s, most of it SciPy), so nothing here
imports it until scikit-learn itself asks (``__sklearn_tags__`` is only called by
scikit-learn) or ``score`` needs its metric.
"""

from __future__ import annotations

import inspect

__all__ = ["BaseEstimator", "ClassifierMixin", "RegressorMixin", "init_taking"]


def init_taking(params):
    """An ``__init__`` that takes ``params`` ({name: default}) and stores each under its own
    name, as scikit-learn's estimators do; its signature lists them, so ``get_params``,
    ``clone`` and ``help()`` see every one. For parameters declared once elsewhere (the
    training parameters) instead of written out in each constructor."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature(
        [inspect.Parameter("self", kind)]
        + [inspect.Parameter(name, kind, default=value) for name, value in params.items()]
    )

    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            setattr(self, name, value)

    __init__.__signature__ = signature
    return __init__


class BaseEstimator:
    """Parameters are the ``__init__`` arguments, stored under their own names."""

    @classmethod
    def _get_param_names(cls):
        sig = inspect.signature(cls.__init__)
        return sorted(name for name in sig.parameters if name != "self")

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in self._get_param_names()}

    def set_params(self, **params):
        valid = self._get_param_names()
        for k, v in params.items():
            if k not in valid:
                raise ValueError(
                    f"invalid parameter {k!r} for {type(self).__name__}; "
                    f"valid parameters are {valid}"
                )
            setattr(self, k, v)
        return self

    def __repr__(self):
        # as scikit-learn prints an estimator: only the parameters changed from their defaults
        defaults = inspect.signature(type(self).__init__).parameters
        changed = []
        for k, v in self.get_params().items():
            default = defaults[k].default
            same = v is default or (type(v) is type(default) and _equal(v, default))
            if not same:
                changed.append(f"{k}={v!r}")
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):
        from sklearn.utils import Tags, TargetTags

        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            transformer_tags=None,
            regressor_tags=None,
            classifier_tags=None,
        )


def _equal(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # arrays compare element-wise
        return False


class ClassifierMixin:
    _estimator_type = "classifier"

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags()
        tags.target_tags.required = True
        return tags

    def score(self, X, y, sample_weight=None):
        """Accuracy of ``predict(X)`` against ``y`` (scikit-learn's ``accuracy_score``)."""
        from sklearn.metrics import accuracy_score

        return accuracy_score(y, self.predict(X), sample_weight=sample_weight)


class RegressorMixin:
    _estimator_type = "regressor"

    def __sklearn_tags__(self):
        from sklearn.utils import RegressorTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor"
        tags.regressor_tags = RegressorTags()
        tags.target_tags.required = True
        return tags

    def score(self, X, y, sample_weight=None):
        """R² of ``predict(X)`` against ``y`` (scikit-learn's ``r2_score``)."""
        from sklearn.metrics import r2_score

        return r2_score(y, self.predict(X), sample_weight=sample_weight)
