"""Calls: notebook functions, library constructors and functions read through the API table."""

from __future__ import annotations

import ast

from ..names import DATE_WORD, label_says_holdout, loads_by_name, role_from_name, scores_by_name
from .api import ClassRow, builds_network, lookup_class, lookup_func
from .api.darts_api import SERIES_SPLITS
from .api.numpy_api import COMPARING, RANDOM_DRAWS
from .api.pyspark_api import spark_read
from .api.torch_api import DATASET_ROOTS
from .astutil import MAX_GRID, const, kw, learned_bins, literal_points, regrouped, text
from .columns import left_rows, strings
from .rows import DUP, Selection
from .state import UNKNOWN
from .training import stops_early
from .values import Obj, Val, graph_layers

RNG_MAKERS = frozenset({"default_rng", "RandomState", "Generator", "Random"})  # their draws are new rows
_PRINTS = frozenset({"print", "display", "len", "type", "isinstance", "str", "repr", "format", "round", "int",
                     "float", "abs", "bool", "id", "hasattr", "getattr", "setattr", "plot", "show", "figure",
                     "subplots", "title", "xlabel", "ylabel", "legend", "savefig", "scatter", "hist", "barplot"})
_BUILTINS = frozenset({"round", "abs", "int", "float", "bool"})


def _stacked(seq: Val, depth: int = 0) -> list:
    """The arrays a list given to `concatenate` holds, lists of lists included (`[list(windows)]`)."""
    out: list = []
    for item in seq.items or ():
        out += _stacked(item, depth + 1) if item is not None and item.kind == "seq" and item.items and depth < 2 \
            else [item]
    return out


def _axis(e: ast.Call) -> object:
    ax = kw(e, "axis")
    return ax.value if isinstance(ax, ast.Constant) else 0


_LOGS = frozenset({"log_metric", "log_metrics", "log", "add_scalar", "info", "write"})


BUILT_BY_FUNCTIONS = frozenset({"statsmodels", "pmdarima"})  # models made by lower-case functions (`smf.ols`)


