"""Training written as loops (PyTorch) and trainer objects (Hugging Face `Trainer`, Lightning `Trainer`).

A network called inside a loop whose own body calls `.backward()` (outside `torch.no_grad()` and `.eval()`)
learns from those rows; called anywhere else it predicts, and what it predicts can be scored. A trainer's
evaluation set selects when the trainer keeps the best checkpoint or stops early, and so does the data any `fit`
watches (`eval_set`, `validation_data`) with early stopping or a best-model checkpoint (`watch_sets`)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from .astutil import call_leaf, const, kw, path_arg
from .rows import union
from .values import TRAIN_FORWARD, Eval, Fit, Obj, Val

NO_GRAD = ("no_grad", "inference_mode", "enable_grad")


def trains_directly(body: list[ast.stmt], known: Callable[[ast.expr], bool | None] | None = None) -> bool:
    """The statements call `.backward()` themselves (not only in a nested loop or function); `known` tells the
    branches that cannot run here (`if training:` in a call made with `optimizer=None`)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.ClassDef, ast.Lambda)):
            continue
        taken = known(node.test) if known is not None and isinstance(node, ast.If) else None
        if taken is not None:
            stack.extend(node.body if taken else node.orelse)
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward":
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def is_no_grad(node: ast.AST) -> bool:
    call = node.func if isinstance(node, ast.Call) else node
    return isinstance(call, ast.Attribute) and call.attr in NO_GRAD[:2] or \
        isinstance(call, ast.Name) and call.id in NO_GRAD[:2]


EARLY = ("early_stopping_rounds", "early_stopping", "callbacks", "use_best_model", "early_stopping_round")


# callbacks that only log or follow a fixed schedule: the watched data chooses nothing through them
LOGGING_CALLBACKS = frozenset({
    "TensorBoard", "CSVLogger", "History", "ProgbarLogger", "TerminateOnNaN", "LambdaCallback",
    "LearningRateScheduler", "BackupAndRestore", "RemoteMonitor", "WandbCallback", "WandbMetricsLogger",
    "MLflowCallback", "TqdmCallback", "log_evaluation", "print_evaluation", "record_evaluation", "reset_parameter",
    "EvaluationMonitor", "TrainingCallback", "EpochDots"})


def stops_early(e: ast.Call, bound: dict | None = None, classes: dict | None = None) -> bool:
    """The call stops early or keeps the best epoch (it selects by the evaluation data); `bound` maps names to the
    expressions last assigned to them, to read `callbacks=cbs` through `cbs = [...]`; `classes`: the notebook's
    own classes by name."""
    for arg, value in _keywords(e, bound or {}):
        if arg not in EARLY or isinstance(value, ast.Constant) and value.value in (None, False):
            continue
        if arg == "callbacks" and not _selects(value, bound or {}, 0, classes or {}):
            continue
        return True
    return False


def _keywords(e: ast.Call, bound: dict) -> list:
    """The call's keywords as (name, value) pairs, a dict unpacked into them (`XGBClassifier(**params)` with
    `params = {...}` or `dict(...)`) read through the expression last assigned to its name."""
    out = []
    for k in e.keywords:
        if k.arg is not None:
            out.append((k.arg, k.value))
            continue
        d = bound.get(k.value.id) if isinstance(k.value, ast.Name) else k.value
        if isinstance(d, ast.Dict):
            out += [(key.value, v) for key, v in zip(d.keys, d.values)
                    if isinstance(key, ast.Constant) and isinstance(key.value, str)]
        elif isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "dict":
            out += [(kk.arg, kk.value) for kk in d.keywords if kk.arg is not None]
    return out


