"""Seeding fixes: a seeding cell after the imports (SEED001-003), seeds for generators (SEED002), `random_state`
on splits/shufflers/estimators (SEED004) and a seeded generator for shuffling DataLoaders (SEED005)."""

from __future__ import annotations

from collections.abc import Iterator

from ...analysis.parsed import collect_aliases
from ..context import DEFAULT_SEED, FixContext, View
from ..model import SAFE
from ..registry import fixer
from ..work import TextEdit
from ._cst import Target, add_keyword, fix_each, has_star_kwargs, is_name, kwarg

SEED_HELPERS = frozenset({"seed_everything", "set_seed", "set_random_seed", "seed_all", "fix_seed", "set_seeds"})

# (rule, module, seed call shown, qualified names that count as seeding it)
RNGS = (
    ("SEED001", "random", "random.seed", ("random.seed",)),
    ("SEED002", "numpy", "numpy.random.seed", ("numpy.random.seed",)),
    ("SEED003", "torch", "torch.manual_seed", ("torch.manual_seed", "torch.random.manual_seed")),
)
IMPORT_AS = {"random": ("random", "import random"), "numpy": ("np", "import numpy as np"),
             "torch": ("torch", "import torch")}

NUMPY_NOT_GLOBAL = frozenset({"seed", "default_rng", "RandomState", "Generator", "PCG64", "SeedSequence",
                              "Philox", "MT19937", "SFC64"})
SPLIT_FUNCTIONS = frozenset({"train_test_split", "shuffle", "resample"})
SHUFFLE_SPLITTERS = frozenset({"ShuffleSplit", "StratifiedShuffleSplit", "GroupShuffleSplit", "RepeatedKFold",
                               "RepeatedStratifiedKFold"})
SHUFFLE_IF_ASKED = frozenset({"KFold", "StratifiedKFold", "StratifiedGroupKFold"})
ESTIMATORS = frozenset({
    "RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier", "ExtraTreesRegressor",
    "GradientBoostingClassifier", "GradientBoostingRegressor", "HistGradientBoostingClassifier",
    "HistGradientBoostingRegressor", "AdaBoostClassifier", "AdaBoostRegressor", "BaggingClassifier",
    "BaggingRegressor", "IsolationForest", "RandomTreesEmbedding", "DecisionTreeClassifier",
    "DecisionTreeRegressor", "ExtraTreeClassifier", "ExtraTreeRegressor", "LogisticRegression",
    "LogisticRegressionCV", "SGDClassifier", "SGDRegressor", "Perceptron", "PassiveAggressiveClassifier",
    "PassiveAggressiveRegressor", "RANSACRegressor", "Ridge", "RidgeClassifier", "Lasso", "ElasticNet",
    "TheilSenRegressor", "SVC", "NuSVC", "LinearSVC", "LinearSVR", "MLPClassifier", "MLPRegressor",
    "BernoulliRBM", "KMeans", "MiniBatchKMeans", "BisectingKMeans", "SpectralClustering", "PCA", "TruncatedSVD",
    "NMF", "FastICA", "KernelPCA", "SparsePCA", "LatentDirichletAllocation", "FactorAnalysis", "TSNE",
    "GaussianMixture", "BayesianGaussianMixture", "RandomizedSearchCV", "RBFSampler", "Nystroem",
    "GaussianRandomProjection", "SparseRandomProjection", "DummyClassifier", "IterativeImputer",
})
DATASET_MAKERS = frozenset({"make_classification", "make_regression", "make_blobs", "make_moons", "make_circles"})


def _seeded_everything(ctx: FixContext) -> bool:
    return any(q.rsplit(".", 1)[-1] in SEED_HELPERS for _, _, q in ctx.calls())


def _seed_calls(ctx: FixContext) -> dict[str, list[tuple[View, int, object]]]:
    """module -> [(view, line, call)] of the calls that seed it."""
    out: dict[str, list[tuple[View, int, object]]] = {}
    for v, call, q in ctx.calls():
        for _, module, _, names in RNGS:
            if q in names:
                out.setdefault(module, []).append((v, v.parsed.span(call)[0], call))
    return out


def _literal_seed(calls: dict[str, list[tuple[View, int, object]]]) -> int | None:
    import libcst as cst

    for entries in calls.values():
        for _, _, call in entries:
            if call.args and isinstance(call.args[0].value, cst.Integer):
                return int(call.args[0].value.evaluated_value)
    return None


@fixer(id="seed-rngs", rules=("SEED001", "SEED002", "SEED003"), safety=SAFE, category="reproducibility.seeding",
       order=30, description="Seed Python `random`, NumPy's global RNG and torch in one seeding cell after the "
                             "imports (reusing the notebook's seed constant, or adding `SEED = 42`).")
