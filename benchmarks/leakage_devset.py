"""Static leakage rules on the labelled dev set: precision, recall, speed and memory, measured in process.

    python benchmarks/leakage_devset.py [DEVSET_DIR] [--list] [--json-out FILE]

DEVSET_DIR (default: ../shared/devset next to the project root) holds labels.csv (columns
notebook,preprocessing,overlap,sha256; values Y/N) and notebooks/*.ipynb. Each notebook is scanned
cold (caches cleared first), one at a time, with `jupyter_trainguard.engine.analyze_path`, and the
whole call is timed. A finding counts as a leak type by its category, as in the dev set's score.py:
leakage.preprocessing -> preprocessing, leakage.overlap -> overlap.

Printed: per-type precision/recall with tp/fp/fn/tn and miss/false-alarm counts (names with --list),
median and p95 ms per notebook, the five slowest notebooks, peak and final RSS, and one ok/MISS line
per target. Exits 0 with a one-line message when the dev set is absent.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT_DEVSET = Path(__file__).resolve().parents[1].parent / "shared" / "devset"
TYPES: dict[str, str] = {"preprocessing": "leakage.preprocessing", "overlap": "leakage.overlap"}
RECALL_TARGETS: dict[str, float] = {"preprocessing": 0.90, "overlap": 0.85}
PRECISION_TARGET = 0.85
MEDIAN_MS_TARGET = 20.0
P95_MS_TARGET = 100.0
PEAK_RSS_MB_TARGET = 400.0


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MB (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float | None:
    """Current resident set size in MB from /proc/self/status, or None where that is unavailable."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def ratio(num: int, den: int) -> float:
    return num / den if den else float("nan")


