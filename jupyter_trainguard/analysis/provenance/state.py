"""What the interpreter records while it runs: selections, fits and evaluations, for the detectors to read."""

from __future__ import annotations

import ast
import itertools

from ...findings import FACTORY, factory
from ...findings import Record as _Record
from .astutil import call_leaf
from .rows import Selection, covered, extend, union
from .values import TRAIN_FORWARD, Eval, Fit, Obj, Site, Val, graph_layers, site_of

THRESHOLD_CURVES = ("precision_recall_curve", "roc_curve", "det_curve")  # a score per decision threshold


class Record(_Record):
    """Everything the detectors need, independent of the AST."""

    fits: list[Fit] = factory(list)
    evals: list[Eval] = factory(list)
    selections: dict = factory(dict)  # selection key -> Selection
    eval_sets: list = factory(list)  # (Obj, Val, Site, kwarg) test rows passed to fitting
    held_out_parts: list = factory(list)  # the non-training parts that split calls returned
    torch_objects: list = factory(list)  # networks built in the notebook (Obj with role "torch")
    env: dict = factory(dict)  # the names bound when the last cell has run
    derived: dict = factory(dict)  # (frame, column) -> (columns read, existed before, noisy)
    supervised: list = factory(list)  # (Site, estimator class, X Val, y Val) of fits and CV
    reports: list = factory(list)  # (Site, detail): a training-row score reported as held-out
    splits: list = factory(list)  # temporal.SplitUse: what each split divided, shuffled or not
    choices: list = factory(list)  # (Val of scores, Site, ids of the fold loops open there): scores compared to pick
    synthetic: set = factory(set)  # resampling keys of oversamplers that interpolate new rows (SMOTE, ADASYN)
    touched: set = factory(set)  # selection steps of data given to calls the analysis cannot follow
    typed: dict = factory(dict)  # id of a ranking's fit -> the Sites where columns were typed in after its read
    imputed: set = factory(set)  # ids of evaluations whose predictions were written into a table's cells

    def __init__(self, fits: list[Fit] = FACTORY, evals: list[Eval] = FACTORY, selections: dict = FACTORY,
                 eval_sets: list = FACTORY, held_out_parts: list = FACTORY, torch_objects: list = FACTORY,
                 env: dict = FACTORY, derived: dict = FACTORY, supervised: list = FACTORY, reports: list = FACTORY,
                 splits: list = FACTORY, choices: list = FACTORY, synthetic: set = FACTORY,
                 touched: set = FACTORY, typed: dict = FACTORY, imputed: set = FACTORY) -> None:
        self.fits = [] if fits is FACTORY else fits
        self.evals = [] if evals is FACTORY else evals
        self.selections = {} if selections is FACTORY else selections
        self.eval_sets = [] if eval_sets is FACTORY else eval_sets
        self.held_out_parts = [] if held_out_parts is FACTORY else held_out_parts
        self.torch_objects = [] if torch_objects is FACTORY else torch_objects
        self.env = {} if env is FACTORY else env
        self.derived = {} if derived is FACTORY else derived
        self.supervised = [] if supervised is FACTORY else supervised
        self.reports = [] if reports is FACTORY else reports
        self.splits = [] if splits is FACTORY else splits
        self.choices = [] if choices is FACTORY else choices
        self.synthetic = set() if synthetic is FACTORY else synthetic
        self.touched = set() if touched is FACTORY else touched
        self.typed = {} if typed is FACTORY else typed
        self.imputed = set() if imputed is FACTORY else imputed


UNKNOWN = object()


