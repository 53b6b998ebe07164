"""The engine: how trees are grown and boosted.

    training.py     boost(params, rows) -> teachgbt.core.model.Model: the one loop and
                    everything around it, over a backend that holds the rows and finds the
                    splits (LocalRows on this machine; teachgbt.dask passes the cluster's);
                    train(params, X, y); TrainParams, the training parameters by XGBoost's
                    names, declared once
    boosting.py     one round of additive training (boost_round), the algorithms'
                    interface, XGBoost-style boosting, and TREE_METHODS
    callbacks.py    what runs around the loop after each round: eval sets, early stopping,
                    the progress bar
    grow.py         growth policy shared by every split finder: depth-wise or best-first,
                    pre-stopping or post-pruning with gamma
    exact.py        the exact greedy split finder (sorted scan of every feature)
    _exact_numba.py its compiled twins (numba, optional)
    binning.py      features binned once per fit (cut points, NaN in a bin of its own)
    hist.py         the histogram split finder over those bins, for full-size data
    categorical.py  a categorical feature split into two sets of categories (one-hot, or
                    the categories sorted by w* and cut), as XGBoost's hist does
    _hist_numba.py  its compiled twins (numba, optional)
    gbdt.py         Friedman's GBDT (seed 004): residual trees, Newton leaves
    trace.py        every intermediate of a fit, as DataFrames (it reads the Model)

The engine depends on ``teachgbt.core`` (the model, trees, losses, formulas) and
``teachgbt.utils``, never the reverse, and never on what shows or wraps it (the estimators,
io, explain, show, teach, cli).
"""
