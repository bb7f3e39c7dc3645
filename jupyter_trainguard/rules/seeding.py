"""SEED001-SEED005: random number generators that a training notebook uses without a seed.

Every rule here needs evidence that the generator is actually used, and only runs on notebooks that train
something (a model fit or a torch training loop); exploratory notebooks stay quiet.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..analysis.usage import CallSite, Usage, usage_of
from ..findings import cell_ref
from .context import NotebookContext
from .registry import Hit, rule

PY_RANDOM = frozenset({"random", "randint", "choice", "choices", "shuffle", "sample", "uniform", "gauss",
                       "randrange", "normalvariate", "betavariate", "expovariate", "triangular"})
NP_LEGACY = frozenset({"rand", "randn", "randint", "random", "random_sample", "choice", "shuffle", "permutation",
                       "normal", "uniform", "binomial", "poisson", "beta", "exponential", "multinomial", "sample",
                       "standard_normal", "random_integers", "ranf", "gamma", "laplace", "lognormal"})
TORCH_RANDOM = frozenset({"rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial",
                          "rand_like", "randn_like", "randint_like"})
RANDOM_ESTIMATORS = ("RandomForest", "ExtraTrees", "GradientBoosting", "DecisionTree", "SGDClassifier",
                     "SGDRegressor", "MLPClassifier", "MLPRegressor", "KMeans", "MiniBatchKMeans", "Bagging",
                     "AdaBoost", "IsolationForest", "RandomizedSearchCV", "SMOTE", "RandomOverSampler",
                     "RandomUnderSampler", "ADASYN", "ExtraTree", "RandomTreesEmbedding", "GaussianMixture",
                     "TSNE", "Perceptron", "PassiveAggressive")
SHUFFLING_SPLITTERS = frozenset({"ShuffleSplit", "StratifiedShuffleSplit", "GroupShuffleSplit", "RepeatedKFold",
                                 "RepeatedStratifiedKFold"})


def first(calls: list[CallSite]) -> CallSite | None:
    return min(calls, key=lambda c: c.pos) if calls else None


def listing(calls: list[CallSite]) -> str:
    seen = []
    for c in sorted(calls, key=lambda c: c.pos):
        label = f"`{c.q or c.leaf}` ({cell_ref(c.cell)})"
        if label not in seen:
            seen.append(label)
    more = f" and {len(seen) - 3} more" if len(seen) > 3 else ""
    return ", ".join(seen[:3]) + more


def evidence_of(calls: list[CallSite]) -> dict:
    return {"calls": sorted({c.q for c in calls}), "cells": sorted({c.cell.index + 1 for c in calls})}


def np_global_seeded(u: Usage) -> bool:
    return bool(u.named("numpy.random.seed")) or u.seeded_all()


def torch_seeded(u: Usage) -> bool:
    return bool(u.named("torch.manual_seed", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all",
                        "torch.random.manual_seed")) or u.seeded_all()


@rule(
    id="SEED001", name="python-random-unseeded", category="reproducibility.seeding", severity="warning",
    fix_safety="safe",
    rationale="Python's `random` module is used (shuffles, sampling, augmentation) but never seeded.",
    impact="Each run draws different numbers, so the reported metric cannot be reproduced exactly.",
    fix="Call random.seed(SEED) once at the top (or a seed_everything helper that seeds all generators).",
    bad="import random\nrandom.shuffle(rows)", good="import random\nrandom.seed(42)\nrandom.shuffle(rows)",
)
def python_random_unseeded(ctx: NotebookContext) -> Iterator[Hit]:
    """Fires once, at the first use of a `random` module function, when no `random.seed` (nor a seed-all
    helper) appears anywhere in a notebook that trains."""
    u = usage_of(ctx)
    if not u.trains or u.named("random.seed") or u.seeded_all():
        return
    uses = [c for c in u.leaf_in(PY_RANDOM) if c.q.startswith("random.")]
    c = first(uses)
    if c:
        yield Hit.at(c.cell, c.node, f"Python `random` is used unseeded: {listing(uses)}; no `random.seed()` in "
                                     f"the notebook.", evidence=evidence_of(uses))


@rule(
    id="SEED002", name="numpy-random-unseeded", category="reproducibility.seeding", severity="warning",
    fix_safety="safe",
    rationale="NumPy's legacy global RNG is used without np.random.seed, or a Generator/RandomState is created "
              "without a seed.",
    impact="Random draws (noise, sampling, shuffles, sklearn estimators with random_state=None) differ per run.",
    fix="Create rng = np.random.default_rng(SEED) and pass it around, or call np.random.seed(SEED) once.",
    bad="rng = np.random.default_rng()\nnoise = rng.normal(size=n)",
    good="rng = np.random.default_rng(42)\nnoise = rng.normal(size=n)",
)
def numpy_random_unseeded(ctx: NotebookContext) -> Iterator[Hit]:
    """Unseeded `default_rng()`/`RandomState()` constructions fire each; legacy `np.random.*` draws fire once
    when there is no `np.random.seed` (or seed-all helper)."""
    u = usage_of(ctx)
    if not u.trains:
        return
    for c in u.named("numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator"):
        if not c.node.args and not c.node.keywords:
            yield Hit.at(c.cell, c.node, f"`{c.q}()` is created without a seed in {cell_ref(c.cell)}: its "
                                         f"draws differ on every run.", evidence={"call": c.q})
    if np_global_seeded(u):
        return
    uses = [c for c in u.leaf_in(NP_LEGACY) if c.q.startswith("numpy.random.")]
    c = first(uses)
    if c:
        yield Hit.at(c.cell, c.node, f"NumPy's global RNG is used unseeded: {listing(uses)}; no "
                                     f"`np.random.seed()` in the notebook.", evidence=evidence_of(uses))


@rule(
    id="SEED003", name="torch-unseeded", category="reproducibility.seeding", severity="warning",
    fix_safety="safe",
    rationale="torch draws random numbers (weight init, dropout, random tensors, random_split) but "
              "torch.manual_seed is never called.",
    impact="Initial weights and sampling differ per run, so training curves and metrics do not reproduce.",
    fix="Call torch.manual_seed(SEED) (seeds CPU and all CUDA devices) before building the model.",
    bad="model = Net()\nfor x, y in loader: ...", good="torch.manual_seed(42)\nmodel = Net()",
)
def torch_unseeded(ctx: NotebookContext) -> Iterator[Hit]:
    """Needs a notebook that trains and torch random use: random tensor constructors, `random_split`, or building
    a module in a notebook with a torch training loop (backward + optimizer step). Inference-only notebooks (a
    random dummy input for a pretrained model) stay quiet."""
    u = usage_of(ctx)
    if "torch" not in u.roots() or not u.trains or torch_seeded(u):
        return
    seeded = seeded_generators(u)
    uses = [c for c in u.leaf_in(TORCH_RANDOM) if c.q.startswith("torch.")]
    uses += [c for c in u.leaf_in({"random_split"}) if c.q.startswith("torch")]
    uses = [c for c in uses if not explicit_generator(c, seeded)]
    if u.torch_train and u.optimizer_steps:
        from ..analysis.provenance import record_of

        nets = list({id(o.site.node): o for o in record_of(ctx.parsed, ctx.cache).torch_objects
                     if isinstance(o.site.node, ast.Call)}.values())  # one per construction site
        uses += [CallSite(u.pos(o.site.cell, o.site.node), o.site.cell, o.site.node, o.cls, None) for o in nets]
    c = first(uses)
    if c:
        yield Hit.at(c.cell, c.node, f"torch random numbers are used without `torch.manual_seed()`: "
                                     f"{listing(uses)}.", evidence=evidence_of(uses))


def _seeds(node: ast.AST) -> bool:
    """Does the expression call `.manual_seed(<seed>)` (torch.Generator().manual_seed(0))?"""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "manual_seed"
               and (n.args or n.keywords) for n in ast.walk(node))


def seeded_generators(u: Usage) -> set[str]:
    """Names of generator objects that receive a fixed seed: `g.manual_seed(0)` or
    `g = torch.Generator().manual_seed(0)` anywhere in the notebook."""
    names = set()
    for c in u.methods("manual_seed"):
        f = c.node.func
        if isinstance(f, ast.Attribute) and f.attr == "manual_seed" and isinstance(f.value, ast.Name) and (
                c.node.args or c.node.keywords):
            names.add(f.value.id)
    for _cell, a in u.assigns:
        if _seeds(a.value):
            names.update(t.id for t in a.targets if isinstance(t, ast.Name))
    return names


def explicit_generator(c: CallSite, seeded: set[str]) -> bool:
    """A call drawing from an explicit, seeded `generator=` is reproducible without a global seed."""
    g = c.kw("generator")
    if g is None:
        return False
    return g.id in seeded if isinstance(g, ast.Name) else _seeds(g)




@rule(
    id="SEED004", name="random-state-missing", category="reproducibility.seeding", severity="warning",
    fix_safety="safe",
    rationale="A split, shuffle or randomised estimator is called without random_state while no global NumPy "
              "seed is set.",
    impact="The split (and so the test score) or the model changes on every run.",
    fix="Pass random_state=SEED (train_test_split, KFold(shuffle=True), df.sample, RandomForest...).",
    bad="X_tr, X_te, y_tr, y_te = train_test_split(X, y)",
    good="X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=42)",
)
def random_state_missing(ctx: NotebookContext) -> Iterator[Hit]:
    """Checks train_test_split (unless shuffle=False), shuffling CV splitters, sklearn.utils.shuffle, DataFrame
    .sample (not one that is only displayed) and estimators whose result depends on random_state. Silent when
    np.random.seed is set, or when the notebook trains nothing."""
    u = usage_of(ctx)
    if not u.trains or np_global_seeded(u):
        return
    shown: set[int] | None = None

    def displayed(node: ast.Call) -> bool:
        """The call is a whole statement (all of them found once, when a `.sample(` first asks)."""
        nonlocal shown
        if shown is None:
            shown = {id(n.value) for _, n in u.parsed.walk() if isinstance(n, ast.Expr) and
                     isinstance(n.value, ast.Call)}
        return id(node) in shown

    for c in u.select(leaves=[k for k in u.leaves() if k in _SPLITTING or k.startswith(RANDOM_ESTIMATORS)],
                      methods=("sample",)):  # the calls `_unseeded` may judge
        hit = _UNSEEDED.get(id(c))
        if hit is None or hit[0] is not c:
            if len(_UNSEEDED) > 20000:
                _UNSEEDED.clear()
            hit = _UNSEEDED[id(c)] = (c, _unseeded(c, u.parsed.aliases, displayed))
        why = hit[1]
        if why:
            yield Hit.at(c.cell, c.node, f"`{c.leaf}` in {cell_ref(c.cell)} has no `random_state`: {why} "
                                         f"on every run.", evidence={"call": c.q or c.leaf})


# call site -> what changes on every run without its random_state, with its verb (None: nothing). A call site
# stands for one call resolved with one set of import aliases (the usage index makes new ones when they change),
# so the guard's re-analyses of a growing session judge each call once.
_UNSEEDED: dict[int, tuple[CallSite, str | None]] = {}
_SPLITTING = frozenset({"train_test_split", "KFold", "StratifiedKFold", "StratifiedGroupKFold", "shuffle"}) | \
    SHUFFLING_SPLITTERS


def _unseeded(c: CallSite, aliases: dict[str, str], displayed) -> str | None:
    if c.kw("random_state") is not None or c.kw("seed") is not None or c.kw("random_seed") is not None:
        return None
    leaf = c.leaf
    root = c.q.split(".")[0]
    why = None
    if leaf == "train_test_split" and root == "sklearn":
        sh = c.kw("shuffle")
        if not (isinstance(sh, ast.Constant) and sh.value is False):
            why = "the split changes"
    elif leaf in ("KFold", "StratifiedKFold", "StratifiedGroupKFold") and root == "sklearn":
        sh = c.kw("shuffle")
        if isinstance(sh, ast.Constant) and sh.value is True:
            why = "the folds change"
    elif leaf in SHUFFLING_SPLITTERS and root == "sklearn":
        why = "the splits change"
    elif c.q == "sklearn.utils.shuffle":
        why = "the row order changes"
    elif isinstance(c.node.func, ast.Attribute) and c.node.func.attr == "sample" and not (
            isinstance(c.node.func.value, ast.Name) and c.node.func.value.id in aliases) and \
            not c.q.startswith(("random.", "numpy.", "torch.")) and not displayed(c.node):
        why = "the sample changes"  # `df.sample(5)` on its own line only shows rows: no result depends on it
    elif root in ("sklearn", "imblearn") and leaf.startswith(RANDOM_ESTIMATORS):
        why = "the fitted model changes"
    return why


@rule(
    id="SEED005", name="dataloader-shuffle-unseeded", category="reproducibility.seeding", severity="warning",
    fix_safety="safe",
    rationale="A DataLoader shuffles without a seeded `generator=` and torch is never seeded.",
    impact="Batch order differs per run, so training does not reproduce.",
    fix="Pass generator=torch.Generator().manual_seed(SEED) (and a worker_init_fn with num_workers>0).",
    bad="DataLoader(ds, batch_size=32, shuffle=True)",
    good="g = torch.Generator().manual_seed(42)\nDataLoader(ds, batch_size=32, shuffle=True, generator=g)",
)
def dataloader_unseeded(ctx: NotebookContext) -> Iterator[Hit]:
    """Fires for each `DataLoader(..., shuffle=True)` without `generator=` when torch is never seeded."""
    u = usage_of(ctx)
    if torch_seeded(u):
        return
    for c in u.leaf_in({"DataLoader"}):
        if c.q.startswith("torch") and c.kw("generator") is None:
            sh = c.kw("shuffle")
            if isinstance(sh, ast.Constant) and sh.value is True:
                yield Hit.at(c.cell, c.node, f"`DataLoader(shuffle=True)` in {cell_ref(c.cell)} has no seeded "
                                             f"`generator=` and torch is never seeded: batch order changes per run.",
                             evidence={"call": "DataLoader", "cell": c.cell.index + 1})
