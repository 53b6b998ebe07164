"""One "why" question per lesson: a multiple choice marked by ``tg.check.choice``. A wrong
choice is told what it misses; ``reveal=True`` gives the answer and why."""

from __future__ import annotations

from .. import check

# lesson: (question, choices, right letter, why, {wrong letter: what it misses})
QUESTIONS = {
    1: ("Why does the objective add a regularization Ω to the training loss?",
        ["the training loss alone has no minimum",
         "without it the best fit on the training data is the most complicated one, which "
         "follows the noise; Ω prices complexity so the simple, predictive fit wins",
         "Ω makes each round faster"],
        "b", "Lesson 1's three fits: the wiggly one wins on training data and loses on fresh "
        "data. L + Ω trades predictive against simple (bias against variance).",
        {"a": "the square loss has a minimum; the trouble is that it is too eager to reach it.",
         "c": "Ω changes which trees are best, not how fast they are found."}),
    2: ("A random forest and a boosted model: what differs?",
        ["the model: a forest's trees vote on classes, boosting's add scores",
         "only the training: both predict the sum of their trees' scores",
         "boosting needs deeper trees"],
        "b", "Seed 000: the model of a random forest is exactly a tree ensemble. One function "
        "predicts with both; they differ in how the trees are grown.",
        {"a": "lesson 2 predicts with both through one function that adds scores.",
         "c": "depth is a setting of either; it is not what makes one boosting."}),
    3: ("Why can a loss of your own train with the same tree learner?",
        ["every loss is the square loss after a change of variable",
         "after the second-order expansion the learner sees only each row's g and h",
         "the learner evaluates the loss at every candidate split"],
        "b", "Obj ≈ Σ [g f + ½ h f²] + Ω: splits and leaf weights use G and H only, so a "
        "function returning (g, h) is all a new loss needs.",
        {"a": "the logistic loss is no square loss; the expansion is what they share.",
         "c": "the learner never evaluates the loss itself, only sums of g and h."}),
    4: ("With reg_alpha, why does a leaf whose |G| ≤ α get the weight exactly 0?",
        ["λ pulls small weights to zero",
         "the L1 term α|w| has a kink at 0: the slope −G cannot beat ±α until |G| > α",
         "min_child_weight drops the leaf"],
        "b", "The leaf's share G w + ½(H+λ)w² + α|w| is lowest at 0 while |G| ≤ α; past it, "
        "|G| shrinks by α: the soft threshold.",
        {"a": "λ shrinks w* = −G/(H+λ) but never to exactly 0.",
         "c": "min_child_weight is about H, and it stops a split, not a weight."}),
    5: ("A split with a negative gain survived post-pruning. Why?",
        ["the trainer made an error",
         "post-pruning removes a split only when both its children are leaves; a kept split "
         "below it saves it",
         "γ is subtracted only at the leaves"],
        "b", "Bottom up, a split whose children are leaves goes when its gain < 0; a poor split "
        "that opened the way to a good one (the XOR root) stays.",
        {"a": "XGBoost's exact method keeps the same split.",
         "c": "γ is paid by every split: Gain = ½[…] − γ."}),
    6: ("For the squared error, why is F₀ the mean of y?",
        ["the mean is the constant with the least squared error: Σ(F₀ − y) = 0 there",
         "the median would be better, the mean is easier",
         "any constant works; the first tree corrects it"],
        "a", "The loss's derivative in F₀ is Σ(F₀ − y), zero at the mean.",
        {"b": "the median is best for the absolute error, not the squared.",
         "c": "the trees correct it, but a worse start costs rounds."}),
    7: ("Why does a classifier's leaf divide Σ residual by Σ p(1 − p), not by the row count?",
        ["to turn a probability into a log-odds",
         "it is a Newton step: p(1 − p) is the curvature of each row's loss in the log-odds",
         "to average the residuals"],
        "b", "The second-order expansion makes the leaf's loss a parabola in its output; its "
        "minimum is Σ(y − p) / Σ p(1 − p). The mean residual is a regressor's leaf.",
        {"a": "the residual y − p is a difference of probabilities; the division is a step.",
         "c": "the mean residual is the squared-error leaf; this loss has curvature p(1 − p)."}),
    8: ("Why does a majority vote of 21 voters help only when they err independently?",
        ["more voters always help",
         "copied voters make the same mistakes: their vote is no better than one of them",
         "independent voters are each more accurate"],
        "b", "The binomial sum needs independent errors; with copies P(majority wrong) = p.",
        {"a": "above p = 0.5 more voters make it worse, and copies do not help at all.",
         "c": "each voter is as good as before; only their mistakes no longer coincide."}),
    9: ("GBDT fits a tree to the residuals, XGBoost to the Newton step. Where do they part?",
        ["in the loss: GBDT's is the squared error",
         "in the splits: GBDT chooses them as if every h were 1, XGBoost with the real h "
         "(G²/(H+λ)); both then set the Newton leaf value",
         "XGBoost has no learning rate"],
        "b", "Round 1 on Troll 2 agrees (every h is the same); round 2 parts, when the h differ.",
        {"a": "both minimise the log loss; GBDT's tree on the residuals uses squared error only "
              "to choose splits.",
         "c": "both shrink each tree by the learning rate."}),
    10: ("Why does XGBoost's weighted quantile sketch weigh each row by its h?",
         ["h counts the rows",
          "the second-order loss is ½h(f + g/h)² per row: a squared error with weight h, so "
          "bins of equal total h carry equal weight in the loss",
          "rows with large gradients are outliers"],
         "b", "Seed 003: the objective is a weighted squared loss with weights h_i.",
         {"a": "h is p(1 − p) for the logistic loss, not 1 per row.",
          "c": "the sketch weighs by h, not by g."}),
    11: ("Why does XGBoost use h = 2p(1 − p) for each class of the softmax?",
         ["it is the exact second derivative",
          "the diagonal p(1 − p) can understate the softmax's curvature; doubling bounds it, so "
          "a leaf's Newton step is not too long",
          "to match the binary logistic loss"],
         "b", "The full hessian diag(p) − ppᵀ lies below diag(2p(1 − p)).",
         {"a": "the exact diagonal is p(1 − p); XGBoost doubles it.",
          "c": "the binary loss has h = p(1 − p), without the 2."}),
    12: ("Why can the path (Saabas) and the Shapley contributions of a feature differ?",
         ["one of them is wrong",
          "the path credits each split's change to its feature in the tree's order; Shapley "
          "averages the feature's effect over every order",
          "Shapley ignores the cover"],
         "b", "Both sum to the margin minus the bias; they share it out differently.",
         {"a": "both add up to the same margin; they split it differently.",
          "c": "Shapley's v(S) is cover-weighted."}),
    13: ("Why does a model file need λ to give back a leaf's G?",
         ["the file stores η·w* and H (the cover), and G = −w*(H + λ)",
          "G is stored but scaled by λ",
          "λ is needed for the prediction"],
         "a", "w* = value / η and G = −w*(H + λ): without λ the file cannot say G.",
         {"b": "no library's file stores G.",
          "c": "predictions need only the stored leaf values."}),
    15: ("k categories can be split into two groups in 2^(k−1) − 1 ways. Why does XGBoost try "
         "only the k − 1 cuts of the categories sorted by w* = −G/(H+λ)?",
         ["categories that want about the same leaf weight belong on the same side: for the "
          "squared error the best two groups are always a cut of that order (Fisher, 1958), "
          "and for other losses it is a good, fast guess",
          "the other groupings leave a side lighter than min_child_weight",
          "sorting puts the most frequent categories first"],
         "a", "A split's gain rewards sides whose rows want one weight; sorting by w* lines "
              "those up, so a cut of the order groups them.",
         {"b": "min_child_weight limits H on each side, whatever the grouping.",
          "c": "the order is by w* = −G/(H+λ), not by how many rows a category has."}),
}  # fmt: skip


def question(lesson, rng=None):
    """Lesson ``lesson``'s why-question as (prompt, run, kind). The choices come in an order of
    their own for each lesson (and, with ``rng``, for each student): the right letter varies."""
    from ._losses import WHY  # lesson 14's lives with its exercises

    q, choices, right, why, slips = {**QUESTIONS, 14: WHY}[lesson]
    n = len(choices)
    order = list(rng.permutation(n)) if rng is not None else [(i + lesson) % n for i in range(n)]
    new = {chr(97 + old): chr(97 + i) for i, old in enumerate(order)}
    choices = [choices[old] for old in order]
    right, slips = new[right], {new[k]: v for k, v in slips.items()}
    letters = "".join(f"\n    ({chr(97 + i)}) {c}" for i, c in enumerate(choices))

    def run(value, reveal):
        return check.choice(value, q, choices, right, why, slips, reveal=reveal)

    return (f"Why? {q} Answer with a letter.{letters}", run, "choice")