class State:
    """Shared helpers of the interpreter mixins: value construction and event recording."""

    def __init__(self) -> None:
        self.rec = Record()
        self.cell: object = None
        self._ids = itertools.count(1)
        self.loops: list[tuple[int, str, int]] = []  # (loop id, kind, number of passes)
        self.imputers: dict = {}  # id of a model's fit -> the statistic its predictions written into a table carry
        self.loop_nodes: list[ast.AST] = []  # the `for`/`while` statements being run, innermost last
        self.growing: set[str] = set()  # in a loop: the names the statement being run assigns (`acc = f(acc, x)`)
        self.call_sites: list[Site] = []  # the calls of the notebook functions being followed, outermost first
        self.bound_nodes: dict[str, ast.expr] = {}  # a name -> the expression last assigned to it (`cbs = [...]`)
        self.consts: dict[str, object] = {}  # names bound to a literal number or string (`SEED = 42`)
        self.resets: dict[str, int] = {}  # names bound to a literal inside a loop's body -> that loop
        self.pass_words: set[str] = set()  # loop variables bound to one word per pass (`for phase in [...]`)
        self.pass_stamp: tuple = ()  # which pass of each loop run once per item is running now
        self.setting_vars: dict[int, frozenset] = {}  # a loop over settings -> the names its passes bind
        self.deferred: dict[int, tuple] = {}  # id of `delayed(f)(x)` -> (that node, the call `f(x)` it runs)
        self.weights: dict[int, Fit] = {}  # a model fit -> the statistic its importances/coefficients are
        self.ranked: list[Fit] = []  # selectors' rankings and models' importances read so far
        self.ranked_guard: frozenset = frozenset()  # rankings an enclosing `if` tests (`if sel.support_[i]:`)
        self.column_loops: set[int] = set()  # ids of loops over column names or positions, not rows
        self.label_names: set[str] = set()  # the columns fits were given as their labels
        self.fit_removed: dict[int, frozenset | None] = {}  # id of a fit -> columns its data had dropped, if known
        self.date_columns: set[str] = set()  # columns the notebook parsed as dates (`parse_dates=`, `to_datetime`)
        self.read_paths: dict[tuple, tuple] = {}  # (reader, path it names) -> the source its rows are
        self.folder_reads: dict[str, frozenset] = {}  # a folder read recursively -> its rows (files.py)
        self.written: dict[str, Val] = {}  # a literal path -> the value the notebook wrote there
        self.loop_written: list[tuple[str, Val]] = []  # (pattern of paths a loop's passes name, model written)
        self.by_hand_models: dict[tuple, Obj] = {}  # (notebook function, rows) -> the model it is (functions.py)
        self.allocations: set[tuple] = set()  # the sources that are empty matrices to be filled (containers.py)

    # --------------------------------------------------------------- values
    def site(self, node: ast.AST | None) -> Site:
        s = site_of(self.cell, node)
        if self.call_sites:
            s.via = self.call_sites[0]
            s.inner = tuple(self.call_sites[1:])
        return s

    def source(self, node: ast.AST | None, label: str = "src") -> Val:
        """New rows: data read or built in the notebook. A file named by the same path as an earlier read holds
        the same rows (`pd.read_csv(PATH)` in two cells is one table; a folder, see `Files.read_rows`)."""
        back = self.read_back(node) if label == "read" else None
        if back is not None:
            return back  # a file the notebook wrote: what it wrote
        path = self.read_key(node) if label == "read" else None
        sid = self.read_paths.get(path) if path is not None else None
        if sid is None:
            sid = (label, next(self._ids))
            if path is not None:
                self.read_paths[path] = sid
        rows = self.read_rows(path, frozenset({(sid,)}), node) if path is not None else frozenset({(sid,)})
        return Val("data", rows=rows, site=self.site(node))

    def derive(self, node: ast.AST | None, parts: list[Val | None], kind: str = "data") -> Val | None:
        """A value computed from others: their rows and statistics flow through (rows of aggregates stay empty)."""
        ps = [p for p in parts if p is not None and p.is_data]
        if not ps:
            layers = graph_layers(parts)  # a layer applied to a symbolic tensor of a functional model
            return Val("graph", items=layers, site=self.site(node)) if layers else None
        rows = union(*(p.rows for p in ps))
        stats = frozenset().union(*(p.all_stats for p in ps))
        evals = tuple(e for p in ps for e in p.evals)
        k = kind
        if k == "data" and any(p.kind == "score" for p in ps):
            k = "score"
        elif k == "data" and any(p.kind == "pred" for p in ps):
            k = "pred"
        single = ps[0] if len(ps) == 1 else None
        return Val(k, rows=rows, stats=stats, site=self.site(node), evals=evals,
                   time=frozenset().union(*(p.time for p in ps)),
                   fcols=single.fcols if single is not None else None,
                   flabel=single.flabel if single is not None else None,
                   label=all(p.label for p in ps), hyper=any(p.hyper for p in ps))

    def select(self, base: Val, key: object, part: str, kind: str, node: ast.AST | None) -> Val:
        """The rows of `base` that a selection (split part, slice, mask, fold) keeps."""
        sel = self.rec.selections.get(key)
        if sel is None:
            self.rec.selections[key] = Selection(key, kind, self.site(node), loops=self.varying(key, node))
        elif node is not None and node is not sel.site.node and not any(s.node is node for s in sel.again):
            sel.again.append(self.site(node))  # the same split made again by another call
        return Val(base.kind if base.kind != "index" else "data", rows=extend(base.rows, (key, part)),
                   stats=base.stats, site=self.site(node), label=base.label, evals=base.evals, cols=base.cols,
                   time=base.time, fcols=base.fcols, flabel=base.flabel, hyper=base.hyper)

    def note_constant(self, target: ast.expr, value: ast.expr) -> None:
        """`SEED = 42`: the name stands for the literal until it is bound to something else (a path joined from
        literals, `train_dir = os.path.join(root, "train")`, stands for the joined path)."""
        if isinstance(target, ast.Name):
            self.bound_nodes[target.id] = value
            got = self.constant(value)
            if got is UNKNOWN and isinstance(value, (ast.BinOp, ast.JoinedStr, ast.Call)):
                got = self.file_path(value) or UNKNOWN
            if got is UNKNOWN:
                self.consts.pop(target.id, None)
            else:
                self.consts[target.id] = got

    def constant(self, node: ast.AST | None) -> object:
        """The literal a seed or size argument stands for (itself, or a name bound to one), else UNKNOWN."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
            return node.value
        if isinstance(node, ast.Name) and node.id in self.consts:
            return self.consts[node.id]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):  # `preds[n - 1]`, n counted
            a, b = self.constant(node.left), self.constant(node.right)
            if type(a) is int and type(b) is int:
                return a + b if isinstance(node.op, ast.Add) else a - b
        return UNKNOWN

    def known_test(self, test: ast.expr) -> bool | None:
        """Whether a branch test is known to hold here, else None: `x is None` / `x is not None` (a name bound to a
        value is not None, one bound to the literal None, a parameter's default, is), a name bound to such a test
        (`training = optimizer is not None`), and `if flag:` / `if not flag:` on a parameter the call or its default
        gives a literal True/False (a global flag runs both branches: the author switches it)."""
        neg = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        flag = test.operand if neg else test
        word = self.word_test(flag)
        if word is not None:
            return word is not neg
        if isinstance(flag, ast.Name) and flag.id in self.flags and isinstance(self.consts.get(flag.id), bool):
            return self.consts[flag.id] is not neg
        bound = self.bound_nodes.get(flag.id) if isinstance(flag, ast.Name) else None
        if isinstance(bound, ast.Compare) and bound is not test:  # `training = optimizer is not None`
            known = self.known_test(bound)
            return None if known is None else known is not neg
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))
                and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Constant)
                and test.comparators[0].value is None):
            return None
        name = test.left.id
        if self.env.get(name) is not None:
            is_none = False
        elif name in self.consts:
            is_none = self.consts[name] is None
        else:
            return None
        return is_none if isinstance(test.ops[0], ast.Is) else not is_none

    def word_test(self, test: ast.expr) -> bool | None:
        """`phase == 'train'` / `phase != 'val'` / `phase in ('val', 'test')` for a loop variable bound to one
        word per pass of a loop over a literal list of words; else None."""
        if isinstance(test, ast.BoolOp):
            parts = [self.word_test(v) for v in test.values]
            if isinstance(test.op, ast.And):
                return False if False in parts else (True if all(p is True for p in parts) else None)
            return True if True in parts else (False if all(p is False for p in parts) else None)
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
                and test.left.id in self.pass_words and isinstance(self.consts.get(test.left.id), str)):
            return None
        word, op, other = self.consts.get(test.left.id), test.ops[0], test.comparators[0]
        if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(other, ast.Constant):
            return (word == other.value) is isinstance(op, ast.Eq)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(other, (ast.List, ast.Tuple, ast.Set)) and \
                all(isinstance(x, ast.Constant) for x in other.elts):
            return (word in [x.value for x in other.elts]) is isinstance(op, ast.In)
        return None

    def varying(self, key: object, node: ast.AST | None) -> tuple:
        """The loops over settings whose passes select other rows here: a selection drawn anew on each pass (a
        split without a fixed seed) or one that reads the loop's variable (`random_state=seed`, `fold == k`)."""
        fresh = isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], int)  # a new_key: random rows
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} if node is not None else set()
        return tuple(lid for lid, kind, _n in self.loops
                     if kind == "settings" and (fresh or names & self.setting_vars.get(lid, frozenset())))

    def new_key(self, kind: str) -> tuple:
        return (kind, next(self._ids))

    # --------------------------------------------------------------- events
    def add_fit(self, kind: str, cls: str, data: Val | None, node: ast.AST, obj=None, y: Val | None = None) -> Fit:
        rows = data.rows if data is not None else frozenset()
        stats = data.all_stats if data is not None else frozenset()
        fit = Fit(kind, cls, rows, stats, self.site(node), obj=obj,
                  ylabel_only=data is not None and data.label and y is None,
                  data_name=data.text() if data is not None else "", data_site=data.site if data is not None else None)
        self.rec.fits.append(fit)
        if y is not None and y.flabel:
            self.label_names.add(y.flabel[1])
        self.fit_removed[id(fit)] = frozenset(data.fcols["removed"]) if data is not None and data.fcols else None
        return fit

    def supervised(self, node: ast.AST, cls: str, x: Val | None, y: Val | None) -> None:
        if x is not None and y is not None and x.is_data and y.is_data:
            self.rec.supervised.append((self.site(node), cls, x, y))

    def add_eval(self, obj, data: Val, method: str, node: ast.AST, scored: bool = False, cv: bool = False) -> Eval:
        data = self.every_row(data) if data is not None and data.is_data else data  # row by row: every row
        ev = Eval(obj, obj.fit if obj is not None else None, data, method, self.site(node), scored=scored, cv=cv,
                  loops=tuple((lid, kind) for lid, kind, _ in self.loops))
        self.rec.evals.append(ev)
        return ev

    def touch(self, data: list) -> None:
        """Rows given to a call the analysis cannot follow: that call may score them (a test part it takes is
        not left untouched)."""
        self.rec.touched.update(step for v in data for tok in v.rows for step in tok[1:])

    def note_choice(self, vals: list, node: ast.AST) -> None:
        """Scores used to pick something (max/argmax/sort, or compared with another score). A choice needs
        candidates: scores of several models, of a model rebuilt per setting, of one computed in a loop (epochs),
        or one per decision threshold (a precision-recall or ROC curve); the largest cell of one confusion matrix
        (`cm.max() / 2`) picks nothing."""
        items = [i for v in vals for i in flat_values(v) if i is not None and i.kind == "score" and i.evals]
        evals = [ev for i in items for ev in i.evals]
        if not evals:
            return
        if len({id(ev.obj) for ev in evals}) > 1 or any(ev.obj is not None and ev.obj.multi > 1 or ev.loops or
                                                         ev.tuned for ev in evals) or self.loops or \
                any(i.hyper for i in items):
            folds = frozenset(lid for lid, kind, _n in self.loops if kind == "folds")
            self.rec.choices.append((items[0], self.site(node), folds))

    def score_table(self, e: ast.Call, vals: list) -> Val | None:
        """A table built from lists of scores (`pd.DataFrame(results)` of `[seed, acc]` rows): the scores it holds,
        so picking its best row (`frame[frame.acc == frame.acc.max()]`) is a choice by them."""
        scores = [i for v in vals for i in flat_values(v) if i is not None and i.kind == "score" and i.evals]
        return self.derive(e, scores) if scores else None

    def train_score(self, v: Val | None) -> bool:
        """A score computed on exactly the rows its model was fitted on (its training rows)."""
        return v is not None and v.kind == "score" and any(
            ev.fit is not None and covered(ev.data.rows, ev.fit.rows) and covered(ev.fit.rows, ev.data.rows)
            for ev in v.evals)

    def metric_call(self, q: str, e: ast.Call, vals: list) -> Val | None:
        """A library metric (torch's are losses): it scores the predictions it reads. A curve's scores, one per
        decision threshold, are candidates: picking the best of them picks a setting. Given a fitted model first
        (`plot_confusion_matrix(model, X, y)`, `RocCurveDisplay.from_estimator(model, X, y)`), the model predicts X."""
        first = vals[0] if vals else None
        if first is not None and first.kind == "obj" and first.obj.fit is not None and len(vals) > 1 and \
                vals[1] is not None and vals[1].is_data:
            vals = [self.prediction(first.obj, vals[1], "predict", e), *vals[2:]]
        self.forecast_scored(vals)
        self.mark_scored(_without_pseudo_labels(q, e, vals), e, loss=q.startswith("torch"))
        out = self.derive(e, vals, kind="score") or self.derive(  # lists of predictions gathered batch by batch
            e, [x for v in vals for x in flat_values(v)], kind="score")
        if out is not None and q.endswith(THRESHOLD_CURVES):
            out.hyper = True
        return out

    def against_labels(self, out: Val | None, data: list[Val], node: ast.AST) -> Val | None:
        """Predictions set against rows of labels (compared, subtracted, tabulated): `out` is their score. A
        difference may be a hand-written loss: it scores no training batch's own forward pass."""
        preds = [v for v in data if v.kind == "pred" or isinstance(node, ast.Compare) and _answers(v)]
        if out is not None and preds and any(v.kind == "data" and v.rows and v not in preds for v in data):
            self.forecast_scored(data)
            loss = isinstance(node, ast.BinOp) or call_leaf(node) in ("sub", "subtract")
            self.mark_scored(preds, node, loss=loss)
            out.kind = "score"
        return out

    def mark_scored(self, vals: list[Val | None], node: ast.AST, loss: bool = False) -> None:
        """A metric (or a comparison with the labels) read these predictions: their evaluations are scored. A
        training loss reads a training batch's forward pass without scoring it."""
        s = None
        if loss and any(kind == "train" for _, kind, _ in self.loops):
            return  # the loss a training loop minimises: another model's outputs in it are targets (a teacher's)
        for v in [x for val in vals for x in flat_values(val)]:  # a list of predictions gathered one by one, too
            if v is None:
                continue
            blend = len({id(ev.obj) for ev in v.evals}) > 1
            # blend weights, or a decision threshold (`proba > t`), varied by a loop over settings: each pass
            # scores another configuration
            tuned = (blend or v.hyper) and any(kind == "settings" for _, kind, _ in self.loops)
            for ev in v.evals:
                if ev.method == TRAIN_FORWARD and (loss or ev.scored):
                    continue
                if ev.method == TRAIN_FORWARD:
                    self.rec.evals.append(ev)
                if tuned:
                    ev.alone, ev.blended_only, ev.tuned = True, False, True
                elif not blend:
                    ev.alone, ev.blended_only = True, False
                elif not ev.alone:
                    ev.blended_only = True
                if not ev.scored:
                    ev.scored = True
                    ev.metric = s = s or self.site(node)