class Calls:
    """Mixin: function calls and constructors."""

    def call(self, e: ast.Call) -> Val | None:
        func = e.func
        objective = self.tuned_objective(e)
        if objective is not None:
            return self.run_objective(objective, e)
        if isinstance(func, ast.Call):
            leaf = self.parsed.qualname(func.func).rsplit(".", 1)[-1]
            if leaf == "delayed" and func.args:
                return self.call(self.runs_as(e, func.args[0]))
            if leaf == "Parallel" and e.args:
                return self.expr(e.args[0])  # what the generator's delayed calls return, gathered
            if leaf.endswith("Splitter") and (made := self.expr(func)) is not None and made.kind == "obj" and \
                    made.obj.role == "fastai_splitter":
                return self.fastai_split(made.obj, e, self.arguments(e)[0])  # `RandomSplitter()(range_of(df))`
        if isinstance(func, ast.Attribute) and spark_read(func):
            return self.source(e, "read")  # `spark.read.csv(path)`
        if isinstance(func, ast.Attribute):
            recv_node = func.value
            is_module = isinstance(recv_node, ast.Name) and recv_node.id not in self.env and (
                recv_node.id in self.parsed.aliases or recv_node.id in ("np", "pd") or self.parsed.star_modules and
                lookup_func(f"{recv_node.id}.{func.attr}") is not None)  # a class a star import brought
            if not is_module:
                recv = self.expr(recv_node)
                if recv is None or recv.kind == "data" and func.attr in ("fit", "fit_generator"):
                    recv = self.by_use(recv_node, func.attr, e) or recv  # (a table has no `fit`: a model)
                if recv is not None and func.attr == "forward" and recv.kind == "obj" and recv.obj.role == "torch":
                    return self.call_obj(recv, e, *self.arguments(e))  # `net.forward(xb)`, as `net(xb)`
                if recv is not None and recv.is_data and func.attr in SERIES_SPLITS:
                    return self.series_split(recv, e)  # darts: `train, val = series.split_before(0.75)`
                if recv is not None:
                    return self.method(recv, func.attr, e)
                if not isinstance(recv_node, (ast.Name, ast.Attribute)) or self.parsed.qualname(recv_node) == "":
                    return self.unknown(e)
        if isinstance(func, ast.Name) and func.id in self.env:
            target = self.env[func.id]
            args, kws = self.arguments(e)
            if target.kind == "func" and target.func is not None:
                return self.curve_prediction(e, args, kws) or self.inline(target, e, args, kws)
            if target.kind == "func" and func.id in self.user_classes:
                base = self.trainer_base(self.user_classes[func.id])  # `class Weighted(Trainer)`: still a trainer
                if base:
                    return self.construct(base, lookup_class(base), e)
                return self.user_instance(func.id, e, args, kws)
            if target.kind == "obj":
                return self.call_obj(target, e, args, kws)
            if target.kind == "class" and target.site is not None:  # `model()`: `model` names an estimator class
                q = self.parsed.qualname(target.site.node)
                row = lookup_class(q)
                if row is not None:
                    return self.construct(q, row, e)
            return self.derive(e, args + list(kws.values()))
        q = self.parsed.qualname(func)
        if not q:
            return self.unknown(e)
        if isinstance(func, ast.Name) and q == func.id:  # `from sklearn.model_selection import *`
            q = next((f"{m}.{q}" for m in self.parsed.star_modules if lookup_func(f"{m}.{q}")), q)
        leaf = q.rsplit(".", 1)[-1]
        root = q.split(".", 1)[0]
        io = self.file_io(q, e)  # `open(path)`, `pickle.dump(X, f)`: files the notebook may read back
        if io is not None:
            return io[0]
        loaded = self.model_from_elsewhere_file(q, e)
        if loaded is not None:
            return loaded
        if leaf in RNG_MAKERS and root in ("numpy", "random", "torch"):
            self.arguments(e)
            return Val("obj", obj=Obj(q, "rng", self.site(e)), site=self.site(e))
        crow = lookup_class(q) if leaf[:1].isupper() or leaf.startswith("make_") or root in BUILT_BY_FUNCTIONS \
            else None
        if crow is None and builds_network(q):
            crow = ClassRow("torch")  # `models.resnet50(weights=...)`: a network, as `models.ResNet(...)` is
        if crow is not None and crow.role != "data":
            return self.construct(q, crow, e)
        frow = lookup_func(q)
        args, kws = self.arguments(e)
        if crow is not None:  # containers: TensorDataset, DataLoader, DMatrix
            return self.indexed_subset(leaf, args, kws, e) or self.build(e, args, kws)
        if frow is not None:
            return self.library_function(q, frow.effect, e, args, kws)
        if root in DATASET_ROOTS and ".datasets." in q:
            return self.declared_split(e, args, kws)
        if q == "abs" and args and args[0] is not None and args[0].is_data and args[0].kind == "data":
            return self.derive(e, args[:1])  # `abs(corr['y'])`: the values of a column, element by element
        if leaf in _PRINTS and (q == leaf or leaf not in _BUILTINS) or leaf in _LOGS:  # (`np.round(p)` is data)
            if leaf in ("print", "display", "info", "write") or leaf in _LOGS:
                self.reported(e, args + list(kws.values()))
            return None
        if leaf in ("range", "arange", "linspace", "logspace", "geomspace", "ParameterGrid", "ParameterSampler",
                    "product") and not any(a is not None and a.rows for a in args):
            if root == "numpy" and literal_points(leaf, e) > MAX_GRID:
                return self.source(e, "made")  # `np.linspace(0, 100, 10000)`: synthetic data, not settings
            return Val("seq", site=self.site(e), hyper=True)  # a grid of settings
        if leaf in ("max", "min", "sorted", "sum", "zip", "list", "tuple", "dict", "enumerate", "reversed",
                    "next", "iter", "map", "filter", "set"):
            return self.builtin(leaf, e, args, kws)
        if leaf in ("argmax", "argmin", "nanargmax", "nanargmin", "argsort", "amax", "amin"):
            self.note_choice(args, e)
        if leaf == "choice" and (drawn := self.drawn(root, e, args)) is not None:
            return drawn  # values drawn from a column's rows, or row positions drawn with replacement
        if leaf == "setdiff1d" and len(args) > 1 and (left := self.positions_left(e.args[0], args[1])) is not None:
            return left  # `np.setdiff1d(np.arange(n), test_idx)`: the positions test_idx left
        wrapped = kws.get("model") or kws.get("estimator")
        if leaf[:1].isupper() and wrapped is not None and wrapped.kind == "obj" and wrapped.obj.fit is not None:
            return wrapped  # `Experiment(model=model, ...)` of a helper library: it scores with the model it wraps
        data = [a for a in args + list(kws.values()) if a is not None and a.is_data]
        if data and scores_by_name(leaf) and self.scored_by_helper(args, e):
            return Val("score", site=self.site(e))
        if data and (scores_by_name(leaf) or leaf in COMPARING and root in ("numpy", "torch", "scipy") or
                     self.compares_predictions(q, args)):
            # a helper metric from another module (`calculate_metrics(y_test, pred)`): its name says it scores what
            # it is given, as sklearn's `*_score` do, or it is given predictions and the labels of the same rows
            return self.against_labels(self.derive(e, data), data, e)
        if data and loads_by_name(leaf) and not any(a.rows for a in data):
            return self.source(e, "read")  # `yf.download(t, start=df.index.min())`: a bound learns nothing of them
        if data:
            self.touch(data)  # `show_results(model, X_test, y_test)` from another module: it may score them
            return self.derive(e, data)
        layers = graph_layers(args + list(kws.values()))  # `layers.concatenate([a, b])` in a functional model
        if layers:
            return Val("graph", items=layers, site=self.site(e))
        if root in ("numpy", "torch", "random"):
            if leaf == "shuffle":
                self.shuffled_in_place(leaf, e)
                return None
            positions = self.permuted(leaf, e, args)
            if positions is not None:
                return positions
        if root in ("numpy", "pandas", "torch", "scipy", "random") and (leaf in RANDOM_DRAWS or root == "pandas"):
            return self.preallocated(leaf, e) or self.allocation(leaf, e)
        if loads_by_name(leaf):
            return self.source(e, "read")  # pickle.load(f), a helper library's loader: data of unknown origin
        return None

    def reported(self, e: ast.Call, vals: list) -> None:
        """A training-row score printed or logged under a validation/test label."""
        self.history_scores(e)
        if not label_says_holdout(e):
            return
        named = [(n, self.env.get(n.id)) for n in ast.walk(e) if isinstance(n, ast.Name)]  # f"{score}" too
        for node, v in list(zip(list(e.args) + [k.value for k in e.keywords], vals)) + named:
            if isinstance(node, ast.Name) and role_from_name(node.id) == "train":
                continue
            if self.train_score(v):
                detail = {"as": "printed label", **({"variable": node.id} if isinstance(node, ast.Name) else
                                                   {"metric": self.site(node).text})}
                self.rec.reports.append((self.site(e), detail))
                return

    def arguments(self, e: ast.Call) -> tuple[list[Val | None], dict[str, Val | None]]:
        args = [self.expr(a) for a in e.args]
        kws = {k.arg or "**": self.expr(k.value) for k in e.keywords}
        if "**" in kws and kws["**"] is not None and kws["**"].keys:
            kws.update({str(k): v for k, v in kws.pop("**").keys.items()})
        return args, kws

    def unknown(self, e: ast.Call) -> Val | None:
        args, kws = self.arguments(e)
        self.touch([a for a in args + list(kws.values()) if a is not None and a.is_data])
        return self.derive(e, args + list(kws.values()))

    # ------------------------------------------------------------ functions
    def library_function(self, q: str, effect: str, e: ast.Call, args: list, kws: dict) -> Val | None:
        if effect == "split":
            return self.split_call(e, args, kws)
        if effect in ("random_split", "array_split"):
            return self.parts_call(e, args, effect)
        if effect in ("cv", "importance", "shows_ranking"):  # cross-validation, rankings (crossval.py, ranked.py)
            return self.cv_call(q, e, args, kws) if effect == "cv" else self.ranking_call(effect, e, args, kws)
        if effect == "shuffle":
            return Val("seq", items=tuple(self.derive(e, [a]) for a in args), site=self.site(e)) if len(args) > 1 \
                else self.derive(e, args)
        if effect.startswith("fastai_"):
            return self.fastai_function(q, effect, e, args, kws)
        if effect in ("clone", "copy"):
            return self.copied(effect, e, args)
        if effect == "calendar":  # dates of their own, or between dates of the data (which keep their rows)
            bounded = any(a is not None and a.is_data for a in args + list(kws.values()))
            return Val("data", site=self.site(e)) if bounded else self.source(e, "made")
        if effect == "metric":
            return self.metric_call(q, e, args + list(kws.values()))
        if effect == "read":
            src = self.keras_subset(self.source(e, "read"), e)
            src.time = self.read_evidence(e)
            return self.new_frame(src) if q.startswith("pandas") else src
        if effect == "window":  # `timeseries_dataset_from_array(..., start_index=a, end_index=b)`
            return self.windows_between(e, self.build(e, args, kws))
        if effect == "build":
            if q.endswith(".reshape") and args and args[0] is not None and args[0].is_data and regrouped(e.args[1:]):
                return self.select(args[0], ("reshape", text(e)), "all", "reshape", e)  # `np.reshape(x, (100, 5))`
            return self.build(e, args, kws)
        if effect in ("concat", "merge"):
            parts = _stacked(args[0]) if args and args[0] is not None and args[0].kind == "seq" and args[0].items \
                else args
            if parts and all(p is not None and p.kind == "index" and p.step is not None for p in parts):
                # `np.concatenate([idx[:a], idx[b:]])`: the positions of one side of one selection (several sides:
                # the positions of each, which select the union of their rows)
                return parts[0] if len({p.step for p in parts}) == 1 else Val("seq", items=tuple(parts),
                                                                               site=self.site(e))
            out = self.derive(e, list(parts))
            first = next((p for p in parts if p is not None and p.is_data), None)
            if effect == "merge" and out is not None and q == "pandas.merge":
                out.rows = left_rows(e, list(parts)) or out.rows
            if out is not None and first is not None and _axis(e) == 0:
                out.fcols, out.flabel = first.fcols, first.flabel
            if effect == "concat" and out is not None and _axis(e) == 0 and self.stacks_copies(e, list(parts)):
                out = self.select(out, self.new_key("resample"), DUP, "resample", e)  # copies stacked
            return out
        if effect == "stateless" and q == "pandas.cut" and learned_bins(e):
            effect = "scale"  # pd.cut(x, 5): the bin edges are learned from the rows' range
        if effect == "stateless" and q == "pandas.crosstab":
            return self.cross_table(e, args + list(kws.values()))
        if effect == "stateless":
            return self.derive(e, args + list(kws.values()))
        if effect in ("scale", "statistic"):
            x = args[0] if args else None
            if x is not None and x.kind == "seq" and x.items:  # `FreqDist(words)` of a list filled word by word
                x = self.derive(e, list(x.items))
            if q.rsplit(".", 1)[-1] in ("max", "min", "amax", "amin", "nanmax", "nanmin"):
                self.note_choice(args, e)  # `np.max(f1_per_threshold)`: the best of several scores is a choice
            if x is None or not x.is_data:
                return None
            axis = const(kw(e, "axis"))
            if axis in (1, "columns") or id(x) in self.row_values:  # (across one row's own values)
                return self.derive(e, args)
            fit = self.add_fit("statistic", q.rsplit(".", 1)[-1], x, e)
            if effect == "scale":
                return Val("data", rows=x.rows, stats=x.all_stats | {fit}, site=self.site(e), evals=x.evals)
            return Val("data", stats=x.all_stats | {fit}, site=self.site(e))
        if effect == "resample" and const(kw(e, "replace")) is False:
            parts = [a for a in args if a is not None and a.is_data]
            outs = [self.select(p, ("sample", id(e)), "sub", "mask", e) for p in parts]
            return outs[0] if len(outs) == 1 else Val("seq", items=tuple(outs))
        if effect == "resample":
            parts = [a for a in args if a is not None and a.is_data]
            key = self.new_key("resample")
            outs = [self.select(p, key, DUP, "resample", e) for p in parts]
            return outs[0] if len(outs) == 1 else Val("seq", items=tuple(outs))
        if effect == "corpus":
            return self.corpus_read(q, e)
        if effect == "train":  # (NLTK's `NaiveBayesClassifier.train(train_set)` takes its rows first)
            data = args[0] if q.startswith("nltk.") and args else args[1] if len(args) > 1 else \
                kws.get("dtrain") or kws.get("train_set")
            obj = Obj(q, "model", self.site(e))
            obj.fit = self.add_fit("model", q, data if data is not None and data.is_data else None, e, obj=obj)
            early = stops_early(e, self.bound_nodes, self.user_classes)
            watched = {name: kws[name] for name in ("evals", "valid_sets", "eval_set") if kws.get(name) is not None}
            if not watched and len(args) > 3 and args[3] is not None:  # `xgb.train(params, dtrain, 400, watchlist)`
                watched = {"evals": args[3]}
            for name, v in watched.items():
                self.rec.eval_sets.append((obj, v, obj.fit.site, name, early))
            return Val("obj", obj=obj, site=self.site(e))
        if effect in ("curve", "curve_apply"):
            return self.curve(q, effect, e, args, kws)
        if effect == "dataset":
            return self.declared_split(e, args, kws)
        if effect == "load_split":
            key = self.new_key("split")
            src = self.source(e, "read")
            tr, te = (self.select(src, key, p, "split", e) for p in ("train", "test"))
            self.rec.held_out_parts.append(te)
            return Val("seq", items=(Val("seq", items=(tr, tr)), Val("seq", items=(te, te))))
        return self.derive(e, args + list(kws.values()))

    def cross_table(self, e: ast.Call, vals: list) -> Val | None:
        """`pd.crosstab(y, model.predict(X))`: predictions tabulated against the labels are a confusion matrix."""
        data = [v for v in vals if v is not None and v.is_data]
        return self.against_labels(self.derive(e, data), data, e)

    def build(self, e: ast.Call, args: list, kws: dict) -> Val:
        data = [a for a in args + list(kws.values()) if a is not None and a.is_data]
        if not data:  # a list of arrays, or a dict of columns
            data = [i for a in args if a is not None and a.kind == "seq"
                    for i in list(a.items or ()) + list((a.keys or {}).values()) if i is not None and i.is_data]
        with_rows = [d for d in data if d.rows or d.kind == "pred"]  # (a forecast's rows are named when scored)
        if not with_rows and (table := self.score_table(e, args + list(kws.values()))) is not None:
            return table
        if not with_rows:  # `pd.DataFrame()` filled column by column: rows of its own until a column brings rows
            src = self.literal_table(e) if args or kws else self.source(e, "empty")
            src.stats = frozenset().union(*(d.all_stats for d in data))
            src = self.new_frame(src) if self.parsed.qualname(e.func).startswith("pandas") else src
            if data:  # a table built from values without rows (selector flags, column names): no data rows
                src.rows = frozenset()
            return src
        out = self.derive(e, with_rows[:1])  # the rows are the first array's (labels ride along with them)
        out.stats = out.stats.union(*(d.all_stats for d in data))
        if out.fcols is None and self.parsed.qualname(e.func).startswith("pandas"):
            out = self.new_frame(out)  # a frame built from arrays or columns: its own column facts start here
        names = strings(kw(e, "columns"))
        if not names and e.args and isinstance(e.args[0], ast.Dict) and e.args[0].keys:
            names = strings(ast.List(elts=e.args[0].keys))  # `pd.DataFrame({'a': ..., 'b': ...})`
            names = names if len(names) == len(e.args[0].keys) else []
        if names and not any(DATE_WORD.search(n) for n in names):
            # a frame rebuilt from values with no date column left: only lags and windows still order its rows
            out.time = frozenset(t for t in out.time if t[0].startswith(("op:", "window")))
        return out

    def split_call(self, e: ast.Call, args: list, kws: dict) -> Val:
        args = [self.data_by_use(n) if (a is None or a.kind == "seq" and a.items == () and not a.keys) and
                isinstance(n, ast.Name) else a  # a table the analysis cannot follow (`df, y = helpers.load()`), or
                for a, n in zip(args, e.args)] + args[len(e.args):]  # a list filled from a reader it cannot follow
        args = [self.derive(e, list(a.items)) if a is not None and a.kind == "seq" and a.items and all(
            i is not None and i.is_data for i in a.items) else a for a in args]  # texts gathered pass by pass
        first = next((a for a in args if a is not None and a.is_data), None)
        self.note_split(e, args[:1], const(kw(e, "shuffle")) is not False, "train_test_split")
        seed = self.constant(kw(e, "random_state"))
        if seed is not None and not isinstance(seed, bool) and isinstance(seed, int) and first is not None:
            # a fixed seed (a literal, or a name bound to one), the same sizes and the same rows make the same
            # partition, whatever arrays are passed
            sizes = tuple(repr(self.constant(kw(e, k))) if self.constant(kw(e, k)) is not UNKNOWN else text(kw(e, k))
                          for k in ("test_size", "train_size", "random_state", "shuffle"))
            key: tuple = ("split", sizes, kw(e, "stratify") is not None, first.rows)
        else:
            key = self.new_key("split")
        outs: list[Val | None] = []
        nodes = list(e.args) if len(e.args) == len(args) else [None] * len(args)
        for node, a in zip(nodes, args):
            steps = self.positions(node, a)
            if steps is not None:  # `train_test_split(range(len(df)))`: positions that select rows of what they index
                self.rec.selections.setdefault(key, Selection(key, "split", self.site(e)))
                outs += [Val("index", step=(key, p), items=steps + ((key, p),), site=self.site(e))
                         for p in ("train", "test")]
                continue
            if a is None or not a.is_data:
                outs += [None, None]
                continue
            outs += [self.select(a, key, "train", "split", e), self.select(a, key, "test", "split", e)]
            if len(outs) == 2:  # the features' held-out part (labels may come from another source)
                self.rec.held_out_parts.append(outs[-1])
        if key in self.rec.selections:
            self.rec.selections[key].shuffle = const(kw(e, "shuffle")) is not False
        return Val("seq", items=tuple(outs), site=self.site(e))

    def parts_call(self, e: ast.Call, args: list, effect: str, sizes: ast.AST | None = None) -> Val | None:
        src = args[0] if args else None
        n = 2
        sizes = sizes if sizes is not None else e.args[1] if len(e.args) > 1 else None
        if isinstance(sizes, (ast.List, ast.Tuple)):
            n = len(sizes.elts) + (1 if effect == "array_split" else 0)
        elif effect == "array_split" and isinstance(const(sizes), int) and 1 < const(sizes) <= 20:
            n = const(sizes)
        if effect == "array_split" and (src is None or not src.is_data or src.kind == "index") and \
                (parts := self.position_parts(e, n, src)) is not None:
            return parts  # `np.array_split(np.random.permutation(n), 5)`: parts of the row positions
        if src is None or not src.is_data:
            return None
        key = self.new_key("split")
        self.note_split(e, [src], effect == "random_split", "random_split" if effect == "random_split" else "split")
        names = ["train"] + [f"part{i}" for i in range(1, n - 1)] + ["test"] if n > 1 else ["train"]
        parts = tuple(self.select(src, key, p, "split", e) for p in names)
        self.rec.held_out_parts.extend(parts[1:])
        return Val("seq", items=parts, site=self.site(e))