def seed_rngs(ctx: FixContext) -> None:
    if _seeded_everything(ctx):
        return
    used = _rng_users(ctx)
    seeded = _seed_calls(ctx)
    missing = [(rule, module, shown) for rule, module, shown, _ in RNGS
               if module in used and module not in seeded and ctx.allowed_anywhere(rule)]
    if not missing:
        return
    imp = ctx.imports_cell()
    if imp is None:
        return
    existing = [v for entries in seeded.values() for v, _, _ in entries]
    const = ctx.seed_constant()
    anchor = existing[-1] if existing else imp
    if not existing and const is not None and ctx.work.before(anchor.cell, 10**9, const[0].cell, 0):
        anchor = const[0]  # seed right after the cell that defines the seed constant
    index = ctx.views().index(anchor)
    before = collect_aliases(_trees(ctx.views()[: index + 1]))
    lines: list[str] = []
    if const is not None and ctx.work.before(const[0].cell, const[1], anchor.cell, 10**9):
        seed = const[2]
    elif const is not None:
        seed = str(const[3])
    else:
        value = _literal_seed(seeded)
        seed = "SEED"
        lines.append(f"SEED = {DEFAULT_SEED if value is None else value}")
    calls = []
    for _, module, shown in missing:
        local = next((k for k, t in before.items() if t == module), None)
        if local is None:
            local, statement = IMPORT_AS[module]
            if local in before:
                local, statement = module, f"import {module}"
            lines.insert(0, statement)
        calls.append(local + shown[len(module):] + f"({seed})")
    names = ", ".join(shown for _, _, shown in missing)
    rules = [rule for rule, _, _ in missing]
    detail = (f"{', '.join(rules)}: {names} never called, so every run draws different random numbers; "
              f"seeded {'them' if len(missing) > 1 else 'it'} with {seed}")
    body = lines + calls
    if existing or not ctx.work.can_insert_cells:
        target = anchor
        if existing:
            at = max(line for v, line, _ in (e for es in seeded.values() for e in es) if v is anchor)
        elif const is not None and const[0] is anchor:
            at = const[1]
        else:
            at = ctx.last_import_line(anchor) or anchor.parsed.source.count("\n") + 1
        end_line = _statement_end(target, at)
        text = "\n" + "\n".join(body)
        ctx.edit(target, [TextEdit.insert(end_line, len(target.parsed.line(end_line)), text)],
                 summary="seeded " + names, detail=detail + f" after line {end_line}.", line=end_line,
                 rule_id=rules[0])
    else:
        header = "# Seed every random number generator so reruns give the same results (added by trainguard fix)."
        ctx.insert_cell(anchor, "\n".join([header, *body]), summary="inserted a seeding cell (" + names + ")",
                        detail=detail + " in a new cell right after the imports.", rule_id=rules[0])
    if lines and lines[-1].startswith("SEED ="):
        ctx.created_seed = "SEED"


def _rng_users(ctx: FixContext) -> set[str]:
    """Modules whose global RNG the notebook draws from (own detector): `random.<fn>`, legacy `np.random.<fn>`,
    and any torch call (weight init, dropout and shuffling all use torch's global generator)."""
    out: set[str] = set()
    for _, _, q in ctx.calls():
        if q.startswith("random.") and q != "random.seed":
            out.add("random")
        elif q.startswith("numpy.random.") and q.rsplit(".", 1)[-1] not in NUMPY_NOT_GLOBAL:
            out.add("numpy")
        elif q.startswith("torch.") and q not in ("torch.manual_seed", "torch.load", "torch.save"):
            out.add("torch")
    return out


def _statement_end(view: View, line: int) -> int:
    for stmt in view.parsed.module.body:
        sl, _, el, _ = view.parsed.span(stmt)
        if sl <= line <= el:
            return el
    return line


def _trees(views: list[View]):
    import ast

    for v in views:
        try:
            yield ast.parse(v.parsed.code)
        except (SyntaxError, ValueError):
            continue


def _unseeded_generators(ctx: FixContext) -> Iterator[Target]:
    for v, call, q in ctx.calls():
        if q in ("numpy.random.default_rng", "numpy.random.RandomState") and not call.args:
            if ctx.allowed("SEED002", v, v.parsed.span(call)[0], v.parsed.span(call)[2]):
                yield Target(v, call, q.rsplit(".", 1)[-1])


@fixer(id="seed-generators", rules="SEED002", safety=SAFE, category="reproducibility.seeding", order=35,
       description="Pass the seed to `np.random.default_rng()` / `np.random.RandomState()` created without one.")
