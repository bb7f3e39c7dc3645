"""The data a fit watches while it trains (`eval_set`, `validation_data`, Keras's `validation_split`, a trainer's
`eval_dataset`): each watched set is an evaluation of the model on those rows, read by early stopping, a
best-checkpoint callback and the validation score the fit reports."""

from __future__ import annotations

from ..state import Record as Recorded
from ..values import Eval, Val
from .wording import first_data

MONITORED = frozenset({"eval_set", "validation_data", "eval_X", "valid_sets", "evals", "X_val", "eval_dataset",
                       "val_dataloaders", "validation_split"})


def _inputs(v: Val | None, kwarg: str = "") -> list[Val]:
    """The feature data of each evaluation pair: `[(X_tr, y_tr), (X_va, y_va)]`, `(X_va, y_va)` or a frame;
    LightGBM's `valid_sets=[dtrain, dvalid]` lists datasets that each hold their labels."""
    listed = v is not None and v.kind == "seq" and bool(v.items) and (kwarg == "valid_sets" or all(
        i is not None and i.kind == "seq" for i in v.items))
    return [d for d in map(first_data, v.items if listed else (v,)) if d is not None]


def eval_set_evals(rec: Recorded, exact: bool = False) -> list[Eval]:
    """Data a fit call monitors (`eval_set`, `validation_data`): the model is scored on it while it trains, and
    that score is what early stopping and the reported best score read. `exact`: only data whose own fit is
    known (not a fit of the same code run by another call of a notebook function)."""
    models = [f for f in rec.fits if f.kind == "model" and f.site.node is not None]
    own = {id(f.site): f for f in models}
    fits = {} if exact else {id(f.site.node): f for f in models}
    out = []
    for obj, v, site, kwarg, _early in rec.eval_sets:
        fit = own.get(id(site)) or fits.get(id(site.node))
        if fit is not None or not exact:
            out += [Eval(obj, fit, data, kwarg, site, scored=True) for data in _inputs(v, kwarg)]
    return out