def _without_pseudo_labels(q: str, e: ast.Call, vals: list) -> list:
    """The values a scikit-learn metric scores: when its `y_true` holds another model's predictions (labels made by
    an anomaly detector or a clustering, `y_pseudo = iso.predict(X)`), that model serves as the truth the
    predictions are scored against; it is not scored itself."""
    if not q.startswith("sklearn") or len(e.args) < 2 or len(vals) < 2 or vals[0] is None or not vals[0].evals:
        return vals
    truth = {id(ev.obj) for ev in vals[0].evals}
    scored = {id(ev.obj) for v in vals[1:] for x in flat_values(v) for ev in x.evals}
    return vals[1:] if scored and not truth & scored else vals


def flat_values(v: Val | None, depth: int = 0) -> list:
    """The values a list, tuple or dict holds (nested up to three levels), else the value itself."""
    if v is None or depth > 3:
        return []
    if v.kind == "seq":
        vals = list(v.items or ()) + list((v.keys or {}).values())
        return [x for item in vals for x in flat_values(item, depth + 1)]
    return [v]


def _answers(v: Val) -> bool:
    """A clusterer's or outlier detector's answers for its own rows (`km.labels_`, `fit_predict(X)`), kept as data
    (they may become a feature), compared element by element with the labels: a hand-written accuracy."""
    return v.kind == "data" and bool(v.evals) and all(ev.method in ("labels_", "fit_predict") for ev in v.evals)
