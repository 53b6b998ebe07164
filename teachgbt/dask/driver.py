"""The driver's side of a distributed fit: the partitions, the task chains, the reductions,
and the split finder that ``grow_tree`` calls.

``ClusterSplitter`` has the interface of the single-machine ``HistSplitter``
(``root``, ``find_split``, ``partition``, ``node_sums``, ``node_rows``), so the
single-machine growth policy (``engine.grow.grow_tree``) grows the tree; each
split is chosen by a ``HistSplitter`` of the driver from the summed histograms,
so the choice is the same code as in a local fit. Rows never reach the driver:
a node here is its key, its sums and its summed histogram.

Growing depth by depth, every split of a level is sent to the workers at once,
when the first node of the next level is scanned (as the single-machine trainer
builds a level's histograms in one sweep): one round trip per level.
"""

from __future__ import annotations

import functools

import numpy as np

from ..engine.hist import HistSplitter
from . import shard as S

__all__ = ["Driver", "ClusterSplitter", "ClusterNode", "REDUCE_FAN_IN"]

#: replies summed per reduction task (the reduction is a tree of this fan-in)
REDUCE_FAN_IN = 8


class Driver:
    """The chain of tasks of every partition's shard, and the sums of their replies.

    Every wait has a ``timeout`` (seconds): a fit never hangs. A task that keeps
    killing workers, or whose worker is lost for good, ends the fit with an error
    naming the worker; a worker lost once is survived: Dask replays the chains
    of the shards it held.
    """

    def __init__(self, client, timeout):
        self.client = client
        self.timeout = timeout
        self.shards = []  # one future per partition, the latest step of its chain
        self.unsettled = []  # (reply futures, what to do with their sum) not yet waited for

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def step(self, fn, *args, after=None):
        """The next step of every shard's chain (nothing is waited for). ``after``: a future
        per shard the step must wait for (a reply still to be read: steps change the shard
        in place)."""
        after = after or [None] * len(self.shards)
        self.shards = [self.submit(fn, s, *args, a) for s, a in zip(self.shards, after)]

    def reduce(self, futures=None, combine=S.sum_replies, on_driver=REDUCE_FAN_IN):
        """The sum over shards of their last replies: summed on the workers (a tree of
        ``REDUCE_FAN_IN`` replies a task) until ``on_driver`` are left, those on the driver."""
        level = futures if futures is not None else [self.submit(S.reply, s) for s in self.shards]
        while len(level) > on_driver:
            level = [
                self.submit(combine, *level[i : i + REDUCE_FAN_IN])
                for i in range(0, len(level), REDUCE_FAN_IN)
            ]
        return combine(*self.gather(level))

    def result(self, future, what="a step of the fit"):
        """A future's value (see ``gather``)."""
        return self.gather([future], what)[0]

    def gather(self, futures, what="a step of the fit"):
        """The futures' values within the timeout, or an error that says what was lost."""
        from distributed import wait
        from distributed.client import FutureCancelledError, FuturesCancelledError
        from distributed.scheduler import KilledWorker

        try:
            wait(futures, timeout=self.timeout)
            # each fetch keeps a timeout: a worker lost after the wait may take a result along
            return [f.result(timeout=self.timeout) for f in futures]
        except KilledWorker as err:
            task, worker = (list(err.args) + [None, None])[:2]
            raise RuntimeError(
                f"{what} failed: the task {task!r} was running on worker {worker!r} when it "
                "was lost, as often as Dask allows (distributed.scheduler.allowed-failures); "
                "the fit cannot go on without it"
            ) from err
        except (FutureCancelledError, FuturesCancelledError) as err:
            raise RuntimeError(
                f"{what} was cancelled: the Dask client was closed or restarted during the "
                "fit; start a client and fit again"
            ) from err
        except TimeoutError as err:
            workers = sorted(self.client.scheduler_info().get("workers", {}))
            raise TimeoutError(
                f"{what} did not finish within timeout={self.timeout} s (workers now: "
                f"{workers}); a lost worker whose partitions cannot be recomputed, or a "
                "cluster too busy for this timeout"
            ) from err

    def settle(self):
        """Wait for the counts of the trees finished so far and put them in the trees."""
        while self.unsettled:
            replies, put = self.unsettled.pop(0)
            put(S.sum_replies(*self.gather(replies, "a tree's last step")))

    def release(self):
        self.shards, self.unsettled = [], []