def json_safe(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 4)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("devset", type=Path, nargs="?", default=DEFAULT_DEVSET,
                    help=f"dev set folder (default {DEFAULT_DEVSET})")
    ap.add_argument("--list", action="store_true", help="list missed and false-alarm notebooks")
    ap.add_argument("--json-out", type=Path, help="write the figures as JSON to this file")
    a = ap.parse_args(argv)

    labels_csv = a.devset / "labels.csv"
    if not a.devset.is_dir() or not labels_csv.is_file():
        print(f"dev set not found at {a.devset}: this benchmark needs the labelled dev set")
        return 0

    from jupyter_trainguard.engine import analyze_path, clear_caches

    with open(labels_csv, newline="") as fh:
        labels = list(csv.DictReader(fh))

    # notebook name -> list of (category, rule_id, cell)
    found: dict[str, list[tuple[str, str, int | None]]] = {}
    times_ms: dict[str, float] = {}
    errors: dict[str, str] = {}
    if labels:  # warm-up: the first scan pays for importing the rule modules, not for analysis
        try:
            analyze_path(str(a.devset / labels[0]["notebook"]))
        except Exception:  # noqa: BLE001 - a failing notebook is reported in the timed loop below
            pass
    for row in labels:
        nb_path = a.devset / row["notebook"]
        name = Path(row["notebook"]).name
        clear_caches()
        t0 = time.perf_counter()
        try:
            report = analyze_path(nb_path)
        except Exception as exc:  # a crash counts as "no findings" and is reported
            times_ms[name] = (time.perf_counter() - t0) * 1000
            errors[name] = f"{type(exc).__name__}: {exc}"
            found[name] = []
            continue
        times_ms[name] = (time.perf_counter() - t0) * 1000
        if report.error:
            errors[name] = report.error
        found[name] = [(str(f.category), f.rule_id, f.location.cell) for f in report.findings]

    n = len(labels)
    result: dict[str, Any] = {"devset": str(a.devset), "notebooks": n, "errors": len(errors)}
    print(f"{n} notebooks from {a.devset}; scan errors: {len(errors)}")
    if a.list and errors:
        print("  errors:", *(f"{k}  {v}" for k, v in sorted(errors.items())), sep="\n    ")

    for typ, cat in TYPES.items():
        tp = fp = fn = tn = 0
        misses: list[str] = []
        alarms: list[str] = []
        for row in labels:
            name = Path(row["notebook"]).name
            hits = [h for h in found.get(name, []) if h[0].startswith(cat)]
            truth, pred = row[typ] == "Y", bool(hits)
            tp += truth and pred
            fp += pred and not truth
            fn += truth and not pred
            tn += not truth and not pred
            if truth and not pred:
                misses.append(name)
            if pred and not truth:
                alarms.append(f"{name}  " + ", ".join(sorted({f"{rid}@{cell if cell is not None else '?'}"
                                                             for _, rid, cell in hits})))
        p, rc = ratio(tp, tp + fp), ratio(tp, tp + fn)
        print(f"{typ:14s} precision {p:.2f}  recall {rc:.2f}   (tp {tp} fp {fp} fn {fn} tn {tn})"
              f"   misses {len(misses)}  false alarms {len(alarms)}")
        result[typ] = {"precision": json_safe(p), "recall": json_safe(rc), "tp": tp, "fp": fp, "fn": fn, "tn": tn,
                       "missed": sorted(misses), "false_alarms": sorted(alarms)}
        if a.list:
            print(f"  missed ({len(misses)}):", *sorted(misses), sep="\n    ")
            print(f"  false alarms ({len(alarms)}):", *sorted(alarms), sep="\n    ")

    ms = list(times_ms.values())
    median_ms = statistics.median(ms) if ms else float("nan")
    p95_ms = percentile(ms, 95) if ms else float("nan")
    slowest = sorted(times_ms.items(), key=lambda kv: kv[1], reverse=True)[:5]
    print(f"time per notebook: median {median_ms:.1f} ms  p95 {p95_ms:.1f} ms  total {sum(ms) / 1000:.1f} s")
    print("slowest:", "  ".join(f"{k} {v:.0f} ms" for k, v in slowest))
    peak, now = peak_rss_mb(), current_rss_mb()
    now_txt = f"{now:.0f} MB" if now is not None else "unavailable"
    print(f"memory: peak RSS {peak:.0f} MB, RSS at end {now_txt}")
    result["timing_ms"] = {"median": json_safe(median_ms), "p95": json_safe(p95_ms), "total": round(sum(ms), 1),
                           "slowest": [{"notebook": k, "ms": round(v, 1)} for k, v in slowest]}
    result["memory_mb"] = {"peak_rss": round(peak, 1), "end_rss": round(now, 1) if now is not None else None}

    checks: list[tuple[str, float, str, bool]] = []
    for typ in TYPES:
        rc, p = result[typ]["recall"], result[typ]["precision"]
        checks.append((f"recall {typ}", rc if rc is not None else float("nan"), f">= {RECALL_TARGETS[typ]:.2f}",
                       rc is not None and rc >= RECALL_TARGETS[typ]))
        checks.append((f"precision {typ}", p if p is not None else float("nan"), f">= {PRECISION_TARGET:.2f}",
                       p is not None and p >= PRECISION_TARGET))
    checks.append(("median ms", median_ms, f"<= {MEDIAN_MS_TARGET:.0f}", median_ms <= MEDIAN_MS_TARGET))
    checks.append(("p95 ms", p95_ms, f"<= {P95_MS_TARGET:.0f}", p95_ms <= P95_MS_TARGET))
    checks.append(("peak RSS MB", peak, f"< {PEAK_RSS_MB_TARGET:.0f}", peak < PEAK_RSS_MB_TARGET))
    print("targets:")
    for label, value, target, ok in checks:
        print(f"  {label:24s} {value:8.2f}  (target {target})  {'ok' if ok else 'MISS'}")
    result["targets"] = {label: {"value": json_safe(value), "target": target, "ok": ok}
                         for label, value, target, ok in checks}
    result["all_targets_met"] = all(ok for *_, ok in checks)

    torch_loaded = "torch" in sys.modules
    if torch_loaded:
        print("WARNING: torch was imported during the benchmark; the scanner should not need it")
    result["torch_imported"] = torch_loaded

    if a.json_out:
        a.json_out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