def _selects(node: ast.expr, bound: dict, depth: int, classes: dict) -> bool:
    """A callback, or a list of them, that may choose by the watched data (anything but a logger or a fixed
    schedule; a callback the notebook defines may, unless its body neither stops training nor saves or sets
    weights, and one not known may)."""
    if isinstance(node, ast.Name) and node.id in bound and depth < 4:
        return _selects(bound[node.id], bound, depth + 1, classes)
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_selects(el, bound, depth + 1, classes) for el in node.elts)
    if isinstance(node, ast.Call):
        leaf = call_leaf(node)
        if leaf in classes and not _callback_chooses(classes[leaf]):
            return False  # `class PrintDot(Callback)` printing a dot per epoch
        monitor = kw(node, "monitor")
        monitor = bound.get(monitor.id, monitor) if isinstance(monitor, ast.Name) else monitor
        if isinstance(monitor, ast.Constant) and isinstance(monitor.value, str) and \
                "val" not in monitor.value:
            return False  # `EarlyStopping(monitor='loss')` watches a training metric, not the held-out data
        best = kw(node, "save_best_only")
        if leaf == "ModelCheckpoint" and (best is None or isinstance(best, ast.Constant) and not best.value):
            return False  # a checkpoint of every epoch keeps the last weights: it chooses none
        return leaf not in LOGGING_CALLBACKS
    return True


def _callback_chooses(cls: ast.ClassDef) -> bool:
    """A notebook's callback class that may stop training or keep some epoch's weights: it subclasses a library
    callback that does, or its body sets `stop_training`, saves, loads or sets weights."""
    bases = {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in cls.bases}
    if bases - {"Callback", "object", "TrainerCallback"} - LOGGING_CALLBACKS:
        return True
    if not any(isinstance(n, ast.Attribute) and n.attr in CHOOSING_ATTRS for n in ast.walk(cls)):
        return False
    read = _metrics_read(cls)  # `logs.get('accuracy') > 0.9`: stops on a training metric, not the held-out rows
    return not read or any("val" in k for k in read)


def _metrics_read(cls: ast.ClassDef) -> set[str]:
    """The metric names a callback reads from the logs it is given (`logs.get('loss')`, `logs['val_acc']`)."""
    params = {a.arg for f in cls.body if isinstance(f, ast.FunctionDef) and f.name.startswith("on_")
              for a in f.args.args[1:] + f.args.kwonlyargs}  # `on_epoch_end(self, epoch, logs=None)`
    out = set()
    for n in ast.walk(cls):
        key = None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and n.args:
            key, holder = n.args[0], n.func.value
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):  # (`logs['auc_val'] = ...` writes one)
            key, holder = n.slice, n.value
        if key is not None and isinstance(holder, ast.Name) and holder.id in params and \
                isinstance(key, ast.Constant) and isinstance(key.value, str):
            out.add(key.value)
    return out


CHOOSING_ATTRS = frozenset({"stop_training", "save", "save_weights", "set_weights", "load_weights", "get_weights",
                            "should_training_stop", "save_pretrained", "state_dict", "load_state_dict"})


