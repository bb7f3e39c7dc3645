"""statsmodels: models that take their data at construction (`sm.OLS(y, X).fit()`), formula models."""

from __future__ import annotations

from .table import ClassRow

SM = ("statsmodels",)
CLASSES: dict[str, ClassRow] = {
    **{n: ClassRow("model", SM, bound=(1, 0)) for n in ("OLS", "WLS", "GLS", "GLM", "Logit", "Probit", "MNLogit",
                                                        "Poisson", "NegativeBinomial", "QuantReg", "RLM")},
    **{n: ClassRow("model", SM, bound=(-1, -1)) for n in ("ols", "wls", "gls", "glm", "logit", "probit", "mnlogit",
                                                          "poisson", "quantreg", "rlm")},
    **{n: ClassRow("model", SM, bound=(0, -2)) for n in ("ARIMA", "SARIMAX", "ExponentialSmoothing",
                                                         "SimpleExpSmoothing", "Holt", "AutoReg", "VAR")},
}
FUNCS: dict = {}
