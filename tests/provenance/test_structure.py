"""The provenance package stays readable by its parts: the value lattice, the API table (a module per library),
the interpreter and one detector per leak type, no module over 400 lines."""

from __future__ import annotations

from pathlib import Path

import jupyter_trainguard.analysis.provenance as provenance

ROOT = Path(provenance.__file__).parent


def test_no_module_of_the_provenance_package_is_over_400_lines() -> None:
    sizes = {p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for p in ROOT.rglob("*.py")}
    assert len(sizes) > 20
    assert {name: n for name, n in sizes.items() if n > 400} == {}


def test_each_leak_type_has_its_detector_and_each_library_its_table() -> None:
    detectors = {p.stem for p in (ROOT / "detectors").glob("*.py")}
    assert {"preprocessing", "overlap", "multitest"} <= detectors
    tables = {p.stem for p in (ROOT / "api").glob("*.py")}
    assert {"sklearn", "pandas_api", "numpy_api", "keras", "torch_api", "boosting", "statsmodels_api"} <= tables
