"""Test-set selection: the final held-out rows drive a choice — early stopping or best-checkpoint on them (a fit's
`eval_set`/`validation_data`, a Hugging Face or Lightning trainer), a search fitted on them, their scores compared,
maxed, sorted or fed to a plateau scheduler to pick a model, setting or epoch, or a model rebuilt per setting of a
loop scored on them. Validation data without a callback that selects is not a choice."""

from __future__ import annotations

from ..rows import overlap
from ..state import Record
from .common import Leak, chosen_by_loops, code, final_test, first_data, sliced_bounds_count, step_text


def selection_leaks(rec: Record) -> list[Leak]:
    out: list[Leak] = []
    for _obj, v, site, kwarg, early in rec.eval_sets:
        data = first_data(v)
        if data is None or not early or not final_test(rec, data.rows):
            continue
        name = f"`{data.name}`" if data.name else "the held-out rows"
        out.append(Leak("selection", site,
                        f"The held-out rows {name} are passed as `{kwarg}` with early stopping in {site.where()}: "
                        f"they decide when training stops, so they can no longer give an unbiased score.",
                        evidence={"kwarg": kwarg, "variable": data.name, "fit": step_text(site)}))
    for ev in rec.evals:
        if ev.fit is None or not ev.scored or ev.cv or not ev.data.rows:
            continue
        if overlap(ev.fit.rows, ev.data.rows, sliced_bounds_count(ev.data)) is not None or \
                not final_test(rec, ev.data.rows):
            continue
        if ev.obj is not None and ev.obj.multi > 1 and chosen_by_loops(rec, ev):
            out.append(Leak("selection", ev.site,
                            f"{code(ev.site)} in {ev.site.where()} scores a model rebuilt for each setting of a loop "
                            f"on the held-out rows `{ev.data.text()}`: the test set is choosing the setting.",
                            evidence={"evaluation": step_text(ev.site), "test": ev.data.name}))
    for fit in rec.fits:
        if fit.obj is not None and fit.obj.role == "search" and fit.rows and final_test(rec, fit.rows):
            out.append(Leak("selection", fit.site,
                            f"{code(fit.site)} in {fit.site.where()} searches hyperparameters on the held-out rows.",
                            evidence={"search": fit.cls.rsplit(".", 1)[-1], "fit": step_text(fit.site)}))
    for score, site in rec.choices:
        evs = [ev for ev in score.evals if ev.fit is not None and ev.data.rows and
               overlap(ev.fit.rows, ev.data.rows, sliced_bounds_count(ev.data)) is None and
               final_test(rec, ev.data.rows)]
        if evs:
            out.append(Leak("selection", site,
                            f"Scores on the held-out rows `{evs[0].data.text()}` are used to pick a model or setting "
                            f"in {site.where()} ({code(site)}).",
                            evidence={"choice": step_text(site), "evaluation": step_text(evs[0].site)}))
    return out
