"""The seven parts of the review on realistic notebooks (leaky sklearn, clean sklearn, torch, time series)."""

from __future__ import annotations

from jupyter_trainguard.findings import CATEGORIES
from jupyter_trainguard.report.parts import PARTS, PRIORITY, by_priority
from jupyter_trainguard.report.review import audit_paths
from jupyter_trainguard.rules.registry import all_rules


def lines(part) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for ln in part.lines:
        out.setdefault(ln.label, []).append(f"{ln.value} @ {ln.where}")
    return out


def test_parts_are_the_seven_in_order(leaky_nb):
    audit, errors = audit_paths([str(leaky_nb)])
    assert errors == []
    assert [p.key for p in audit.parts] == [k for k, _ in PARTS]
    assert [p.title[:2] for p in audit.parts] == ["1.", "2.", "3.", "4.", "5.", "6.", "7."]


def test_leaky_sklearn_notebook(leaky_nb):
    audit, _ = audit_paths([str(leaky_nb)])
    repro, split, temporal, ckpt, track, table, nxt = audit.parts
    # 1. seeding coverage: numpy's default_rng() and train_test_split are unseeded, with their cells
    seeding = lines(repro)
    assert seeding["Seeding: NumPy"] == ["used (numpy.random.default_rng), NOT seeded @ cell 2 [In 2], line 1"]
    assert seeding["Seeding: scikit-learn random_state"] == [
        "used (train_test_split), NOT seeded @ cell 4 [In 4], line 1"]
    assert repro.status == "issues" and repro.verdict.startswith("AT RISK: 0/2 RNG families seeded")
    assert any("no lockfile" in v for v in seeding["Environment"])
    assert seeding["Rerun"][0].startswith("not checked")
    # 2. split type and where preprocessing is fitted; the leakage finding with cell and line
    facts = lines(split)
    assert facts["Split"] == ["train_test_split (random shuffle) @ cell 4 [In 4], line 1"]
    assert facts["Preprocessing fit"] == [
        "scaler.fit_transform(X) [StandardScaler] — before the split (sees every row) @ cell 3 [In 3], line 4"]
    leak = [f for f in split.findings if f.rule_id == "LEAK001"]
    assert len(leak) == 1 and (leak[0].location.cell, leak[0].location.line) == (2, 4)
    assert split.status == "issues" and split.verdict.startswith("LEAKAGE RISK")
    # 3. no time data: not applicable; 4. no torch: not applicable
    assert temporal.status == "not applicable" and "no time column" in temporal.not_applicable
    assert ckpt.status == "not applicable"
    # 5. no tracking at all
    assert track.status == "issues" and track.verdict.startswith("UNTRACKED")
    assert lines(track)["Params"] == ["not logged @ "]
    # 6. every finding is in the table, in priority order; 7. the next action is the top one's fix
    assert table.findings == audit.findings == by_priority(audit.findings)
    assert audit.findings[0].rule_id == "LEAK001"
    assert nxt.verdict.startswith(audit.findings[0].fix) and audit.next_action["rule_id"] == "LEAK001"
    assert "cell 3 [In 3], line 4" in audit.next_action["where"]
    # grouped results: temporal rules that ran without finding are "not applicable", none is lost
    assert "TIME001" in audit.not_applicable
    assert "LEAK002" in audit.passed
    ran = set(audit.passed) | set(audit.not_applicable) | {f.rule_id for f in audit.findings}
    static = {r.id for r in all_rules() if r.scope != "runtime"}
    assert static <= ran | set(audit.skipped)


def test_clean_sklearn_notebook(clean_nb):
    audit, _ = audit_paths([str(clean_nb)])
    repro, split, temporal, ckpt, track, table, nxt = audit.parts
    seeding = lines(repro)
    assert seeding["Seeding: NumPy"][0].startswith("seeded (numpy.random.default_rng(SEED))")
    assert seeding["Seeding: scikit-learn random_state"][0].startswith("seeded (train_test_split(random_state")
    assert any(v.startswith("requirements.txt (all pinned)") for v in seeding["Environment"])
    assert repro.status == "ok"
    facts = lines(split)
    assert facts["Split"] == ["train_test_split (random shuffle), stratified @ cell 3 [In 3], line 1"]
    assert "inside a Pipeline" in facts["Preprocessing fit"][0]
    assert split.findings == [] and split.status == "ok" and "LEAK001" in split.passed
    assert temporal.status == ckpt.status == "not applicable"
    t = lines(track)
    assert t["Tracker"] == ["mlflow @ "]
    assert t["Params"][0].startswith("logged (mlflow.log_params") and "cell 4 [In 4], line 2" in t["Params"][0]
    assert t["Metrics"][0].startswith("logged (mlflow.log_metric")
    assert t["Code commit"][0].startswith("logged") and t["Dataset version/hash"][0].startswith("logged")
    assert track.verdict.startswith("Tracked")
    assert audit.findings == [] and table.status in ("ok", "not checked")
    assert nxt.verdict.startswith("No issue found")


