"""Abstract values of the provenance interpreter: data with row origins and learned statistics, fitted objects,
and the fit / evaluation events the detectors read."""

from __future__ import annotations

import ast

from ...findings import Record
from ..fields import DataclassFields
from .rows import NO_ROWS

TRAIN_FORWARD = "training forward"  # the method of an evaluation of a training batch's own forward pass

class Site:
    """A place in the notebook: cell, line (1-based in the cell's analysed code) and the code there (rendered
    only when a message needs it)."""

    __slots__ = ("cell", "line", "_node", "_text", "via", "inner")

    def __init__(self, cell: object, line: int | None, text: str | None = None, node: ast.AST | None = None,
                 via: Site | None = None):
        self.cell, self.line, self._node, self._text = cell, line, node, text
        self.via = via  # inside a notebook function: the call (in the cells' own code) that ran it
        self.inner: tuple = ()  # inside nested notebook functions: the calls below `via`, outermost first

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = short_code(self._node)
        return self._text

    @property
    def node(self) -> ast.AST | None:
        return self._node

    def where(self) -> str:
        from ...findings import cell_ref

        here = cell_ref(self.cell) if getattr(self.cell, "index", None) is not None else "an earlier cell"
        if self.via is None or self.via.cell is self.cell and self.via.via is None:
            return here  # a function called in the cell that defines it: the cell says it all
        return f"{here} (called from {self.via.where()})"

    def ran_at(self) -> tuple[int, int]:
        """Where this ran in the cells' order: a function body runs where it is called."""
        at = self.via if self.via is not None else self
        return getattr(at.cell, "index", 0) or 0, at.line or 0


def short_code(node: ast.AST | None, limit: int = 60) -> str:
    if node is None:
        return ""
    try:
        text = " ".join(ast.unparse(node).split())
    except Exception:  # pragma: no cover - unparse of odd nodes
        return ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def site_of(cell: object, node: ast.AST | None) -> Site:
    return Site(cell, getattr(node, "lineno", None), node=node)


class Fit(Record, eq=False):
    """An object (or a statistic) learning from rows: what it saw, and what the data it saw carried."""

    kind: str  # transformer | statistic | model | resampler
    cls: str
    rows: frozenset
    stats: frozenset
    site: Site
    obj: Obj | None = None
    ylabel_only: bool = False  # fitted on the label only (LabelEncoder on y)
    data_name: str = ""
    config: tuple = ()  # what made this fit of a model (its settings' version, loop pass, data): fits alike share it
    data_site: Site | None = None  # where the data fitted on was made (the same variable rebound is other data)
    carried: frozenset = frozenset()  # fold loops whose earlier passes this network kept learning from (carried.py)
    via: Site | None = None  # the read that brought back one of the models a fold loop saved pass by pass (files.py)

    def __init__(self, kind: str, cls: str, rows: frozenset, stats: frozenset, site: Site, obj: Obj | None = None,
                 ylabel_only: bool = False, data_name: str = "", config: tuple = (),
                 data_site: Site | None = None, carried: frozenset = frozenset(), via: Site | None = None) -> None:
        self.kind = kind
        self.cls = cls
        self.rows = rows
        self.stats = stats
        self.site = site
        self.obj = obj
        self.ylabel_only = ylabel_only
        self.data_name = data_name
        self.config = config
        self.data_site = data_site
        self.carried = carried
        self.via = via


class Obj(Record, eq=False):
    """A library object (estimator, transformer, splitter...), shared by every name bound to it."""

    cls: str
    role: str  # transformer | model | pipeline | search | resampler | undersampler | splitter | unknown
    site: Site
    fit: Fit | None = None
    bound: tuple | None = None  # (X, y) given at construction (statsmodels)
    inner: Obj | None = None  # the estimator a search or a pipeline wraps
    multi: int = 1  # how many objects this stands for (a literal list of models, a loop over settings)
    early: bool = False  # built with early stopping (`XGBClassifier(early_stopping_rounds=10)`)
    attrs: dict | None = None  # an instance of a notebook class: its attributes (`self.data = ...`)
    cls_node: object = None  # the notebook class's ast.ClassDef
    mode: str = "train"  # a network after `.eval()` predicts even inside a training loop
    shuffle: bool = False  # a splitter that shuffles (KFold(shuffle=True), ShuffleSplit)
    learned: Fit | None = None  # an estimator fitted without labels: the statistics its outputs carry
    layers: tuple = ()  # preprocessing layers inside a network (`Sequential([norm, ...])`), adapted on their own
    version: int = 0  # bumped by `set_params`: fits after it train another configuration
    tunes: frozenset = frozenset()  # a search: the settings its grid varies (`max_depth`, `model__C` as `C`)

    def __init__(self, cls: str, role: str, site: Site, fit: Fit | None = None, bound: tuple | None = None,
                 inner: Obj | None = None, multi: int = 1, early: bool = False, attrs: dict | None = None,
                 cls_node: object = None, mode: str = "train", shuffle: bool = False,
                 learned: Fit | None = None, layers: tuple = (), version: int = 0,
                 tunes: frozenset = frozenset()) -> None:
        self.cls = cls
        self.role = role
        self.site = site
        self.fit = fit
        self.bound = bound
        self.inner = inner
        self.multi = multi
        self.early = early
        self.attrs = attrs
        self.cls_node = cls_node
        self.mode = mode
        self.shuffle = shuffle
        self.learned = learned
        self.layers = layers
        self.version = version
        self.tunes = tunes


