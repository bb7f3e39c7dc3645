"""Names the analysis cannot follow (a project's helper module, a library it does not know, a cell it could not
read), known by how the notebook uses them: fitted on features and labels, a model; fitted on by a transformer,
indexed like a table (`df[['a', 'b']]`, `df.loc[...]`) or sent through a table's methods (`df.dropna()`), rows;
a helper whose name says it scores, given a fitted model and data (`print_metrics(model, X, y)`), an evaluation;
an imported function given the labels of some rows and a model's predictions for them (`wmae(y_val, pred)`), a
metric."""

from __future__ import annotations

import ast

from .rows import covered
from .values import Obj, Val

FRAME_METHODS = frozenset({"drop", "dropna", "fillna", "groupby", "head", "merge", "sort_values", "reset_index",
                           "describe", "isnull", "isna", "astype", "to_numpy", "value_counts", "select_dtypes",
                           "set_index", "query", "iterrows", "tail", "info", "nunique", "pct_change", "rolling",
                           "resample"})

LIBRARY_ROOTS = frozenset({"matplotlib", "seaborn", "plotly", "bokeh", "altair", "yellowbrick", "scikitplot",
                           "IPython", "pandas", "numpy", "scipy", "statsmodels", "sklearn", "tensorflow", "keras",
                           "torch", "xgboost", "lightgbm", "catboost", "builtins", "print"})  # plots, tests, APIs

DRAWS = ("plot", "show", "display", "draw", "visual", "chart", "graph")  # `plotPredictions(y, p)` draws


class ByUse:
    """Mixin: values of names the analysis cannot follow, from their use."""

    def by_use(self, node: ast.expr, attr: str, e: ast.Call) -> Val | None:
        """The receiver of a method call, known by the call: a model's `fit(X, y)` or a table's method."""
        return self.model_from_elsewhere(node, attr, e) or (self.data_by_use(node) if attr in FRAME_METHODS
                                                            else None)

    def frame_by_use(self, node: ast.expr, sl: ast.expr, accessor: str | None) -> Val | None:
        """A name indexed like a table: through `.loc`/`.iloc`, or by a list of column names (one name in brackets
        may be a dict's key: `hist['val_loss']`), given in the brackets or bound to a name (`df[columns]`)."""
        if isinstance(sl, ast.Name) and isinstance(self.bound_nodes.get(sl.id), ast.List):
            sl = self.bound_nodes[sl.id]
        columns = isinstance(sl, ast.List) and sl.elts and all(isinstance(n, ast.Constant) and
                                                               isinstance(n.value, str) for n in sl.elts)
        return self.data_by_use(node) if accessor in ("loc", "iloc") or columns else None

    def model_from_elsewhere(self, node: ast.expr, attr: str, e: ast.Call) -> Val | None:
        """`model = helpers.build_model(); model.fit(X, y)`: a name the analysis cannot follow, fitted on features
        and labels (or on batches of both, with `validation_data`), is a model of unknown kind from here on (a
        transformer's `fit` takes no labels). So is a name an unknown call made from data (`clf =
        make_clf(preprocessor)`): tables and arrays have no `fit`."""
        cur = self.env.get(node.id) if isinstance(node, ast.Name) else None
        if attr not in ("fit", "fit_generator") or not isinstance(node, ast.Name) or \
                cur is not None and cur.kind != "data":
            return None
        args = [a.args[0] if isinstance(a, ast.Call) and a.args and  # `np.ascontiguousarray(X_train)`: X_train
                self.parsed.qualname(a.func).split(".", 1)[0] == "numpy" else a for a in e.args[:2]]
        given = sum(1 for a in args if isinstance(a, (ast.Name, ast.Attribute, ast.Subscript)) and
                    (v := self.expr(a)) is not None and v.is_data)
        if given < 2 and not (given == 1 and any(k.arg == "validation_data" for k in e.keywords)):
            return None  # (batches of features and labels, watched on validation data: a network)
        self.env[node.id] = Val("obj", obj=Obj(node.id, "unknown", self.site(e)), site=self.site(e))
        return self.env[node.id]

    def data_by_use(self, node: ast.expr) -> Val | None:
        """A name the interpreter could not follow (a reader it does not know, or a list filled from one row by
        row: `for row in cursor: x.append(row[1:])`) fitted on by a transformer: the transformer's API says it
        holds rows, so from here on the name stands for rows from outside."""
        cur = self.env.get(node.id) if isinstance(node, ast.Name) else None
        if not isinstance(node, ast.Name) or cur is not None and not (cur.kind == "seq" and cur.items == () and
                                                                      not cur.keys):
            return None
        v = self.env[node.id] = self.new_frame(self.source(node, "used"))  # a table: its columns are followed
        v.name = node.id
        return v

    def scored_by_helper(self, args: list, e: ast.Call) -> bool:
        """`print_metrics(model, X_test, y_test)`, `evaluate_model(clf, X_val, y_val)`: a helper from another
        module whose name says it scores, given a fitted model and then data, scores the model on that data (the
        argument order of scikit-learn's scorers); given the training rows and the test rows, on each."""
        at = next((i for i, a in enumerate(args) if a is not None and a.kind == "obj" and a.obj.fit is not None and
                   a.obj.fit.kind == "model"), None)
        data = [a for a in args[at + 1:] if a is not None and a.kind in ("data", "index") and a.rows] \
            if at is not None else []
        xs = data[:1]
        if len(data) >= 4:  # `(model, X_tr, y_tr, X_te, y_te)` or `(model, X_tr, X_te, y_tr, y_te)`: both sets
            other = data[2] if data[2].rows != data[0].rows else data[1]
            xs += [other] if other.rows != data[0].rows else []
        for x in xs:
            self.add_eval(args[at].obj, x, "scored by a helper", e, scored=True)
        return bool(xs)

    def compares_predictions(self, q: str, args: list) -> bool:
        """An imported function the analysis does not know, given first the labels of some rows and a model's
        predictions for those very rows (or the other way round): it sets predictions against the truth, as a
        metric does (`wmae(y_val, model.predict(X_val))`, `smape(y, p)`); plots, statistical tests and the libraries
        the API table knows excepted, and helpers whose names say they draw."""
        if not q or q.split(".", 1)[0] in LIBRARY_ROOTS or any(w in q.rsplit(".", 1)[-1].lower() for w in DRAWS):
            return False
        first = [a for a in args[:2] if a is not None]
        preds = [a for a in first if a.kind == "pred" and a.rows]
        truth = [a for a in first if a.kind == "data" and a.rows]
        return len(preds) == 1 and len(truth) == 1 and covered(preds[0].rows, truth[0].rows) and \
            covered(truth[0].rows, preds[0].rows) and not any(ev.data is truth[0] for ev in preds[0].evals)