def seed_generators(ctx: FixContext) -> None:
    def fix(ctx: FixContext, t: Target) -> bool:
        seed = ctx.seed_for(t.view, t.line)
        fresh = next((x for x in _unseeded_generators(ctx) if x.key() == t.key()), None)
        if fresh is None:
            return False
        _, _, el, ec = fresh.view.parsed.span(fresh.node)
        return ctx.edit(fresh.view, [TextEdit.insert(el, ec - 1, seed)], summary=f"seeded {t.what}()",
                        detail=f"`{t.what}()` without a seed draws from fresh OS entropy on every run; "
                               f"passed {seed}.", line=t.line)

    fix_each(ctx, _unseeded_generators, fix)


def _random_state_targets(ctx: FixContext) -> Iterator[Target]:
    import libcst as cst

    for v, call, q in ctx.calls():
        leaf = q.rsplit(".", 1)[-1]
        if kwarg(call, "random_state") is not None or has_star_kwargs(call):
            continue
        ok = False
        if q.startswith("sklearn."):
            if leaf == "train_test_split":
                shuffle = kwarg(call, "shuffle")
                ok = shuffle is None or not is_name(shuffle.value, "False")
            elif leaf in SPLIT_FUNCTIONS and q.startswith("sklearn.utils"):
                ok = True
            elif leaf in SHUFFLE_SPLITTERS or leaf in ESTIMATORS or leaf in DATASET_MAKERS:
                ok = True
            elif leaf in SHUFFLE_IF_ASKED:
                shuffle = kwarg(call, "shuffle")
                ok = shuffle is not None and is_name(shuffle.value, "True")
        elif isinstance(call.func, cst.Attribute) and call.func.attr.value == "sample" and \
                not q.startswith(("random.", "numpy.", "torch.")) and kwarg(call, "frac") is not None:
            ok, leaf = True, "DataFrame.sample"
        if ok and ctx.allowed("SEED004", v, v.parsed.span(call)[0], v.parsed.span(call)[2]):
            yield Target(v, call, leaf)


@fixer(id="random-state", rules="SEED004", safety=SAFE, category="reproducibility.seeding", order=40,
       description="Add `random_state=SEED` to splits, shuffling splitters, samplers and estimators that lack it.")
def random_state(ctx: FixContext) -> None:
    def fix(ctx: FixContext, t: Target) -> bool:
        seed = ctx.seed_for(t.view, t.line)
        fresh = next((x for x in _random_state_targets(ctx) if x.key() == t.key()), None)
        if fresh is None:
            return False
        edits = add_keyword(fresh.view.parsed, fresh.node, "random_state", seed)
        return ctx.edit(fresh.view, edits, summary="added random_state",
                        detail=f"`{t.what}(...)` had no random_state, so it differs on every run; "
                               f"added random_state={seed}.", line=fresh.line)

    fix_each(ctx, _random_state_targets, fix)


def _loader_targets(ctx: FixContext) -> Iterator[Target]:
    for v, call, q in ctx.calls():
        if not q.startswith("torch.utils.data") or not q.endswith("DataLoader"):
            continue
        shuffle = kwarg(call, "shuffle")
        if shuffle is None or not is_name(shuffle.value, "True") or has_star_kwargs(call):
            continue
        if kwarg(call, "generator") is not None or kwarg(call, "sampler") is not None:
            continue
        if ctx.allowed("SEED005", v, v.parsed.span(call)[0], v.parsed.span(call)[2]):
            yield Target(v, call, "DataLoader")


@fixer(id="loader-generator", rules="SEED005", safety=SAFE, category="reproducibility.seeding", order=45,
       description="Give a shuffling DataLoader `generator=torch.Generator().manual_seed(SEED)`.")
def loader_generator(ctx: FixContext) -> None:
    def fix(ctx: FixContext, t: Target) -> bool:
        torch_name = ctx.local_name("torch")
        if torch_name is None:
            ctx.leave("SEED005", t.view, t.line, "torch is not imported as a module, so no generator can be "
                                                 "created here; pass generator= by hand.")
            return False
        seed = ctx.seed_for(t.view, t.line)
        fresh = next((x for x in _loader_targets(ctx) if x.key() == t.key()), None)
        if fresh is None:
            return False
        value = f"{torch_name}.Generator().manual_seed({seed})"
        return ctx.edit(fresh.view, add_keyword(fresh.view.parsed, fresh.node, "generator", value),
                        summary="seeded DataLoader shuffling",
                        detail=f"the DataLoader shuffles with an unseeded generator; added generator={value}.",
                        line=fresh.line)

    fix_each(ctx, _loader_targets, fix)
