"""Method calls: fitting, transforming, predicting and scoring on library objects; row selections and statistics
on frames and arrays; list and dict methods."""

from __future__ import annotations

import ast

from .api.darts_api import BACKTESTS
from .api.numpy_api import COMPARING, RANDOM_DRAWS
from .api.pandas_api import COUNT_ARGS, ROW_ADD, ROW_HEAD, ROW_RANDOM, ROW_TAIL, STAT_METHODS
from .api.sklearn import UNSUPERVISED
from .astutil import const, dropped_rows, kw, mask_steps, most_frequent, names_time, regrouped, text
from .columns import loc_cols
from .forecasts import HORIZON
from .objects import constant_filter, interpolates, layer_objs
from .rows import DUP, repeats_rows
from .state import flat_values
from .training import stops_early
from .values import Obj, Val

USED_AS_ROWS = frozenset({"transformer", "resampler"})
# `groupby(k)[c].transform(name)`: statistics of every row of the group (frequency encoding and ranks too)
GROUP_STATS = STAT_METHODS | {"count", "size", "nunique", "sum", "rank"}
FIT = frozenset({"fit", "fit_transform", "fit_resample", "fit_predict", "fit_on_texts", "partial_fit", "adapt",
                 "fit_generator", "train_on_batch", "fit_sample", "fit_on_sequences", "build_vocab"})
TRANSFORM = frozenset({"transform", "texts_to_sequences", "texts_to_matrix", "sequences_to_matrix", "flow",
                       "flow_from_dataframe",
                       "standardize", "inverse_transform", "fit_transform", "decision_path", "apply",
                       "get_vector", "infer_vector", "get_mean_vector"})
PREDICT = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function", "predict_classes",
                     "predict_on_batch", "predict_in_sample", "forecast", "get_forecast", "get_prediction",
                     "kneighbors", "predict_generator", "score_samples", "classify", "classify_many", "prob_classify",
                     "prob_classify_many", "test"})
SCORE = frozenset({"score", "evaluate", "test_on_batch", "evaluate_generator"})
_MODELISH = ("model", "pipeline", "search", "unknown")
ORDINAL_CODES = ("LabelEncoder", "OrdinalEncoder")  # encoders whose code is a value's place in the sorted vocabulary






# methods whose arguments count or place rows (periods, window sizes, decimals): none of their values reach the data
CONVERTS = frozenset({"numpy", "tolist", "cpu", "copy", "long", "astype", "to_numpy"})
WINDOWED = frozenset({"rolling", "expanding", "ewm", "shift", "diff", "pct_change", "resample", "cumsum",
                      "cummax", "cummin"})


def _windowed(node: ast.AST) -> bool:
    """A statistic over a window of neighbouring rows (`s.rolling(7).mean()`) is a feature, not a learned one."""
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in WINDOWED:
                return True
            node = node.func
        else:
            node = node.value
    return False


