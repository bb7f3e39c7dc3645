"""Curves fitted to rows: scipy's `curve_fit` and numpy's `polyfit` learn a function's parameters from (x, y), so
those parameters are a model; the function evaluated with them (`f(x_test, *popt)`, `np.polyval(p, x)`,
`np.poly1d(p)(x)`) predicts, and a metric on that output scores the fit."""

from __future__ import annotations

import ast

from .api.numpy_api import CURVE_FITTERS
from .values import Obj, Val


class Curves:
    """Mixin: curve fits as models, and the fitted function applied to rows as their predictions."""

    def curve(self, q: str, effect: str, e: ast.Call, args: list, kws: dict) -> Val | None:
        leaf = q.rsplit(".", 1)[-1]
        if effect == "curve_apply":
            params = fitted_curve(args[:1])
            if params is None:
                return self.derive(e, args + list(kws.values()))
            x = args[1] if len(args) > 1 else kws.get("x")
            if x is None or not x.is_data:
                return params  # np.poly1d(p): the fitted polynomial itself
            return self.prediction(params.obj, x, "predict", e)
        if leaf == "curve_fit":
            x, y = (args[1] if len(args) > 1 else kws.get("xdata")), (args[2] if len(args) > 2 else kws.get("ydata"))
        else:
            x, y = (args[0] if args else kws.get("x")), (args[1] if len(args) > 1 else kws.get("y"))
        if x is None or not x.is_data:
            return None
        obj = Obj(q, "model", self.site(e))
        self.supervised(e, q, x, y)
        obj.fit = self.add_fit("model", q, x, e, obj=obj, y=y)
        obj.fit.config = (obj.version, self.pass_stamp, obj.fit.data_name, None)
        params = Val("obj", obj=obj, site=self.site(e))
        return Val("seq", items=(params, params), site=self.site(e)) if leaf == "curve_fit" else params

    def curve_prediction(self, e: ast.Call, args: list, kws: dict) -> Val | None:
        """A notebook function called with fitted curve parameters (`logistic(x_test, *popt)`): the fitted curve
        evaluated at those rows."""
        params = fitted_curve(args + list(kws.values()))
        if params is None:
            return None
        x = next((a for a in args + list(kws.values()) if a is not None and a.is_data), None)
        return self.prediction(params.obj, x, "predict", e) if x is not None else None


def fitted_curve(vals: list) -> Val | None:
    """The fitted curve parameters among these values, if any."""
    for v in vals:
        if v is not None and v.kind == "obj" and v.obj.fit is not None and \
                v.obj.cls.rsplit(".", 1)[-1] in CURVE_FITTERS:
            return v
    return None
