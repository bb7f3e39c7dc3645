"""Cross-validation calls (`cross_val_score`, `cross_validate`, `cross_val_predict`, curves, the boosting libraries'
`cv`): the estimator is scored on folds of the rows it is given, and the splitter's shuffling is the split's."""

from __future__ import annotations

import ast

from .astutil import const, kw
from .values import Obj, Val


class CrossValidation:
    """Mixin: scikit-learn's cross-validation functions."""

    def cv_call(self, q: str, e: ast.Call, args: list, kws: dict) -> Val | None:
        est = args[0] if args else kws.get("estimator")
        x = args[1] if len(args) > 1 else kws.get("X")
        if q.split(".", 1)[0] in ("xgboost", "lightgbm", "catboost"):  # `xgb.cv(params, dtrain, nfold=5)`: folds of
            x = next((a for a in args[:2] + [kws.get(k) for k in ("dtrain", "train_set", "pool")]  # its data set
                      if a is not None and a.is_data), None)
            est = Val("obj", obj=Obj(q, "model", self.site(e)), site=self.site(e))
        cv = kws.get("cv")
        self.note_split(e, [x], cv is not None and cv.kind == "obj" and cv.obj.shuffle, q.rsplit(".", 1)[-1])
        if est is not None and est.kind == "obj" and x is not None and x.is_data:
            self.add_eval(est.obj, x, q.rsplit(".", 1)[-1], e, scored=True, cv=True)
            self.supervised(e, est.obj.cls, x, args[2] if len(args) > 2 else kws.get("y"))
            if const(kw(e, "return_train_score")) is True:  # each fold's copy also scored on the rows it learned
                copies = Obj(est.obj.cls, "model", self.site(e))
                copies.fit = self.add_fit("model", est.obj.cls, x, e, obj=copies)
                self.add_eval(copies, x, "return_train_score", e, scored=True)
        return self.derive(e, [x], kind="score") if x is not None else None
