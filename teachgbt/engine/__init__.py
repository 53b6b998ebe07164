"""The engine: how trees are grown and boosted.

    boosting.py     the additive-training loop (train, one round: boost_round), the
                    algorithms' interface, XGBoost-style boosting, and TREE_METHODS
    callbacks.py    what runs around the loop after each round: eval sets, early stopping,
                    the progress bar
    grow.py         growth policy shared by every split finder: depth-wise or best-first,
                    pre-stopping or post-pruning with gamma
    exact.py        the exact greedy split finder (sorted scan of every feature)
    _exact_numba.py its compiled twins (numba, optional)
    binning.py      features binned once per fit (cut points, NaN in a bin of its own)
    hist.py         the histogram split finder over those bins, for full-size data
    _hist_numba.py  its compiled twins (numba, optional)
    gbdt.py         Friedman's GBDT (seed 004): residual trees, Newton leaves
    trace.py        every intermediate of a fit, as DataFrames

What a learner imports stays at the top of the package (``teachgbt.formulas``,
``teachgbt.reference``, ``teachgbt.Tree``, ...); the engine depends on those
modules, never the reverse.
"""