class Eval(Record, eq=False):
    """A fitted model applied to data: predict/score/evaluate, a metric on its predictions, or cross-validation."""

    obj: Obj | None
    fit: Fit | None
    data: Val
    method: str
    site: Site
    scored: bool = False
    metric: Site | None = None
    cv: bool = False
    loops: tuple = ()
    alone: bool = False  # a metric read this evaluation's predictions on their own
    blended_only: bool = False  # its predictions were only scored mixed with other models' (an ensemble)
    tuned: bool = False  # scored as part of a blend whose weights a loop over settings varies

    def __init__(self, obj: Obj | None, fit: Fit | None, data: Val, method: str, site: Site, scored: bool = False,
                 metric: Site | None = None, cv: bool = False, loops: tuple = (), alone: bool = False,
                 blended_only: bool = False, tuned: bool = False) -> None:
        self.obj = obj
        self.fit = fit
        self.data = data
        self.method = method
        self.site = site
        self.scored = scored
        self.metric = metric
        self.cv = cv
        self.loops = loops
        self.alone = alone
        self.blended_only = blended_only
        self.tuned = tuned


class Val(Record, eq=False):
    """An abstract value. `rows`/`stats` matter for data; `obj`, `items`, `keys`, `func`, `step` for the rest.

    Slotted (built in bulk): the fields' defaults are those of `__init__`."""

    __slots__ = ("kind", "rows", "stats", "site", "name", "obj", "items", "keys", "func", "func_cell", "step",
                 "evals", "label", "hyper", "cols", "time", "fcols", "flabel", "oid")
    __dataclass_fields__ = DataclassFields()  # type: ignore[assignment]

    kind: str  # data | pred | score | obj | func | seq | index | module | graph (a symbolic Keras tensor) | class
    # (an estimator class named, not called)
    rows: frozenset
    stats: frozenset  # Fit events whose statistics are in these values
    site: Site | None
    name: str | None
    obj: Obj | None
    items: tuple | None
    keys: dict | None
    func: ast.FunctionDef | None  # a notebook function; on a list, the generator function that yields its items
    func_cell: object
    step: tuple | None  # for an index (fold indices): the selection step it applies
    evals: tuple  # for predictions and scores: the evaluations they come from
    label: bool  # the label column (y)
    hyper: bool  # a hyperparameter value from a loop over settings
    cols: dict | None  # statistics that reached single named columns (`df['c'] = ...`)
    time: frozenset  # evidence that the rows are time-ordered: (what, cell index, line)
    fcols: dict | None  # frame column facts (columns.py)
    flabel: tuple | None  # (frame, column) when this is a single column of a frame
    oid: int | None  # the runtime object: names bound to one object share it (set when a name aliases it)

    def __init__(self, kind: str, rows: frozenset = NO_ROWS, stats: frozenset = frozenset(), site: Site | None = None,
                 name: str | None = None, obj: Obj | None = None, items: tuple | None = None,
                 keys: dict | None = None, func: ast.FunctionDef | None = None, func_cell: object = None,
                 step: tuple | None = None, evals: tuple = (), label: bool = False, hyper: bool = False,
                 cols: dict | None = None, time: frozenset = frozenset(), fcols: dict | None = None,
                 flabel: tuple | None = None, oid: int | None = None) -> None:
        self.kind = kind
        self.rows = rows
        self.stats = stats
        self.site = site
        self.name = name
        self.obj = obj
        self.items = items
        self.keys = keys
        self.func = func
        self.func_cell = func_cell
        self.step = step
        self.evals = evals
        self.label = label
        self.hyper = hyper
        self.cols = cols
        self.time = time
        self.fcols = fcols
        self.flabel = flabel
        self.oid = oid

    @property
    def all_stats(self) -> frozenset:
        """The statistics in every column of this value."""
        if not self.cols:
            return self.stats
        return self.stats.union(*self.cols.values())

    @property
    def is_data(self) -> bool:
        return self.kind in ("data", "pred", "score", "index")

    def text(self) -> str:
        if self.name:
            return self.name
        return self.site.text if self.site is not None and self.site.text else "the data"


def joined(evals: tuple, more: tuple) -> tuple:
    """A frame's evaluations after a column of predictions is written into it (`df['pred'] = m.predict(X)`): a
    metric on its columns scores them."""
    return evals + tuple(ev for ev in more if ev not in evals)



def graph_layers(parts: list) -> tuple:
    """The preprocessing layers that the symbolic tensors (Keras functional API) among `parts` passed through."""
    found: list = []
    for p in parts:
        if p is not None and p.kind == "seq" and p.items:
            found += [i for it in p.items if it is not None and it.kind == "graph" for i in it.items or ()]
        elif p is not None and p.kind == "graph":
            found += list(p.items or ())
    return tuple(dict.fromkeys(found))
