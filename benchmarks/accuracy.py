"""Precision/recall of the static ML rules on the labelled fixture notebooks, and scan time per notebook.

Usage: python benchmarks/accuracy.py [--set accuracy|heldout|all] [--subset dev|heldout|all] [--json] [--verbose]
Labels: tests/fixtures/accuracy/labels.json (regenerate notebooks with tests/fixtures/accuracy/generate.py).
--set heldout scans the independent held-out set tests/fixtures/heldout/ (written by a second engineer, same
label schema); --set all scans both sets together. The default (--set accuracy) is the original fixture set.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "accuracy"
SETS = {"accuracy": FIXTURES, "heldout": ROOT / "tests" / "fixtures" / "heldout"}
LEAK_CATEGORIES = ("leakage.preprocessing", "leakage.overlap", "leakage.multi-test", "leakage.target",
                   "leakage.temporal")
MEASURED_PREFIXES = ("LEAK", "EVAL", "TIME", "SEED", "DET", "CKPT", "TRACK", "TRAIN")


def ensure_notebooks(folder: Path = FIXTURES) -> None:
    if not (folder / "notebooks").is_dir() or not any((folder / "notebooks").glob("*.ipynb")):
        import runpy

        runpy.run_path(str(folder / "generate.py"), run_name="__main__")


def fixture_items(fixture_set: str = "accuracy") -> list[tuple[str, dict, Path]]:
    """(name, label, notebook path) for one fixture set ("accuracy", "heldout") or both ("all")."""
    items: list[tuple[str, dict, Path]] = []
    for key in (("accuracy", "heldout") if fixture_set == "all" else (fixture_set,)):
        folder = SETS[key]
        ensure_notebooks(folder)
        labels = json.loads((folder / "labels.json").read_text())
        prefix = f"{key}/" if fixture_set == "all" else ""
        items += [(prefix + name, lab, folder / "notebooks" / name) for name, lab in sorted(labels.items())]
    return items


def evaluate(subset: str = "all", repeat: int = 3, fixture_set: str = "accuracy") -> dict:
    """Scan the fixtures; returns per-rule and per-category counts, precision/recall and timing.

    `subset` filters the accuracy set by its own `heldout` flag; `fixture_set` picks the folder(s) to scan.
    """
    sys.path.insert(0, str(ROOT))
    from jupyter_trainguard.config import Config
    from jupyter_trainguard.engine import analyze_notebook
    from jupyter_trainguard.notebook.load import load_notebook
    from jupyter_trainguard.rules.registry import all_rules

    rules = {r.id: r for r in all_rules() if r.id.startswith(MEASURED_PREFIXES) and r.scope == "notebook"}
    config = Config(root=FIXTURES)
    counts: dict[str, dict[str, int]] = {}
    cat_counts: dict[str, dict[str, int]] = {c: {"tp": 0, "fp": 0, "fn": 0, "tn": 0} for c in LEAK_CATEGORIES}
    times: list[float] = []
    cpu: list[float] = []
    mistakes: list[str] = []
    n = 0
    for name, lab, path in fixture_items(fixture_set):
        if subset == "dev" and lab["heldout"] or subset == "heldout" and not lab["heldout"]:
            continue
        n += 1
        nb = load_notebook(path)
        best = cpu_best = None
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            report, _, _ = analyze_notebook(nb, config, rules=list(rules.values()))
            dt, ct = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
            best = dt if best is None else min(best, dt)
            cpu_best = ct if cpu_best is None else min(cpu_best, ct)
        times.append(best)
        cpu.append(cpu_best)
        got = {f.rule_id for f in report.findings if f.rule_id in rules}
        want = set(lab["expect"])
        checked = tuple(lab["checked"])
        for rid in rules:
            if not rid.startswith(checked):
                continue
            c = counts.setdefault(rid, {"tp": 0, "fp": 0, "fn": 0, "tn": 0})
            key = ("tp" if rid in want else "fp") if rid in got else ("fn" if rid in want else "tn")
            c[key] += 1
            if key in ("fp", "fn"):
                mistakes.append(f"{key.upper()} {rid} {name}")
        for cat in LEAK_CATEGORIES:
            ids = {rid for rid, r in rules.items() if r.category == cat}
            g, w = bool(got & ids), bool(want & ids)
            cat_counts[cat]["tp" if g and w else "fp" if g else "fn" if w else "tn"] += 1
        for rid in report.skipped_rules:
            if "internal error" in report.skipped_rules[rid]:
                mistakes.append(f"ERROR {rid} {name}: {report.skipped_rules[rid]}")
    label = subset if fixture_set == "accuracy" else f"{fixture_set}/{subset}"
    return {"subset": label, "notebooks": n, "rules": counts, "categories": cat_counts,
            "median_ms": statistics.median(times) if times else 0.0,
            "p95_ms": _p95(times), "median_cpu_ms": statistics.median(cpu) if cpu else 0.0, "p95_cpu_ms": _p95(cpu),
            "mistakes": mistakes}


def _p95(xs: list[float]) -> float:
    return sorted(xs)[max(0, int(round(0.95 * len(xs))) - 1)] if xs else 0.0


def fifty_cell_ms(repeat: int = 15) -> tuple[int, float, float]:
    """Median ms of the issue-3 rules on a 50-cell notebook stitched from fixture cells (cells, median, parse)."""
    from jupyter_trainguard.analysis.parsed import ParsedNotebook
    from jupyter_trainguard.config import Config
    from jupyter_trainguard.engine import analyze_notebook
    from jupyter_trainguard.notebook.load import load_notebook, notebook_from_sources
    from jupyter_trainguard.rules.registry import all_rules

    sources: list[str] = []
    for path in sorted((FIXTURES / "notebooks").glob("*.ipynb")):
        sources += [c.source for c in load_notebook(path).code_cells]
        if len(sources) >= 50:
            break
    nb = notebook_from_sources(str(FIXTURES / "fifty.ipynb"), sources[:50], list(range(1, 51)))
    rules = [r for r in all_rules() if r.id.startswith(MEASURED_PREFIXES + ("ENV",)) and r.scope == "notebook"]
    config = Config(root=FIXTURES)
    total, parse = [], []
    for _ in range(repeat):
        t0 = time.process_time()
        analyze_notebook(nb, config, rules=rules)
        total.append((time.process_time() - t0) * 1000)
        t0 = time.process_time()
        ParsedNotebook.from_notebook(nb)
        parse.append((time.process_time() - t0) * 1000)
    return len(nb.cells), statistics.median(total), statistics.median(parse)


def pr(c: dict[str, int]) -> tuple[float, float]:
    p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 1.0
    r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 1.0
    return p, r


def render(res: dict, rules: bool = True) -> str:
    lines = [f"subset={res['subset']}  notebooks={res['notebooks']}",
             f"{'category/rule':<24}{'tp':>4}{'fp':>4}{'fn':>4}{'precision':>11}{'recall':>8}"]
    rows = list(res["categories"].items()) + (sorted(res["rules"].items()) if rules else [])
    for name, c in rows:
        p, r = pr(c)
        lines.append(f"{name:<24}{c['tp']:>4}{c['fp']:>4}{c['fn']:>4}{p:>11.3f}{r:>8.3f}")
    lines.append(f"wall: median {res['median_ms']:.2f} ms/notebook, p95 {res['p95_ms']:.2f} ms/notebook; "
                 f"CPU: median {res['median_cpu_ms']:.2f} ms, p95 {res['p95_cpu_ms']:.2f} ms "
                 f"(best of 3 runs each, parsing included)")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--subset", choices=("dev", "heldout", "all", "report"), default="report",
                    help="report (default): categories on dev and held-out, every rule on all, 50-cell timing")
    ap.add_argument("--set", dest="fixture_set", choices=("accuracy", "heldout", "all"), default="accuracy",
                    help="fixture set: accuracy (default, tests/fixtures/accuracy), heldout (tests/fixtures/heldout)"
                         " or all (both)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args()
    if args.fixture_set != "accuracy":
        res = evaluate("all", fixture_set=args.fixture_set)
        print(json.dumps(res, indent=1) if args.json else render(res))
        if args.verbose and not args.json:
            print("\n".join(res["mistakes"]) or "no mistakes")
        return 0
    if args.subset == "report" and not args.json:
        for sub in ("dev", "heldout"):
            print(render(evaluate(sub), rules=False) + "\n")
        res = evaluate("all")
        print(render(res))
        cells, med, parse = fifty_cell_ms()
        print(f"{cells}-cell notebook: median {med:.2f} ms CPU for the issue-3 rules including "
              f"{parse:.2f} ms engine parsing")
        if args.verbose:
            print("\n".join(res["mistakes"]) or "no mistakes")
        return 0
    res = evaluate("all" if args.subset == "report" else args.subset)
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    print(render(res))
    if args.verbose:
        print("\n".join(res["mistakes"]) or "no mistakes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
