"""scikit-learn's estimator base classes, or stand-ins with the same parameter handling.

scikit-learn is optional: when it is installed the estimators are scikit-learn
estimators (``clone``, ``cross_val_score``, pipelines work); without it they keep
the same ``get_params`` / ``set_params`` behaviour.
"""

from __future__ import annotations

__all__ = ["BaseEstimator", "ClassifierMixin", "RegressorMixin"]

try:  # scikit-learn is an optional extra
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
except ImportError:  # pragma: no cover - exercised only without scikit-learn
    import inspect

    class BaseEstimator:
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

    class ClassifierMixin:
        _estimator_type = "classifier"

    class RegressorMixin:
        _estimator_type = "regressor"