class Methods:
    """Mixin: method calls."""

    def method(self, recv: Val, attr: str, e: ast.Call) -> Val | None:
        if (done := self.file_method(recv, attr, e)) is not None:  # a file written, a network's weights saved/loaded
            return done[0]
        if recv.kind == "obj":
            return self.obj_method(recv, attr, e)
        args, kws = self.arguments(e)
        if recv.kind == "seq":
            return self.seq_method(recv, attr, e, args)
        if recv.kind == "func":
            return None
        if recv.kind == "index" and recv.step is None and attr in CONVERTS:
            return recv  # `torch.randperm(n).numpy()`: the same shuffled positions
        return self.data_method(recv, attr, e, args, kws)

    # --------------------------------------------------------------- objects
    def obj_method(self, recv: Val, attr: str, e: ast.Call) -> Val | None:
        obj = recv.obj
        if obj.role == "rng":  # rng.normal(...): new rows drawn at random; rng.permutation(X): X's rows
            args, kws = self.arguments(e)
            data = [a for a in args + list(kws.values()) if a is not None and a.is_data]
            if data:
                return self.derive(e, data)
            if attr == "shuffle":
                self.shuffled_in_place(attr, e)
                return None
            return self.permuted(attr, e, args) or (self.source(e, "made") if attr in RANDOM_DRAWS else None)
        args, kws = self.arguments(e)
        if obj.role.startswith("fastai_"):
            return self.fastai_method(recv, attr, e, args, kws)
        if obj.role == "instance":
            return self.call_method(recv, attr, e, args, kws)
        if attr == "train" and args and (obj.role == "model" and (obj.cls_node is not None or obj.cls.startswith(
                "nltk.")) or obj.role == "transformer"):
            attr = "fit"  # a notebook model class trained by `train(X, y)`; an embedding's `train(corpus)`
        if obj.role == "torch":
            if attr in ("eval", "train"):
                off = e.args and (const(e.args[0]) is False or self.known_test(e.args[0]) is False)
                obj.mode = "eval" if attr == "eval" or off else "train"  # `model.train(optimizer is not None)`
            return recv if attr in ("to", "cuda", "cpu", "eval", "train", "float", "double") else None
        if obj.role == "scheduler":
            if attr == "step":
                self.note_choice(args, e)  # ReduceLROnPlateau.step(metric): the metric steers training
            return None
        if obj.role == "trainer":
            if attr == "fit":
                self.trainer_fit(obj, e, args, kws)
            return None
        if obj.role == "tuner":
            return self.tuner_call(obj, attr, e, args, kws)
        if obj.role in ("loss", "config", "evaluator"):  # a Spark evaluator's `evaluate(predictions)` scores them
            return self.metric_call(obj.cls, e, args) if attr == "evaluate" and obj.role == "evaluator" else None
        if attr == "transform" and obj.cls.startswith("pyspark.") and obj.role in _MODELISH:
            attr = "predict"  # a fitted Spark model's `transform(df)` adds its predictions
        if attr == "flow_from_directory":  # images read from a folder: rows of their own (a `subset` of them)
            return self.keras_subset(self.source(e, "read"), e)
        x = args[0] if args else kws.get("X") or kws.get("x") or kws.get("raw_documents") or kws.get("texts") or \
            kws.get("generator") or kws.get("dataframe") or kws.get("X_train") or \
            (kws.get("series") if attr in FIT else None)  # (darts: `predict(n, series=s)` forecasts after s)
        y = args[1] if len(args) > 1 else kws.get("y") or kws.get("y_train")
        if x is not None and x.kind == "seq" and x.items:  # predict([row]), fit([X1, X2]); a notebook generator's
            x = self.derive(e, list(x.items) if x.func is None else [  # batches: the features of each (x, y) pair
                v for i in x.items for v in flat_values(i.items[0] if i is not None and i.kind == "seq" and i.items
                                                         else i)])
        x = x if x is not None and x.is_data else None
        if x is None and attr in FIT and obj.role in USED_AS_ROWS and e.args:
            x = self.data_by_use(e.args[0])
        if attr in ("fit", "fit_regularized") and obj.bound is not None and not args:
            x, y = obj.bound
        if attr == "add" and obj.role == "model":
            obj.layers += tuple(layer_objs(args))
        if obj.layers and x is not None and attr not in TRANSFORM:
            x = self.through_layers(obj, x)
        if attr in FIT:
            self.user_fit_body(obj, attr, e, args, kws)  # a notebook model class: what its own `fit` does inside
            return self.fit_call(obj, recv, attr, x, y, e, kws)
        if attr in BACKTESTS and obj.role == "model" and x is not None:
            return self.backtest(obj, x, attr, e, kws)  # darts: the steps after `start`, forecast one by one
        if attr in PREDICT:
            horizon = False
            if x is None and attr in ("predict", "forecast", "get_forecast", "predict_in_sample"):
                x = self.forecast_rows(obj, e, kws)
                horizon = x is not None and not x.rows
            if x is not None and self.fed_back(e):  # a recursive forecast: it predicts the rows after its window
                x, horizon = Val("data", rows=frozenset(), site=self.site(e)), True
            return self.prediction(obj, x, HORIZON if horizon else attr, e) if x is not None else None
        if attr in SCORE:
            if x is None:
                return None
            ev = self.add_eval(obj, x, attr, e, scored=True)
            ev.alone = True
            return Val("score", site=self.site(e), evals=(ev,))
        if attr in TRANSFORM:
            if x is None:
                return None
            fit = obj.fit if obj.role in ("transformer", "augmenter", "pipeline", "model") else None
            if obj.role == "model" and fit is not None:  # a fitted model's projection carries what it learned
                fit = obj.learned or self.weights_of(fit)
            stats = x.all_stats | ({fit} if fit is not None and fit.kind in ("transformer", "statistic") else set())
            out = Val("pred" if x.kind == "pred" else "data", rows=x.rows, stats=frozenset(stats), site=self.site(e),
                      evals=x.evals, time=x.time)  # (`enc.inverse_transform(pred)`: still predictions)
            return self.keras_subset(out, e) if attr.startswith("flow") else out
        if attr in ("get_support", "get_feature_names_out") and obj.fit is not None and obj.role == "transformer":
            return Val("data", stats=frozenset({obj.fit}), site=self.site(e))  # the columns a selector chose
        if attr == "set_params" and any(v is not None and v.hyper and v.kind != "seq" for v in kws.values()):
            obj.multi = 2  # reconfigured from a loop over settings: it stands for several configurations
        if attr == "set_params":
            obj.version += 1
            obj.early = obj.early or stops_early(e, self.bound_nodes)  # `set_params(early_stopping_rounds=50)`
        if attr in ("set_params", "compile", "add", "build"):
            return recv if attr == "set_params" else None
        if attr == "split" and obj.role == "splitter":
            return None
        return self.derive(e, args + list(kws.values()))

    def through_layers(self, obj: Obj, x: Val) -> Val:
        """Data entering a network passes its adapted preprocessing layers: it carries what they learned."""
        fits = frozenset(layer.fit for layer in obj.layers if layer.fit is not None)
        if not fits:
            return x
        out = Val("data", rows=x.rows, stats=x.all_stats | fits, site=x.site, evals=x.evals, time=x.time,
                  label=x.label)
        out.name = x.name
        return out

    def fit_call(self, obj: Obj, recv: Val, attr: str, x: Val | None, y: Val | None, e: ast.Call,
                 kws: dict) -> Val | None:
        role = obj.role
        if role == "torch":
            return None
        watched = len(self.rec.eval_sets)
        x = self.watch_sets(obj, e, kws, x)
        if role == "resampler" and attr in ("fit_resample", "fit_sample"):
            key = self.new_key("resample")
            if interpolates(obj):
                self.rec.synthetic.add(key)  # new rows interpolated between neighbours: it learns from the rows
            outs = [self.select(v, key, DUP, "resample", e) if v is not None and v.is_data else None for v in (x, y)]
            return Val("seq", items=tuple(outs), site=self.site(e))
        if role == "undersampler" and attr in ("fit_resample", "fit_sample"):
            key = ("under", text(e))
            outs = [self.select(v, key, "sub", "mask", e) if v is not None and v.is_data else None for v in (x, y)]
            return Val("seq", items=tuple(outs), site=self.site(e))
        if x is None:
            return recv if attr == "fit" else None
        if role in ("transformer", "augmenter"):
            fit = self.add_fit("transformer", obj.cls, x, e, obj=obj, y=y)
            # an encoder that lists categories learns nothing from how values are distributed; dates encoded as
            # their position among the dates seen are a time axis: each row's code is its rank among all the rows
            fit.vocab = getattr(obj, "vocab", False) and not (  # type: ignore[attr-defined]
                obj.cls.endswith(ORDINAL_CODES) and e.args and names_time(e.args[0])) or \
                obj.cls.endswith("VarianceThreshold") and constant_filter(obj.site.node)
            obj.fit = fit
            if attr in ("fit_transform", "fit_predict"):
                return Val("data", rows=x.rows, stats=x.all_stats | {fit}, site=self.site(e), evals=x.evals,
                           time=x.time)
            return recv if attr == "fit" else None
        if role == "stateless":
            return self.derive(e, [x]) if attr == "fit_transform" else recv
        # models, pipelines, searches, unknown estimators
        self.supervised(e, obj.cls, x, y)
        if role == "search":  # a search cross-validates on what it is fitted on
            self.add_eval(obj, x, "fit", e, scored=True, cv=True)
        fit = self.add_fit("model", obj.cls, x, e, obj=obj, y=y)
        fit.rows, fit.carried = self.carried_rows(obj, fit.rows, e, attr) or (fit.rows, frozenset())
        target = self.label_root(y.flabel) if y is not None and y.flabel else None  # another label: another task
        columns = self.feature_set(x, e.args[0] if e.args else None)
        fit.config = (obj.version, self.pass_stamp, fit.data_name, target, columns)
        obj.fit = fit
        # the data this very fit watched names the fit's own site (a function body fits once per call)
        self.rec.eval_sets[watched:] = [(o, v, fit.site, k, st) for o, v, _s, k, st in self.rec.eval_sets[watched:]]
        obj.learned = None
        if y is None and obj.cls.rsplit(".", 1)[-1] in UNSUPERVISED or attr == "fit_predict":
            obj.learned = self.add_fit("transformer", obj.cls, x, e, obj=obj)
        if attr == "fit_transform":  # a model used as a transform (LDA's projection, k-means distances)
            obj.learned = obj.learned or self.add_fit("transformer", obj.cls, x, e, obj=obj, y=y)
            return Val("data", rows=x.rows, stats=x.all_stats | {obj.learned}, site=self.site(e), evals=x.evals)
        if attr == "fit_predict":  # each row's cluster or outlier flag: a feature, or a prediction a metric scores
            ev = self.add_eval(obj, x, attr, e)
            return Val("data", rows=x.rows, stats=x.all_stats | {obj.learned}, site=self.site(e), evals=(ev,))
        return recv

    def prediction(self, obj: Obj, x: Val, method: str, e: ast.Call) -> Val:
        ev = self.add_eval(obj, x, method, e)
        learned = frozenset({obj.learned}) if obj.learned is not None else frozenset()  # distances, clusters
        return Val("pred", rows=x.rows, stats=x.all_stats | learned, site=self.site(e), evals=(ev,))

    # ------------------------------------------------------------------ data
    def data_method(self, recv: Val, attr: str, e: ast.Call, args: list, kws: dict) -> Val | None:
        if attr == "randomSplit":  # a Spark DataFrame's `randomSplit([0.8, 0.2], seed=1)`
            return self.parts_call(e, [recv], "random_split", e.args[0] if e.args else kw(e, "weights"))
        if attr == "reshape" and regrouped(list(e.args)):
            return self.select(recv, ("reshape", text(e)), "all", "reshape", e)
        if attr in ("idxmax", "idxmin", "argmax", "argmin", "nlargest", "nsmallest", "sort_values", "max", "min"):
            self.note_choice([recv] + args, e)
        if recv.kind in ("pred", "score") and attr in STAT_METHODS | {"sum", "item", "round", "count_nonzero"}:
            return self.derive(e, [recv])
        if attr in STAT_METHODS and recv.kind in ("data", "index"):
            axis = kw(e, "axis")
            if isinstance(axis, ast.Constant) and axis.value in (1, "columns") or _windowed(e.func.value) or \
                    id(recv) in self.row_values or self.one_row(recv):
                return self.derive(e, [recv])  # (across one row's own values: no row learns of another)
            fit = self.add_fit("statistic", attr, recv, e)
            return Val("data", stats=recv.all_stats | {fit}, site=self.site(e))
        if attr == "rank" and recv.kind in ("data", "index") and not _windowed(e.func.value):
            fit = self.add_fit("statistic", attr, recv, e)  # each row's place among all the rows
            return Val("data", rows=recv.rows, stats=recv.all_stats | {fit}, site=self.site(e), evals=recv.evals)
        if attr in ("apply", "map", "applymap") and (used := self.fitted_in_lambda(e)):  # `lambda t: embed(t, w2v)`
            return Val("data", rows=recv.rows, stats=recv.all_stats | used, site=self.site(e), evals=recv.evals)
        if attr in ("transform", "apply", "agg", "aggregate") and self.stat_in_call(e) and not _windowed(e.func.value):
            fit = self.add_fit("statistic", attr, recv, e)
            return Val("data", rows=recv.rows, stats=recv.all_stats | {fit}, site=self.site(e), evals=recv.evals)
        if attr in ROW_HEAD:
            n = e.args[0] if e.args else kw(e, "n")
            return self.select(recv, ("pos", text(n) or "5"), "lo", "slice", e)
        if attr in ("take", "skip") and len(e.args) == 1 and not (args and args[0] is not None and args[0].is_data):
            return self.select(recv, ("pos", text(e.args[0])), "lo" if attr == "take" else "hi", "slice", e)  # tf.data
        if attr in ROW_TAIL:
            n = e.args[0] if e.args else kw(e, "n")
            return self.select(recv, ("tail", text(n) or "5"), "hi", "slice", e)
        if attr in ROW_RANDOM:
            rep = kw(e, "replace")
            frac = kw(e, "frac")
            if isinstance(rep, ast.Constant) and rep.value is True or isinstance(frac, ast.Constant) and \
                    isinstance(frac.value, (int, float)) and frac.value > 1:
                return self.select(recv, self.new_key("resample"), DUP, "resample", e)
            if isinstance(frac, ast.Constant) and frac.value == 1:
                return self.derive(e, [recv])
            if isinstance(frac, ast.Constant) and isinstance(frac.value, float) and 0.3 <= frac.value < 1:
                self.note_split(e, [recv], True, "sample")  # df.sample(frac=0.8): a random training part
            return self.select(recv, ("sample", text(e)), "sub", "mask", e)
        if attr == "dropna" and (dropped := dropped_rows(e)) is not None:
            out = self.select(recv, *dropped, "mask", e)  # the rows `df[df.c.isna()]` leaves, or a table's complete
            if const(kw(e, "inplace")) is True and isinstance(e.func.value, ast.Name):
                self.assign(e.func.value, out, e)
                return None
            return out
        if attr == "query" and e.args or attr == "filter" and e.args and mask_steps(e.args[0]):
            return self.filtered(recv, e)
        if attr == "drop" and (out := self.dropped_index(recv, e)) is not None:
            return out
        if attr in ("split",) and recv.kind == "index":
            return None
        if attr == "align" and args and args[0] is not None and args[0].is_data:
            return Val("seq", items=(self.derive(e, [recv]), self.derive(e, [args[0]])), site=self.site(e))
        if attr == "pop" and recv.fcols is not None:
            return self.popped(recv, e)
        if attr == "append" and args and args[0] is not None:
            parts = [recv] + list(args[0].items or () if args[0].kind == "seq" else args[:1])
            out = self.derive(e, parts)  # `df.append([minority] * 3)`: rows stacked, as `pd.concat` stacks them
            if out is not None and repeats_rows(parts):
                out = self.select(out, self.new_key("resample"), DUP, "resample", e)
            return out
        if attr in ROW_ADD:
            return self.joined(attr, e, [recv] + args + list(kws.values()))
        if attr in ("append", "extend", "insert") and isinstance(e.func.value, ast.Name):
            return self.list_append(e.func.value.id, recv, args, e)
        data = [a for a in args + list(kws.values()) if a is not None and a.is_data and a is not recv]
        if attr in COUNT_ARGS:
            data = []  # `s.shift(lag)`: the argument is a number of rows
        stats = recv.stats.union(*(a.all_stats for a in data)) if data else recv.stats
        cols = recv.cols
        if cols and attr == "drop":
            given = [self.listed_columns(a) for a in list(e.args[:1]) + [k.value for k in e.keywords
                                                                         if k.arg == "columns"]]
            names = {n.value for a in given for n in ([a] if isinstance(a, ast.Constant) else getattr(a, "elts", []))
                     if isinstance(n, ast.Constant)}
            cols = {c: v for c, v in cols.items() if c not in names} or None
        elif cols and attr in ("agg", "aggregate") and (kept := self.aggregated_cols(recv, e)) is not None:
            cols = kept or None  # `agg({'a': 'sum'})`: the columns it names, with their own statistics
        elif cols and attr not in ("copy", "fillna", "dropna", "reset_index", "astype", "sort_values", "replace",
                                   "set_index", "sort_index", "drop_duplicates", "rename", "assign", "groupby"):
            stats, cols = stats.union(*cols.values()), None
        time = recv.time | self.time_evidence(recv, attr, e)
        out = Val(recv.kind if recv.kind != "index" else "data", rows=recv.rows, stats=stats, site=self.site(e),
                  time=time, evals=recv.evals, label=recv.label, hyper=recv.hyper, cols=cols)
        if attr == "drop":
            self.typed_drop(recv, out, e)  # columns dropped by name after a ranking was read
        if self.method_columns(recv, out, attr, e):
            return None  # df.drop(columns=..., inplace=True)
        inplace = kw(e, "inplace")
        if isinstance(inplace, ast.Constant) and inplace.value is True:
            target = e.func.value
            column = _written_column(target)
            while isinstance(target, (ast.Subscript, ast.Attribute)) and not isinstance(target, ast.Name):
                target = target.value
            if isinstance(target, ast.Name) and target.id in self.env and self.env[target.id].is_data:
                if column is not None:  # `df['Fare'].fillna(v, inplace=True)`: as `df['Fare'] = ...`
                    self.assign_item(ast.Subscript(value=target, slice=ast.Constant(column), ctx=ast.Store()), out, e)
                else:
                    self.rebind(target.id, self.env[target.id], out)
            return None
        return self.against_labels(out, [recv] + data, e) if attr in COMPARING else out

    def stat_in_call(self, e: ast.Call) -> bool:
        """`groupby(k)[c].transform('mean')`, `apply(lambda c: (c - c.mean()) / c.std())`."""
        for a in list(e.args) + [k.value for k in e.keywords]:
            if isinstance(a, ast.Constant) and a.value in GROUP_STATS:
                return True
            if isinstance(a, ast.Lambda):
                if any(isinstance(n, ast.Call) and _windowed(n) for n in ast.walk(a.body)):
                    return False
                for n in ast.walk(a.body):
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in STAT_METHODS \
                            or most_frequent(n) is not None:
                        return True
            if isinstance(a, ast.Attribute) and a.attr in STAT_METHODS:  # transform(np.mean)
                return True
        return False

    def list_append(self, name: str, recv: Val, args: list, e: ast.Call) -> None:
        data = [a for a in args if a is not None and a.is_data]
        if data:
            nv = self.derive(e, [recv] + data)
            if nv is not None:
                nv.name = name
                self.env[name] = nv
        return None

    # ----------------------------------------------------------- containers


def _written_column(node: ast.AST) -> str | None:
    """The one column an in-place method writes: `df['c']`, `df.c`, `df.loc[:, 'c']`."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr not in ("loc", "iloc"):
        return node.attr
    if not isinstance(node, ast.Subscript):
        return None
    sl = node.slice
    if isinstance(node.value, ast.Attribute) and node.value.attr == "loc" and loc_cols(sl) is not None and \
            isinstance(sl.elts[0], ast.Slice) and sl.elts[0].lower is None and sl.elts[0].upper is None:
        sl = loc_cols(sl)  # `df.loc[:, 'c']`: every row of one column
    elif not isinstance(node.value, ast.Name):
        return None
    return sl.value if isinstance(sl, ast.Constant) and isinstance(sl.value, str) else None
