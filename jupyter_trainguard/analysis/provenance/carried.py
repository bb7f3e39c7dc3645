"""Networks that keep their weights from one pass of a fold loop to the next.

scikit-learn's `fit` starts again from nothing. A Keras network's `fit` (and any `partial_fit`, a `warm_start`
estimator, a torch network's training loop) goes on from the weights it has. A network built once, before
`for tr, va in kfold.split(X)`, and fitted in the loop has trained on every earlier fold's training rows by the
time a later fold is scored, and those rows hold that fold's held-out rows. The interpreter takes one pass for all
the folds, so such a fit is given both parts of the folds it runs over: a score on the held-out fold is then a
score on rows the network already trained on (LEAK003, with its own message).
"""

from __future__ import annotations

import ast

from .values import Obj

KEEPS_WEIGHTS_ROOTS = frozenset({"keras", "tensorflow", "tf_keras"})
RESETS = frozenset({"set_weights", "load_weights", "load_state_dict", "reset_parameters", "clear_session",
                    "clone_model", "reset_states"})  # a loop body that calls one of these starts each fold afresh


class CarriedWeights:
    """Mixin: fits of a network that the enclosing fold loops do not rebuild."""

    def carried_rows(self, obj: Obj, rows: frozenset, node: ast.AST, attr: str = "fit") -> tuple | None:
        """(the rows this fit has learned from over every pass, the fold keys carried over) for a learner that
        keeps its weights, fitted inside fold loops it was built before; None otherwise."""
        if not self.fold_loops or not self.keeps_weights(obj, attr):
            return None
        keys = set()
        for loop in self.fold_loops:
            inside = _node_ids(loop)
            if _made_in(obj, inside) or _resets(loop):
                continue
            keys |= {key for key, sel in self.rec.selections.items() if sel.kind == "folds" and
                     sel.site is not None and id(sel.site.node) in inside}
        if not keys:
            return None
        more = set()
        for tok in rows:
            for i, (key, part) in enumerate(tok[1:], start=1):
                if key in keys and part == "train":
                    more.add(tok[:i] + ((key, "test"),) + tok[i + 1:])
        return (frozenset(rows) | more, frozenset(keys)) if more else None

    def keeps_weights(self, obj: Obj, attr: str) -> bool:
        """A learner whose `fit` goes on from what it learned: a Keras network, `partial_fit`, `warm_start=True`,
        a torch network."""
        if attr == "partial_fit" or obj.role == "torch":
            return True
        if obj.role != "model":
            return False
        ctor = obj.site.node if obj.site is not None else None
        if isinstance(ctor, ast.Call) and any(k.arg == "warm_start" and isinstance(k.value, ast.Constant) and
                                              k.value.value is True for k in ctor.keywords):
            return True
        return obj.cls.split(".", 1)[0] in KEEPS_WEIGHTS_ROOTS and obj.cls.rsplit(".", 1)[-1][:1].isupper()


def _node_ids(loop: ast.AST) -> set[int]:
    ids = getattr(loop, "_tg_ids", None)
    if ids is None:
        ids = {id(n) for n in ast.walk(loop)}
        loop._tg_ids = ids  # type: ignore[attr-defined]
    return ids


def _resets(loop: ast.AST) -> bool:
    """The loop calls something that puts weights back (`model.set_weights(start)`, `clear_session()`)."""
    return any(isinstance(n, ast.Call) and (n.func.attr if isinstance(n.func, ast.Attribute) else
                                            getattr(n.func, "id", None)) in RESETS for n in ast.walk(loop))


def _made_in(obj: Obj, inside: set[int]) -> bool:
    """The object was built in the loop: where it was made, or a call that made it there (a builder function
    called in the loop body, itself perhaps inside a function the cells call)."""
    site = obj.site
    while site is not None:
        if id(site.node) in inside or any(id(call.node) in inside for call in site.inner):
            return True
        site = site.via
    return False
