"""Static facts the review describes (not findings): split type, where preprocessing is fitted, what is seeded,
saved, restored and logged. Rules decide what is wrong; these facts say what was seen, with cell and line.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from ..analysis.parsed import ParsedNotebook, dotted, last_part
from ..findings import Location
from ..notebook.model import Cell
from .checkpoint_keys import classify_key

PREPROCESSORS = frozenset({
    "StandardScaler", "MinMaxScaler", "RobustScaler", "MaxAbsScaler", "Normalizer", "OneHotEncoder",
    "OrdinalEncoder", "LabelEncoder", "TargetEncoder", "SimpleImputer", "KNNImputer", "IterativeImputer", "PCA",
    "TruncatedSVD", "SelectKBest", "SelectPercentile", "VarianceThreshold", "PolynomialFeatures",
    "QuantileTransformer", "PowerTransformer", "KBinsDiscretizer", "TfidfVectorizer", "CountVectorizer",
    "ColumnTransformer", "FunctionTransformer", "RFE", "SelectFromModel",
})
RESAMPLERS = frozenset({"SMOTE", "ADASYN", "BorderlineSMOTE", "RandomOverSampler", "RandomUnderSampler",
                        "SMOTENC", "SMOTETomek", "SMOTEENN", "NearMiss"})
PIPELINES = frozenset({"Pipeline", "make_pipeline"})
SPLITTERS = {
    "train_test_split": "train_test_split", "KFold": "KFold", "StratifiedKFold": "StratifiedKFold",
    "GroupKFold": "GroupKFold", "StratifiedGroupKFold": "StratifiedGroupKFold", "ShuffleSplit": "ShuffleSplit",
    "StratifiedShuffleSplit": "StratifiedShuffleSplit", "GroupShuffleSplit": "GroupShuffleSplit",
    "TimeSeriesSplit": "TimeSeriesSplit", "LeaveOneGroupOut": "LeaveOneGroupOut", "RepeatedKFold": "RepeatedKFold",
    "RepeatedStratifiedKFold": "RepeatedStratifiedKFold", "PredefinedSplit": "PredefinedSplit",
    "random_split": "torch random_split",
}
GROUP_SPLITTERS = frozenset({"GroupKFold", "StratifiedGroupKFold", "GroupShuffleSplit", "LeaveOneGroupOut"})
CV_USERS = frozenset({"cross_val_score", "cross_validate", "cross_val_predict", "GridSearchCV",
                      "RandomizedSearchCV", "HalvingGridSearchCV", "HalvingRandomSearchCV"})
SEED_CALLS = {
    "random.seed": "python", "numpy.random.seed": "numpy", "torch.manual_seed": "torch",
    "torch.cuda.manual_seed": "torch", "torch.cuda.manual_seed_all": "torch", "tensorflow.random.set_seed": "tf",
}
GUARD_SEED = re.compile(r"--seed(=|\s+)-?\d+")
SEED_HELPERS = re.compile(r"(^|_)(set_seed|seed_everything|set_global_seed|set_seeds|seed_all|fix_seed|"
                          r"enable_full_determinism)$")
TIME_NAME = re.compile(r"(^|_)(date|datetime|time|timestamp|ts|day|month|year|week|hour)(_|$)", re.IGNORECASE)
ESTIMATOR_SUFFIX = re.compile(r"(Classifier|Regressor|Regression|SVC|SVR|NB|KMeans|Forest|Boosting|Trees)$")


@dataclass
class Fact:
    """One thing seen in the code, at one place."""

    kind: str
    detail: str
    location: Location | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def where(self) -> str:
        loc = self.location
        if loc is None:
            return ""
        out = loc.cell_text or loc.path  # "cell 3 [In 2]"; "[In 2]" in a live session
        if loc.line:
            out += f", line {loc.line}"
        return out

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "detail": self.detail}
        if self.location is not None:
            d["location"] = self.location.to_dict()
        if self.data:
            d["data"] = self.data
        return d


@dataclass
class Signals:
    """Everything the review describes, gathered from one or more notebooks."""

    imports: set[str] = field(default_factory=set)
    splits: list[Fact] = field(default_factory=list)
    fits: list[Fact] = field(default_factory=list)
    pipelines: list[Fact] = field(default_factory=list)
    seeds: list[Fact] = field(default_factory=list)
    rng_users: dict[str, Fact] = field(default_factory=dict)  # family -> first use
    determinism: list[Fact] = field(default_factory=list)
    time_evidence: list[Fact] = field(default_factory=list)
    training: list[Fact] = field(default_factory=list)
    saves: list[Fact] = field(default_factory=list)
    loads: list[Fact] = field(default_factory=list)
    tracking: list[Fact] = field(default_factory=list)
    cells: dict[str, str] = field(default_factory=dict)  # "path#index" -> cell source

    @property
    def uses_torch(self) -> bool:
        return "torch" in self.imports or "lightning" in self.imports or "pytorch_lightning" in self.imports

    def merge(self, other: Signals) -> None:
        self.imports |= other.imports
        for name in ("splits", "fits", "pipelines", "seeds", "determinism", "time_evidence", "training", "saves",
                     "loads", "tracking"):
            getattr(self, name).extend(getattr(other, name))
        for fam, fact in other.rng_users.items():
            self.rng_users.setdefault(fam, fact)
        self.cells.update(other.cells)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"imports": sorted(self.imports)}
        for name in ("splits", "fits", "pipelines", "seeds", "determinism", "time_evidence", "training", "saves",
                     "loads", "tracking"):
            out[name] = [f.to_dict() for f in getattr(self, name)]
        out["rng_users"] = {k: v.to_dict() for k, v in sorted(self.rng_users.items())}
        return out


def _loc(path: str, cell: Cell, node: ast.AST) -> Location:
    line = getattr(node, "lineno", None)
    return Location(path=path, cell=cell.index, line=cell.source_line(line) if line else None,
                    execution_count=cell.execution_count)


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def _const(node: ast.AST | None) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    return ...


def _arg_text(call: ast.Call) -> str:
    if not call.args:
        return ""
    try:
        return ast.unparse(call.args[0])[:60]
    except Exception:  # unparse can fail on odd trees
        return "?"


class _Collector:
    def __init__(self, parsed: ParsedNotebook, path: str) -> None:
        self.p = parsed
        self.path = path
        self.s = Signals(imports=set(parsed.imported_modules))
        self.instances: dict[str, str] = {}  # variable -> class short name
        self.dict_literals: dict[str, ast.Dict] = {}
        self.order: dict[int, int] = {}  # cell index -> execution position

    def run(self) -> Signals:
        for pos, (cell, _tree) in enumerate(self.p.trees):
            self.order[cell.index] = pos
            self.s.cells[f"{self.path}#{cell.index}"] = cell.source
            magic_line = cell.source.lstrip("\n").partition("\n")[0]
            if cell.cell_magic == "guarded_train" and GUARD_SEED.search(magic_line):
                # the guard seeds Python random, NumPy and torch before the cell runs
                loc = Location(path=self.path, cell=cell.index, line=1, execution_count=cell.execution_count)
                self.s.seeds.append(Fact("seed", magic_line.strip(), loc, {"family": "all"}))
        for _cell, stmt in self.p.statements():
            self._assignments(stmt)
        first_split: tuple[int, int] | None = None
        for cell, node, qual in self.p.calls():
            short = last_part(qual) if qual else ""
            self._call(cell, node, qual, short)
        for f in self.s.splits:
            key = self._pos(f.location)
            if first_split is None or key < first_split:
                first_split = key
        for f in self.s.fits:
            before = first_split is not None and self._pos(f.location) < first_split
            f.data["before_split"] = before
            if before and f.data.get("role") != "model":
                f.detail += " — before the split (sees every row)"
        for cell, node in self.p.walk():
            self._other(cell, node)
        return self.s

    def _pos(self, loc: Location | None) -> tuple[int, int]:
        if loc is None or loc.cell is None:
            return (10**9, 0)
        return (self.order.get(loc.cell, 10**9), loc.line or 0)

    def _assignments(self, stmt: ast.stmt) -> None:
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            return
        name, value = stmt.targets[0].id, stmt.value
        if isinstance(value, ast.Call):
            qual = self.p.qualname(value.func)
            if qual:
                self.instances[name] = last_part(qual)
        elif isinstance(value, ast.Dict):
            self.dict_literals[name] = value

    def _receiver_class(self, func: ast.AST) -> str:
        if not isinstance(func, ast.Attribute):
            return ""
        base = func.value
        if isinstance(base, ast.Call):
            return last_part(self.p.qualname(base.func))
        name = dotted(base)
        return self.instances.get(name, "")

    def _call(self, cell: Cell, node: ast.Call, qual: str, short: str) -> None:
        loc = _loc(self.path, cell, node)
        s = self.s
        if short in SPLITTERS and (qual.startswith("sklearn") or qual.startswith("torch") or qual == short):
            kind = SPLITTERS[short]
            shuffle = _const(_kw(node, "shuffle"))
            if short == "train_test_split":
                kind += " (shuffle=False, ordered)" if shuffle is False else " (random shuffle)"
                if _kw(node, "stratify") is not None:
                    kind += ", stratified"
            elif short in ("KFold", "StratifiedKFold") and shuffle is True:
                kind += " (shuffle=True)"
            rs = _kw(node, "random_state")
            s.splits.append(Fact("split", kind, loc, {"splitter": short, "random_state": rs is not None
                                                      and _const(rs) is not None,
                                                      "group": short in GROUP_SPLITTERS,
                                                      "chronological": short == "TimeSeriesSplit" or shuffle is False}))
        elif short in CV_USERS and (_kw(node, "cv") is not None or short.startswith("cross")):
            s.splits.append(Fact("split", f"cross-validation via {short}", loc, {"splitter": short}))
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("fit", "fit_transform", "fit_resample"):
            cls = self._receiver_class(node.func)
            arg = _arg_text(node)
            target = dotted(node.func.value) or (cls + "()")
            if cls in PREPROCESSORS or cls in RESAMPLERS or cls in PIPELINES:
                role = "pipeline" if cls in PIPELINES else ("resampler" if cls in RESAMPLERS else "preprocessor")
                detail = f"{cls}.{node.func.attr}({arg})" if target.endswith("()") else \
                    f"{target}.{node.func.attr}({arg}) [{cls}]"
                if role == "pipeline":
                    detail += " — preprocessing inside a Pipeline, refitted on each training fold"
                elif re.search(r"train|_tr$|^tr_|trn", arg, re.IGNORECASE):
                    detail += " — on the training split"
                s.fits.append(Fact("fit", detail, loc, {"class": cls, "method": node.func.attr, "arg": arg,
                                                        "role": role}))
        if short in PIPELINES:
            s.pipelines.append(Fact("pipeline", f"{short}(...)", loc))
        # seeding
        fam = SEED_CALLS.get(qual)
        if fam:
            s.seeds.append(Fact("seed", f"{qual}({_arg_text(node)})", loc, {"family": fam}))
        elif short and SEED_HELPERS.search(short):
            s.seeds.append(Fact("seed", f"{short}({_arg_text(node)})", loc, {"family": "all"}))
        elif qual in ("numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator"):
            seeded = bool(node.args) or _kw(node, "seed") is not None
            if seeded and _const(node.args[0] if node.args else _kw(node, "seed")) is not None:
                s.seeds.append(Fact("seed", f"{qual}({_arg_text(node)})", loc, {"family": "numpy-generator"}))
            s.rng_users.setdefault("numpy", Fact("rng", qual, loc))
        elif qual.startswith("numpy.random."):
            s.rng_users.setdefault("numpy", Fact("rng", qual, loc))
        elif qual.startswith("random.") and "random" in self.p.aliases.values():
            s.rng_users.setdefault("python", Fact("rng", qual, loc))
        elif qual.startswith("torch.") and (short.startswith("rand") or short in ("normal", "bernoulli",
                                                                                    "multinomial", "DataLoader")):
            s.rng_users.setdefault("torch", Fact("rng", qual, loc))
        rs = _kw(node, "random_state")
        if rs is not None:
            if _const(rs) is not None:
                s.seeds.append(Fact("seed", f"{short or 'call'}(random_state={ast.unparse(rs)[:20]})", loc,
                                    {"family": "sklearn"}))
            s.rng_users.setdefault("sklearn", Fact("rng", short, loc))
        elif short in SPLITTERS or short in CV_USERS or ESTIMATOR_SUFFIX.search(short or "-"):
            if qual.startswith("sklearn") or qual.startswith("xgboost") or qual.startswith("lightgbm"):
                s.rng_users.setdefault("sklearn", Fact("rng", short, loc))
        # determinism
        if qual in ("torch.use_deterministic_algorithms",):
            s.determinism.append(Fact("determinism", f"{qual}({_arg_text(node)})", loc))
        # time
        if qual in ("pandas.to_datetime", "pandas.date_range", "pandas.DatetimeIndex", "pandas.Timestamp"):
            s.time_evidence.append(Fact("time", f"{short}(...)", loc))
        if _kw(node, "parse_dates") is not None:
            s.time_evidence.append(Fact("time", f"{short}(parse_dates=...)", loc))
        if short == "TimeSeriesSplit":
            s.time_evidence.append(Fact("time", "TimeSeriesSplit", loc))
        # training
        if isinstance(node.func, ast.Attribute) and node.func.attr == "backward":
            s.training.append(Fact("train", "loss.backward()", loc))
        # checkpoint saves / loads
        if qual == "torch.save" and node.args:
            s.saves.append(self._save_fact(node, loc))
        elif isinstance(node.func, ast.Attribute) and node.func.attr in ("save_checkpoint", "save_pretrained",
                                                                           "save_state"):
            s.saves.append(Fact("save", f"{dotted(node.func) or node.func.attr}(...)", loc,
                                {"components": ["model", "optimizer", "progress"]
                                 if node.func.attr != "save_pretrained" else ["model"]}))
        elif qual in ("joblib.dump", "pickle.dump", "skops.io.dump"):
            s.saves.append(Fact("save", f"{qual}({_arg_text(node)})", loc, {"components": ["model"],
                                                                              "format": "pickle"}))
        if qual == "torch.load":
            wo = _const(_kw(node, "weights_only"))
            s.loads.append(Fact("load", f"torch.load({_arg_text(node)}"
                                + (f", weights_only={wo}" if wo is not ... else "") + ")", loc))
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "load_state_dict":
            target = dotted(node.func.value) or "?"
            cls = self.instances.get(target, "")
            comp = classify_key(target) or _component_of_class(cls) or "model"
            s.loads.append(Fact("restore", f"{target}.load_state_dict(...)", loc, {"component": comp}))
        # tracking
        if qual.startswith(("mlflow.", "wandb.")) or (short in ("log", "log_metric", "log_param", "init")
                                                         and qual.split(".")[0] in ("wandb", "mlflow")):
            what = _tracking_kind(qual, node)
            if what:
                s.tracking.append(Fact("track", f"{qual}(...)", loc, {"what": what, "tool": qual.split(".")[0]}))

    def _save_fact(self, node: ast.Call, loc: Location) -> Fact:
        obj = node.args[0]
        if isinstance(obj, ast.Name) and obj.id in self.dict_literals:
            obj = self.dict_literals[obj.id]
        comps: list[str] = []
        keys: list[str] = []
        if isinstance(obj, ast.Dict):
            for k, v in zip(obj.keys, obj.values):
                key = _const(k)
                if isinstance(key, str):
                    keys.append(key)
                    comp = classify_key(key) or self._value_component(v)
                    if comp:
                        comps.append(comp)
            detail = "torch.save({" + ", ".join(repr(k) for k in keys) + "})"
        elif isinstance(obj, ast.Call) and isinstance(obj.func, ast.Attribute) and obj.func.attr == "state_dict":
            target = dotted(obj.func.value) or "?"
            comp = classify_key(target) or _component_of_class(self.instances.get(target, "")) or "model"
            comps.append(comp)
            detail = f"torch.save({target}.state_dict()) — weights only" if comp == "model" else \
                f"torch.save({target}.state_dict())"
        else:
            comp = self._value_component(obj) or "model"
            comps.append(comp)
            detail = f"torch.save({_arg_text(node)})"
        return Fact("save", detail, loc, {"components": sorted(set(comps)), "keys": keys})

    def _value_component(self, v: ast.AST) -> str | None:
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute):
            if v.func.attr == "state_dict":
                target = dotted(v.func.value)
                return classify_key(target) or _component_of_class(self.instances.get(target, "")) or "model"
            qual = self.p.qualname(v.func)
            if qual in ("random.getstate", "numpy.random.get_state", "torch.get_rng_state",
                        "torch.cuda.get_rng_state_all", "torch.cuda.get_rng_state"):
                return "rng"
        if isinstance(v, ast.Dict):
            inner = [classify_key(_const(k)) for k in v.keys if isinstance(_const(k), str)]
            if "rng" in inner or any(classify_key(_const(k)) is None and _const(k) in ("python", "numpy", "cuda")
                                     for k in v.keys):
                return "rng"
        if isinstance(v, ast.Name):
            name = v.id.lower()
            if name in ("epoch", "step", "global_step", "i", "it", "iteration"):
                return "progress"
        return None

    def _other(self, cell: Cell, node: ast.AST) -> None:
        loc = _loc(self.path, cell, node)
        if isinstance(node, ast.Attribute) and node.attr == "dt" and isinstance(node.ctx, ast.Load):
            self.s.time_evidence.append(Fact("time", ".dt accessor", loc))
        elif isinstance(node, ast.Subscript) and isinstance(_const(node.slice), str) \
                and TIME_NAME.search(_const(node.slice)):
            self.s.time_evidence.append(Fact("time", f"column {_const(node.slice)!r}", loc,
                                             {"column": _const(node.slice)}))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript) \
                and isinstance(node.value.slice, ast.Slice):
            names = [dotted(t) for t in node.targets]
            if any(re.search(r"train|test|val", n or "", re.IGNORECASE) for n in names):
                self.s.splits.append(Fact("split", f"positional slice ({', '.join(n for n in names if n)})", loc,
                                          {"splitter": "slice", "chronological": True}))
        elif isinstance(node, ast.Attribute) and node.attr in ("deterministic", "benchmark") \
                and dotted(node).endswith(("cudnn.deterministic", "cudnn.benchmark")) \
                and isinstance(node.ctx, ast.Store):
            self.s.determinism.append(Fact("determinism", dotted(node), loc))
        elif isinstance(node, ast.Attribute) and node.attr == "step" and isinstance(node.ctx, ast.Load):
            base = dotted(node.value)
            if base and ("optim" in base.lower() or self.instances.get(base, "") in _OPTIMIZERS):
                self.s.training.append(Fact("train", f"{base}.step()", loc))


_OPTIMIZERS = frozenset({"SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "LBFGS", "Adadelta", "Adamax", "NAdam"})


def _component_of_class(cls: str) -> str | None:
    if not cls:
        return None
    if cls in _OPTIMIZERS:
        return "optimizer"
    if cls.endswith("LR") or "Scheduler" in cls or cls.endswith("Annealing") or cls in ("OneCycleLR",):
        return "scheduler"
    if cls == "GradScaler":
        return "scaler"
    return None


def _tracking_kind(qual: str, node: ast.Call) -> str | None:
    short = last_part(qual)
    if short in ("start_run", "init"):
        if short == "init" and _kw(node, "config") is not None:
            return "params"
        return "run"
    if short in ("log_param", "log_params") or qual == "wandb.config.update":
        return "params"
    if short in ("log_metric", "log_metrics") or qual == "wandb.log":
        return "metrics"
    if short in ("log_input",):
        return "dataset"
    if short in ("autolog",):
        return "autolog"
    if short in ("set_tag", "set_tags", "log_artifact", "log_dict", "log_text"):
        text = ast.unparse(node).lower()
        if "commit" in text or "git" in text:
            return "commit"
        if "dataset" in text or "data_version" in text or "data_hash" in text:
            return "dataset"
        return "tags"
    if short in ("end_run", "finish"):
        return "end"
    if short == "set_experiment":
        return "experiment"
    return None


def collect(parsed: ParsedNotebook, path: str) -> Signals:
    """The facts of one parsed notebook."""
    return _Collector(parsed, path).run()
