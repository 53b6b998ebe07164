"""One "why" question per lesson: a multiple choice marked by ``tg.check.choice``. A wrong
choice is told what it misses; ``reveal=True`` gives the answer and why."""

from __future__ import annotations

from .. import check
from ._numbers import item

# lesson: (question, choices, right letter, why, {wrong letter: what it misses}). Each wrong
# choice is a misconception a learner has, and the options are of a length: the right one
# is not given away by being the longest, the shortest or the most careful (over the 15
# lessons it is the longest in 5, the middle one in 5 and the shortest in 5).
QUESTIONS = {
    1: ("Why does the objective add a regularization Ω to the training loss?",
        ["so that the best fit on the training data is not simply the most complex one",
         "because the training loss on its own has no minimum for the search to converge to",
         "because Ω keeps the trees small, and small trees make each round of training faster"],
        "a", "Lesson 1's three fits: the wiggly one wins on training data and loses on fresh "
        "data. L + Ω trades predictive against simple (bias against variance).",
        {"b": "the square loss has a minimum; the trouble is that the most complex fit reaches "
              "it, noise and all.",
         "c": "Ω changes which trees are best, not how fast they are found."}),
    2: ("A random forest and a boosted model: what differs?",
        ["only the training: both predict the sum of their trees' scores",
         "the model: a forest's trees vote on classes, boosting's trees add scores",
         "boosting needs deeper trees, since each must fit the whole target alone"],
        "a", "Seed 000: the model of a random forest is exactly a tree ensemble. One function "
        "predicts with both; they differ in how the trees are grown.",
        {"b": "lesson 2 predicts with both through one function that adds scores.",
         "c": "boosting's trees are usually shallow: each fits only what the others miss."}),
    3: ("Why can a loss of your own train with the same tree learner?",
        ["after the second-order expansion the tree learner sees only each row's g and h",
         "every differentiable loss is the square loss after a change of variable",
         "the learner evaluates your loss at every candidate split and keeps the best"],
        "a", "Obj ≈ Σ [g f + ½ h f²] + Ω: splits and leaf weights use G and H only, so a "
        "function returning (g, h) is all a new loss needs.",
        {"b": "the logistic loss is no square loss; what they share is the expansion.",
         "c": "the learner never evaluates the loss itself, only sums of g and h."}),
    4: ("With reg_alpha, why does a leaf whose |G| ≤ α get the weight exactly 0?",
        ["α|w| has a kink at 0: the pull −G cannot beat ±α until |G| > α",
         "λ pulls small weights to zero once the leaf's H is smaller than λ",
         "min_child_weight drops a leaf whose gradient sum G is too small"],
        "a", "The leaf's share G w + ½(H+λ)w² + α|w| is lowest at 0 while |G| ≤ α; past it, "
        "|G| shrinks by α: the soft threshold.",
        {"b": "λ shrinks w* = −G/(H+λ) but never to exactly 0.",
         "c": "min_child_weight is about H, and it stops a split, not a weight."}),
    5: ("A split with a negative gain survived post-pruning. Why?",
        ["post-pruning removes a split only when both of its children are already leaves",
         "pruning compares loss_chg with gamma, and the gain column holds a ½",
         "γ is paid only by the leaves, so a split above two leaves never pays it"],
        "a", "Bottom up, a split whose children are leaves goes when its gain < 0; a poor split "
        "that opened the way to a good one (the XOR root) stays.",
        {"b": "the ½ does not change the sign: ½(loss_chg − gamma) < 0 exactly when "
              "loss_chg < gamma.",
         "c": "γ is paid by every split: Gain = ½[…] − γ."}),
    6: ("For the squared error, why is F₀ the mean of y?",
        ["the mean is the constant with the least squared error: Σ(F₀ − y) = 0 there",
         "the median would fit better; the mean is used since it is quicker to compute",
         "any constant would do, since the first tree corrects whatever F₀ gets wrong"],
        "a", "The loss's derivative in F₀ is Σ(F₀ − y), zero at the mean.",
        {"b": "the median is best for the absolute error, not the squared.",
         "c": "the trees correct it, but a worse start costs rounds (many, with shrinkage)."}),
    7: ("Why does a classifier's leaf divide Σ residual by Σ p(1 − p), not by the row count?",
        ["it is a Newton step: p(1 − p) is each row's curvature of the loss",
         "to turn the leaf's mean probability back into a log-odds for the margin",
         "to keep the leaf output between 0 and 1, like a probability"],
        "a", "The second-order expansion makes the leaf's loss a parabola in its output; its "
        "minimum is Σ(y − p) / Σ p(1 − p). The mean residual is a regressor's leaf.",
        {"b": "the residual y − p is a difference of probabilities; the division is a step, "
              "not a link.",
         "c": "a leaf output is a step in log-odds, not a probability: seed 004's −3 is one."}),
    8: ("Why does a majority vote of 21 voters help only when they err independently?",
        ["copies make the same mistakes at once, so their vote is no better than one of them",
         "independent voters are each more accurate than copies of one single voter",
         "the binomial sum only holds for an odd number of voters, such as 21"],
        "a", "The binomial sum needs independent errors; with copies P(majority wrong) = p.",
        {"b": "each voter is as good as before; only their mistakes no longer coincide.",
         "c": "an even number only adds ties; the binomial sum needs independence."}),
    9: ("GBDT fits a tree to the residuals, XGBoost to the Newton step. Where do they part?",
        ["in the splits: GBDT scores them as if every h were 1, XGBoost with the real h",
         "in the loss: GBDT minimises the squared error of the 0/1 labels themselves",
         "in the leaves: GBDT's leaf is the mean residual, while XGBoost's is the Newton step"],
        "a", "Round 1 on Troll 2 agrees (every h is the same); round 2 parts, when the h "
        "differ. Both set the Newton leaf Σ(y − p)/Σ p(1 − p) (XGBoost adds λ).",
        {"b": "both minimise the log loss; GBDT's tree on the residuals uses squared error only "
              "to choose splits.",
         "c": "GBDT's classifier leaf is the Newton step too, Σ residual / Σ p(1 − p)."}),
    10: ("Why does XGBoost's weighted quantile sketch weigh each row by its h?",
         ["the round's loss is Σ ½h(f + g/h)²: a squared error of weight h",
          "h counts the rows, so the weight is the row share under another name",
          "rows with large gradients are outliers, which need finer bins"],
         "a", "Σ [g f + ½ h f²] = Σ ½ h (f + g/h)² + a constant: each row is a squared error "
         "weighted by its h, so bins of equal total h weigh equally in the loss. (Seed 003 "
         "lists a \"weighted function for searching best split point\"; XGBoost's paper says "
         "why the weight is h.)",
         {"b": "h is p(1 − p) for the logistic loss, not 1 per row.",
          "c": "the sketch weighs by h, not by g."}),
    11: ("Why does XGBoost use h = 2p(1 − p) for each class of the softmax?",
         ["the diagonal p(1 − p) can understate the curvature; 2p(1 − p) bounds it",
          "2p(1 − p) is the exact second derivative of the softmax loss in F_k",
          "to match the binary logistic loss, whose hessian also carries the 2"],
         "a", "The full hessian diag(p) − ppᵀ lies below diag(2p(1 − p)), so K steps taken at "
         "once are not too long.",
         {"b": "the exact diagonal is p(1 − p); XGBoost doubles it.",
          "c": "the binary loss has h = p(1 − p), without the 2."}),
    12: ("Why can the path (Saabas) and the Shapley contributions of a feature differ?",
         ["the path credits splits in the tree's order; Shapley averages every order",
          "one of them must be wrong, since a margin has only one true division",
          "Shapley ignores the cover, while the path weighs each branch by it"],
         "a", "Both sum to the margin minus the bias; they share it out differently.",
         {"b": "both add up to the same margin; they split it differently.",
          "c": "Shapley's v(S) is cover-weighted too."}),
    13: ("Why does a model file need λ to give back a leaf's G?",
         ["it stores η·w* and the cover H, and G = −w*(H + λ)",
          "G is stored in the file, but scaled by λ, so it must be unscaled",
          "λ is needed to recompute the predictions from the stored leaves"],
         "a", "w* = value / η and G = −w*(H + λ): without λ the file cannot say G.",
         {"b": "no library's file stores G.",
          "c": "predictions need only the stored leaf values."}),
    15: ("k categories can be split into two groups in 2^(k−1) − 1 ways. Why does XGBoost try "
         "only the k − 1 cuts of the categories sorted by w* = −G/(H+λ)?",
         ["like-weighted categories belong together, and a cut of that order finds the groups",
          "the other groupings leave a side lighter than min_child_weight, so none of them "
          "is allowed",
          "sorting puts the most frequent categories first, and they weigh most in the gain"],
         "a", "A split's gain rewards sides whose rows want one weight; sorting by w* lines "
              "those up, so a cut of the order groups them. For the squared error the best two "
              "groups are always a cut of that order (Fisher, 1958); for other losses it is a "
              "good, fast guess.",
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

    return item(f"Why? {q} Answer with a letter.{letters}", run, "choice")