class Training:
    """Mixin: torch networks called in loops, loss objects, schedulers, trainer objects."""

    def training_now(self, obj: Obj) -> bool:
        return any(kind == "train" for _, kind, _ in self.loops) and not self.no_grad and \
            getattr(obj, "mode", "train") != "eval"

    def torch_call(self, obj: Obj, e: ast.Call, data: Val) -> Val:
        """`net(xb)`: learning from the batch inside a training loop, else a prediction."""
        if self.training_now(obj):
            fit = obj.fit
            rows = union(fit.rows, data.rows) if fit is not None else data.rows
            rows, carried = self.carried_rows(obj, rows, e) or (rows, frozenset())
            stats = (fit.stats if fit is not None else frozenset()) | data.all_stats
            if fit is None or fit.rows != rows or fit.stats != stats:
                obj.fit = Fit("model", obj.cls, rows, stats, self.site(e), obj=obj, data_name=data.text(),
                              carried=carried)
                self.rec.fits.append(obj.fit)
            # what the batch's forward pass outputs is scored only when set against the labels outside the loss
            # (a running training accuracy); `mark_scored` records the evaluation then
            ev = Eval(obj, obj.fit, data, TRAIN_FORWARD, self.site(e),
                      loops=tuple((lid, kind) for lid, kind, _ in self.loops))
            return Val("pred", rows=data.rows, stats=data.all_stats, site=self.site(e), evals=(ev,))
        if obj.fit is None:
            return Val("data", rows=data.rows, stats=data.all_stats, site=self.site(e))
        return self.prediction(obj, data, "__call__", e)

    def loss_call(self, e: ast.Call, args: list) -> Val | None:
        """`criterion(output, target)`: a loss compares predictions with labels, like a metric (the loss a
        training step minimises scores nothing)."""
        self.mark_scored(args, e, loss=True)
        return self.derive(e, args, kind="score")

    def trainer(self, obj: Obj, e: ast.Call, args: list, kws: dict) -> None:
        """`Trainer(model=..., train_dataset=..., eval_dataset=...)` (Hugging Face) records its fit and eval set."""
        conf = kws.get("args")
        early = bool(kws.get("callbacks")) or (conf is not None and conf.kind == "obj" and conf.obj.early)
        obj.early = early
        model = kws.get("model") or (args[0] if args else None)
        train = kws.get("train_dataset")
        if model is not None and model.kind == "obj" and train is not None and train.is_data:
            model.obj.fit = self.add_fit("model", model.obj.cls, train, e, obj=model.obj)
        evald = kws.get("eval_dataset")
        if evald is not None:
            at = model.obj.fit.site if model is not None and model.kind == "obj" and model.obj.fit else self.site(e)
            self.rec.eval_sets.append((obj, evald, at, "eval_dataset", early))

    def trainer_fit(self, obj: Obj, e: ast.Call, args: list, kws: dict) -> None:
        """Lightning `trainer.fit(model, train_loader, val_loader)`."""
        model = args[0] if args else kws.get("model")
        train = args[1] if len(args) > 1 else kws.get("train_dataloaders")
        val = args[2] if len(args) > 2 else kws.get("val_dataloaders")
        if model is not None and model.kind == "obj" and train is not None and train.is_data:
            model.obj.fit = self.add_fit("model", model.obj.cls, train, e, obj=model.obj)
        if val is not None:
            at = model.obj.fit.site if model is not None and model.kind == "obj" and model.obj.fit else self.site(e)
            self.rec.eval_sets.append((obj, val, at, "val_dataloaders", obj.early))

    def tuner_call(self, obj: Obj, attr: str, e: ast.Call, args: list, kws: dict) -> Val | None:
        """keras-tuner's `search(validation_data=...)` and lazypredict's `fit(X_train, X_test, y_train, y_test)`:
        the held-out data chooses the settings or the model; `get_best_models()`/`hypermodel.build()` give the
        network of the best settings."""
        if attr == "search" and kws.get("validation_data") is not None:
            self.rec.eval_sets.append((obj, kws["validation_data"], self.site(e), "validation_data", True))
        if attr == "search" and args:  # `search(X, y, validation_split=0.1)`: the settings its last rows score best
            self.split_off(obj, args[0], e, True)
        held = [args[i] if len(args) > i else kws.get(k) for i, k in ((1, "X_test"), (3, "y_test"))]
        if attr == "fit" and obj.cls.startswith("lazypredict.") and held[0] is not None:
            pair = Val("seq", items=tuple(held), site=self.site(e))
            self.rec.eval_sets.append((obj, pair, self.site(e), "X_test, y_test", True))
        if attr in ("get_best_models", "build"):  # the network of the best settings (`tuner.hypermodel.build`)
            net = Val("obj", obj=Obj(f"{obj.cls}.best_model", "model", self.site(e)), site=self.site(e))
            return Val("seq", items=(net,), site=self.site(e)) if attr == "get_best_models" else net
        return None

    @staticmethod
    def early_config(e: ast.Call) -> bool:
        """`TrainingArguments(load_best_model_at_end=True)` / `Trainer(callbacks=[EarlyStopping()])`."""
        best = kw(e, "load_best_model_at_end")
        return const(best) is True or kw(e, "callbacks") is not None or kw(e, "metric_for_best_model") is not None

    def history_scores(self, e: ast.Call) -> None:
        """`print(history.history['accuracy'][-1])`: a Keras History's training metric, one epoch's value or its
        best printed, is the model's score on the rows it was fitted on (its `val_` metrics are those of the watched
        data; the whole list printed is a learning curve)."""
        for n in history_reads(e):
            v = self.expr(n.value.value)
            if v is not None and v.kind == "obj" and v.obj.fit is not None and v.obj.fit.kind == "model" and \
                    v.obj.fit.rows:
                self.add_eval(v.obj, Val("data", rows=v.obj.fit.rows, site=self.site(n)), "history", n, scored=True)

    def watch_sets(self, obj: Obj, e: ast.Call, kws: dict, x: Val | None = None) -> Val | None:
        """The data a `fit` watches while it trains (`eval_set`, `validation_data`, ...), and whether that data
        stops the training early or picks the weights kept. What the fit trains on: `x`, or with Keras's
        `validation_split=0.2` its first rows (the last fifth is held out and watched)."""
        tabnet = obj.cls.startswith("pytorch_tabnet.")
        self.checkpoint_files(obj, kw(e, "callbacks"), 0)
        for name in ("eval_set", "validation_data", "eval_X", "valid_sets", "evals") + (("X_valid",) if tabnet else ()):
            if kws.get(name) is not None:
                given = {k.arg for k in e.keywords}
                early = stops_early(e, self.bound_nodes, self.user_classes) or obj.early or any(
                    k in EARLY for k in kws if k not in given)  # also through **params
                if obj.cls.startswith("catboost.") and not any(turned_off(c, "use_best_model")
                                                               for c in (e, obj.site.node)):
                    early = True  # CatBoost keeps the best iteration on `eval_set` unless told not to
                if tabnet and self.constant(kw(e, "patience")) != 0:
                    early = True  # TabNet stops early (patience 10 unless 0) and keeps the best epoch's weights
                self.rec.eval_sets.append((obj, kws[name], self.site(e), name, early))
        if kws.get("X_val") is not None:  # HistGradientBoosting*: X_val/y_val turn early stopping on unless disabled
            early = not turned_off(obj.site.node, "early_stopping")
            self.rec.eval_sets.append((obj, kws["X_val"], self.site(e), "X_val", early))
        return self.split_off(obj, x, e, stops_early(e, self.bound_nodes, self.user_classes) or obj.early)

    def split_off(self, obj: Obj, x: Val | None, e: ast.Call, early: bool) -> Val | None:
        """Keras's `validation_split=0.2` on `x`: its last fifth is watched (an eval set that chooses when `early`)
        and its first rows are what is trained on, returned (`x` itself without a fraction)."""
        frac = self.constant(kw(e, "validation_split"))
        if x is None or not x.is_data or not x.rows or not isinstance(frac, float) or not 0 < frac < 1:
            return x
        key = ("pos", f"validation_split={frac}", id(e))  # (no literal bounds: which rows is not known here)
        held, kept = (self.select(x, key, side, "slice", e) for side in ("hi", "lo"))
        held.name = kept.name = x.name  # (its last rows, its first rows)
        self.rec.eval_sets.append((obj, held, self.site(e), "validation_split", early))
        return kept


    def checkpoint_files(self, obj: Obj, node: ast.expr | None, depth: int) -> None:
        """`ModelCheckpoint("best.keras")` among a fit's callbacks writes the network to that file: loading it
        (`load_model("best.keras")`) gives back the trained network."""
        if isinstance(node, ast.Name) and node.id in self.bound_nodes and depth < 4:
            self.checkpoint_files(obj, self.bound_nodes[node.id], depth + 1)
        elif isinstance(node, (ast.List, ast.Tuple)):
            for el in node.elts:
                self.checkpoint_files(obj, el, depth + 1)
        elif isinstance(node, ast.Call) and call_leaf(node) == "ModelCheckpoint":
            self.wrote(self.file_path(path_arg(node)), Val("obj", obj=obj, site=self.site(node)))


def turned_off(call: ast.AST | None, name: str) -> bool:
    """The call sets `name=False`."""
    return isinstance(call, ast.Call) and any(
        k.arg == name and isinstance(k.value, ast.Constant) and k.value.value is False for k in call.keywords)


def history_reads(e: ast.Call) -> tuple[ast.Subscript, ...]:
    """The training metrics of a History a call reads as one number (`h.history['accuracy'][-1]`,
    `max(h.history['acc'])`): the `h.history[key]` nodes."""
    found = []
    for m in ast.walk(e):
        n = m.value if isinstance(m, ast.Subscript) else m.args[0] if isinstance(m, ast.Call) and m.args and \
            call_leaf(m) in ("max", "min", "mean", "amax", "amin") else None
        key = const(n.slice) if isinstance(n, ast.Subscript) else None
        if isinstance(key, str) and not key.startswith("val_") and key not in ("loss", "lr", "learning_rate") and \
                isinstance(n.value, ast.Attribute) and n.value.attr == "history":
            found.append(n)
    return tuple(found)