def test_torch_notebook_incomplete_checkpoint_no_tracking(torch_nb):
    audit, _ = audit_paths([str(torch_nb)])
    repro, split, temporal, ckpt, track, table, nxt = audit.parts
    assert lines(repro)["Seeding: PyTorch"][0].startswith("seeded (torch.manual_seed(0))")
    assert any("deterministic" in v for v in lines(repro)["Determinism"])
    c = lines(ckpt)
    assert c["Persisted"] == ["torch.save(model.state_dict()) — weights only: model weights @ cell 3 [In 3], line 8"]
    assert c["Restore"] == ["model.load_state_dict(...) @ cell 4 [In 4], line 1"]
    assert c["Resume"] == ["cannot resume exactly; missing optimizer state, epoch / step counter @ "]
    assert ckpt.status == "issues" and ckpt.verdict.startswith("NOT RESUMABLE")
    assert track.verdict.startswith("UNTRACKED")
    assert temporal.status == "not applicable"
    ckpt001 = [f for f in ckpt.findings if f.rule_id == "CKPT001"]
    assert len(ckpt001) == 1 and (ckpt001[0].location.cell, ckpt001[0].location.line) == (2, 8)
    assert "TRACK001" in {f.rule_id for f in track.findings}
    # checkpointing outranks tracking and environment in the priority order
    assert audit.next_action["rule_id"] == "CKPT001"
    assert nxt.verdict.startswith(ckpt001[0].fix)


def test_time_series_notebook_temporal_part(temporal_nb):
    audit, _ = audit_paths([str(temporal_nb)])
    temporal = audit.part("temporal")
    t = lines(temporal)
    assert t["Time data"][0] == "read_csv(parse_dates=...) @ cell 2 [In 2], line 1"
    assert t["Non-chronological split"] == ["train_test_split (random shuffle) @ cell 3 [In 3], line 1"]
    assert [f.rule_id for f in temporal.findings] == ["TIME001"]
    assert temporal.status == "issues" and temporal.verdict.startswith("NOT CHRONOLOGICAL")
    assert audit.next_action["rule_id"] == "TIME001"


def test_priority_order_is_complete_and_leakage_first():
    assert set(PRIORITY) == set(CATEGORIES)
    assert PRIORITY[:7] == ["leakage.target", "leakage.preprocessing", "leakage.overlap", "leakage.temporal",
                            "leakage.multi-test", "leakage.validation", "evaluation"]
    assert PRIORITY.index("reproducibility.seeding") < PRIORITY.index("checkpointing") \
        < PRIORITY.index("tracking") < PRIORITY.index("reproducibility.environment")


def test_folder_of_notebooks_is_one_review(leaky_nb, clean_nb):
    audit, errors = audit_paths([str(leaky_nb.parent.parent)])
    assert errors == []
    assert sorted(audit.provenance["notebooks"]) == sorted([str(leaky_nb), str(clean_nb)])
    paths = {f.location.path for f in audit.findings}
    assert str(leaky_nb) in paths
    splits = lines(audit.part("split"))["Split"]
    assert len(splits) == 2


def test_inline_ignore_is_listed_as_ignored(tmp_path):
    from .conftest import LEAKY, write_notebook

    cells = list(LEAKY)
    cells[3] = cells[3] + "  # trainguard: ignore[SEED004]"
    nb = write_notebook(tmp_path / "ignored.ipynb", cells)
    audit, _ = audit_paths([str(nb)])
    assert [s.finding.rule_id for s in audit.ignored] == ["SEED004"]
    assert "SEED004" not in {f.rule_id for f in audit.findings} and "SEED004" not in audit.passed


def test_selection_shows_skipped_rules(leaky_nb):
    from jupyter_trainguard.engine import Selection

    audit, _ = audit_paths([str(leaky_nb)], Selection(ignore=("SEED",)))
    assert audit.skipped["SEED002"].startswith("ignored by --ignore")
    assert not any(f.rule_id.startswith("SEED") for f in audit.findings)