class ClusterNode:
    """A node as the driver knows it: key, sums, and its histogram summed over shards."""

    def __init__(self, key, sums, n=-1, hist=None, n_missing=None):
        self.key, self.sums, self.n = key, tuple(sums), n
        self.hist, self.n_missing = hist, n_missing


class ClusterSplitter:
    """Split finder over the rows of every shard, for ``grow_tree`` (class k's tree)."""

    def __init__(self, driver, meta, algorithm, k, features=None, draw=None):
        self.driver, self.algorithm, self.k = driver, algorithm, k
        self.features, self.draw = features, draw  # draw: the subsample (see shard.sample)
        # the single-machine scan, over histograms summed across the shards
        self.scanner = HistSplitter(meta, None, None, algorithm.scan_params(), features=features)
        self._pending = []  # (parent, Candidate, left, right) not yet sent to the workers
        self._next_key = 1

    def root(self):
        after = self.driver.unsettled[-1][0] if self.driver.unsettled else None
        self.driver.step(
            S.begin_tree, self.algorithm, self.k, self.features, self.draw, after=after
        )
        hist, n_missing, n, sums = self.driver.reduce()[0]
        self.driver.settle()  # the previous tree's counts came back meanwhile
        if n == 0:
            raise ValueError("subsample kept no row for this tree; use a larger subsample")
        return ClusterNode(0, sums, n, hist, n_missing)

    def node_sums(self, nd):
        """n (−1 until the workers have counted it: ``finish`` fills the tree's), G, H."""
        return nd.n, nd.sums[0], nd.sums[1]

    def cover_sum(self, nd):
        return nd.sums[-1]

    def node_rows(self, nd):
        """A node's key stands for its rows: ``grow_tree`` then hands back which leaf of
        the built tree each settled node became."""
        return np.array([nd.key])

    def find_split(self, nd, G, H):
        if nd.hist is None:
            self._flush()
        return self.scanner.find_split(nd, G, H)

    def partition(self, nd, cand):
        """The children, as keys and sums; the workers move their rows at the next flush."""
        left = ClusterNode(self._next_key, (cand.G_L, cand.H_L))
        right = ClusterNode(self._next_key + 1, (cand.G_R, cand.H_R))
        self._next_key += 2
        self._pending.append((nd, cand, left, right))
        return left, right

    def _splits(self):
        pending, self._pending = self._pending, []
        return pending, [(p.key, cand, left.key, right.key) for p, cand, left, right in pending]

    def _flush(self):
        """Send the level's splits; every child's histogram: the left one summed over shards,
        the right one the parent's minus it (the subtraction trick, over the cluster)."""
        pending, splits = self._splits()
        self.driver.step(S.grow, splits)
        total = self.driver.reduce()
        for parent, _, left, right in pending:
            hist, n_missing, left.n, right.n = total[left.key]
            left.hist, left.n_missing = hist, n_missing
            right.hist = parent.hist - hist
            right.n_missing = parent.n_missing - n_missing
            parent.hist = parent.n_missing = None

    def finish(self, tree, keys, leaves):
        """The tree is grown: the workers apply its last splits and add its leaf values to
        their rows' step; its node counts ``n`` come from their rows in each leaf."""
        _, splits = self._splits()
        values = {int(key): float(tree.value[leaf]) for key, leaf in zip(keys, leaves)}
        routed = tree if self.draw is not None else None  # rows left out are routed
        self.driver.step(S.end_tree, self.algorithm, self.k, splits, values, routed)
        # the counts are fetched with the next tree's root (one round trip less a tree), or
        # by ``Driver.settle`` before anyone looks at the tree
        replies = [self.driver.submit(S.reply, s) for s in self.driver.shards]
        put = functools.partial(_set_counts, tree, keys, leaves)
        self.driver.unsettled.append((replies, put))


def _set_counts(tree, keys, leaves, counts):
    """A grown tree's ``n``: its leaves' rows as the workers counted them, summed upwards."""
    n = np.zeros(tree.n_nodes, dtype=np.int64)
    for key, leaf in zip(keys, leaves):
        n[leaf] += counts[int(key)]
    for i in range(tree.n_nodes - 1, -1, -1):  # children come after their parent
        if tree.feature[i] >= 0:
            n[i] = n[tree.left[i]] + n[tree.right[i]]
    tree.n = n
