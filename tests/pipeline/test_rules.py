"""Each PHEALTH rule on small component packages (no torch): what it flags, and what it accepts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_trainguard.config import ConfigError, load_config
from jupyter_trainguard.engine import Selection
from jupyter_trainguard.pipeline import check_pipeline

FLOW = """\
[tool.trainguard.pipeline]
timeout_s = 20
flow = ["runner", "data", "loop", "store"]
training_loop = "loop.train"
artifacts = "store"
"""

DATA = '''\
class Dataset:
    pass

class Loader:
    pass

def load(name: str, split: str = "train") -> Dataset:
    return Dataset()

def batches(ds: Dataset, size: int = 2) -> Loader:
    return Loader()
'''

LOOP_GOOD = '''\
import logging
logger = logging.getLogger(__name__)

def train(loader, steps: int = 1) -> dict:
    try:
        return {"status": "ok"}
    except Exception:
        logger.exception("training failed")
        raise
    finally:
        import torch  # only when it runs: the probe never needs torch for this package
        torch.cuda.empty_cache()
'''

STORE = '''\
def save_report(output_dir: str, report: dict, *, status: str = "ok") -> str:
    return output_dir

def load_report(output_dir: str) -> dict:
    return {}
'''

RUNNER_GOOD = '''\
from . import data, store
from .loop import train

def run(name: str, output_dir: str) -> dict:
    report = {}
    try:
        report["result"] = train(data.batches(data.load(name)))
    finally:
        store.save_report(output_dir, report)
    return report
'''


def make(components, **overrides):
    files = {"data.py": DATA, "loop.py": LOOP_GOOD, "store.py": STORE, "runner.py": RUNNER_GOOD}
    files.update(overrides.pop("files", {}))
    return components(files, overrides.pop("toml", FLOW), runner="runner.run")


def ids(result, name=None):
    return sorted(f.rule_id for f in result.findings if name is None or Path(f.location.path).name == name)


def static(config):
    return check_pipeline(config, selection=Selection(select=("PHEALTH01",)))


def test_healthy_package_has_no_findings(components):
    result = check_pipeline(make(components))
    assert result.findings == [] and result.ok
    assert result.counts["calls"] >= 4 and result.counts["links"] >= 2
    doc = json.loads(json.dumps(result.to_dict()))  # what `%trainaudit --pipeline` can publish as-is
    assert doc["ok"] and {c["name"] for c in doc["components"]} == {"__init__", "data", "loop", "store", "runner"}
    assert len(doc["reports"]) == 5 and result.summary_text().count("OK  ") == 5


def test_training_loop_without_logging_or_finally(components):
    loop = ("def train(loader, steps: int = 1) -> dict:\n    try:\n        return {}\n"
            "    except Exception:\n        pass\n")
    result = static(make(components, files={"loop.py": loop}))
    msgs = [f.message for f in result.findings if f.rule_id == "PHEALTH010"]
    assert len(msgs) == 2
    assert any("without logging" in m for m in msgs) and any("no finally" in m for m in msgs)
    assert {f.location.line for f in result.findings if f.rule_id == "PHEALTH010"} == {1}


@pytest.mark.parametrize("body, flagged", [
    ("    report = train(data.load(name))\n    store.save_report(output_dir, report)\n    return report\n", True),
    ("    try:\n        report = train(data.load(name))\n    except Exception:\n        raise\n"
     "        store.save_report(output_dir, {})\n    return report\n", True),  # after raise: never runs
    ("    try:\n        report = train(data.load(name))\n    except Exception as exc:\n"
     "        store.save_report(output_dir, {'error': str(exc)}, status='failed')\n        raise\n"
     "    store.save_report(output_dir, report)\n    return report\n", False),
    ("    report = {}\n    try:\n        report = train(data.load(name))\n    finally:\n"
     "        store.save_report(output_dir, report)\n    return report\n", False),
])
def test_runner_saves_artifacts_on_failure(components, body, flagged):
    runner = "from . import data, store\nfrom .loop import train\n\ndef run(name: str, output_dir: str) -> dict:\n"
    result = static(make(components, files={"runner.py": runner + body}))
    hits = [f for f in result.findings if f.rule_id == "PHEALTH011"]
    assert bool(hits) is flagged
    if flagged:
        save_line = next(i for i, line in enumerate((runner + body).splitlines(), 1) if "save_report" in line)
        assert hits[0].location.line == save_line and Path(hits[0].location.path).name == "runner.py"


def test_gpu_release_through_a_component_helper_counts(components):
    loop = "def train(loader, steps: int = 1) -> dict:\n    return {}\n"
    helper = "import torch\n\ndef free_memory():\n    torch.cuda.empty_cache()\n"
    runner = RUNNER_GOOD.replace("from .loop import train", "from .loop import train\nfrom .device import free_memory")
    freeing = runner.replace("        store.save_report", "        free_memory()\n        store.save_report")
    freed = static(make(components, files={"loop.py": loop, "device.py": helper, "runner.py": freeing}))
    leaked = static(make(components, files={"loop.py": loop, "device.py": helper, "runner.py": runner}))
    assert "PHEALTH012" not in ids(freed)
    (gpu,) = [f for f in leaked.findings if f.rule_id == "PHEALTH012"]
    assert Path(gpu.location.path).name == "runner.py" and gpu.category == "memory"


def test_tracking_runs_must_close_on_every_path(components):
    leak = "import mlflow\n\ndef log(x):\n    mlflow.start_run()\n    mlflow.log_metric('x', x)\n    mlflow.end_run()\n"
    with_block = "import mlflow\n\ndef log(x):\n    with mlflow.start_run():\n        mlflow.log_metric('x', x)\n"
    finally_ = ("import wandb\n\ndef log(x):\n    run = wandb.init()\n    try:\n        run.log({'x': x})\n"
                "    finally:\n        run.finish()\n")
    result = static(make(components, files={"leak.py": leak, "ok1.py": with_block, "ok2.py": finally_}))
    (hit,) = [f for f in result.findings if f.rule_id == "PHEALTH013"]
    assert Path(hit.location.path).name == "leak.py" and hit.location.line == 4 and hit.source == "static"


def test_flow_stage_never_called_breaks_integration(components):
    runner = RUNNER_GOOD.replace("        store.save_report(output_dir, report)\n", "        pass\n")
    result = check_pipeline(make(components, files={"runner.py": runner}))
    (flow,) = [f for f in result.findings if f.rule_id == "PHEALTH004"]
    assert "never calls store" in flow.message and flow.severity.value == "error"


def test_return_annotation_mismatch_between_stages(components):
    runner = RUNNER_GOOD.replace("train(data.batches(data.load(name)))", "train(ds)")
    runner = runner.replace("    report = {}\n", "    report = {}\n    ds = data.load(name)\n")
    loop = LOOP_GOOD.replace("def train(loader,", "from .data import Loader\n\ndef train(loader: Loader,")
    result = check_pipeline(make(components, files={"runner.py": runner, "loop.py": loop}))
    (link,) = [f for f in result.findings if f.rule_id == "PHEALTH004"]
    assert "data.load() gives comps.data.Dataset" in link.message
    assert "'loader' expects comps.data.Loader" in link.message
    assert link.location.line == 8


def test_entry_points_and_signature_drift(components):
    toml = FLOW + ('[tool.trainguard.pipeline.entry_points]\n"runner.run" = ["name", "output_dir", "epochs"]\n'
                   '"data.load_all" = []\n"store.save_report" = ["output_dir", "report"]\n')
    result = check_pipeline(make(components, toml=toml))
    msgs = sorted(f.message for f in result.findings if f.rule_id == "PHEALTH002")
    assert len(msgs) == 2
    assert "data.load_all does not exist" in msgs[0] and "did you mean 'load'" in msgs[0]
    assert "runner.run has no parameter(s) 'epochs'" in msgs[1] and "run(name, output_dir)" in msgs[1]


def test_method_calls_on_component_instances_are_bound(components):
    rig = "class Rig:\n    def __init__(self, depth: int):\n        self.depth = depth\n\n" \
          "    def freeze(self, upto: int) -> int:\n        return upto\n"
    user = "from .rig import Rig\n\ndef go():\n    r = Rig(3)\n    r.freeze(1)\n    r.freeze(1, 2)\n    Rig()\n"
    result = check_pipeline(make(components, files={"rig.py": rig, "user.py": user}))
    calls = sorted((f.location.line, f.message) for f in result.findings if f.rule_id == "PHEALTH003")
    assert [line for line, _ in calls] == [6, 7]
    assert "too many positional" in calls[0][1] and "missing a required argument: 'depth'" in calls[1][1]


def test_constants_against_accepted_values(components):
    spec = "DISPOSITIONS = ('aversion', 'empathy')\nN_BLOCKS = 6\nSPECS = {f'ds{i}': {} for i in range(2)}\n"
    toml = FLOW + ('[tool.trainguard.pipeline.accepts]\nCOMPONENT = "rig.DISPOSITIONS"\nPOSITIONS = "rig.N_BLOCKS"\n'
                   '[tool.trainguard.constants.COMPONENT]\nchoices = ["aversion", "empathy", "humility"]\n'
                   '[tool.trainguard.constants.POSITIONS]\ntype = "int_list"\nmin = 0\nmax = 11\n'
                   '[tool.trainguard.constants.DATASET]\nkeys_of = "rig.SPECS"\n')
    result = check_pipeline(make(components, toml=toml, files={"rig.py": spec}))
    msgs = sorted(f.message for f in result.findings if f.rule_id == "PHEALTH005")
    assert len(msgs) == 2 and all(Path(f.location.path).name == "pyproject.toml"
                                  for f in result.findings if f.rule_id == "PHEALTH005")
    assert "'humility'" in msgs[0] and "allows [0, 11] but rig.N_BLOCKS accepts only 0..5" in msgs[1]


def test_selection_and_severity_override(components, tmp_path):
    loop = "def train(loader, steps: int = 1) -> dict:\n    return {}\n"
    config = make(components, files={"loop.py": loop},
                  toml=FLOW + '[tool.trainguard.severity]\nPHEALTH010 = "error"\n')
    result = check_pipeline(load_config(config.root), selection=Selection(ignore=("PHEALTH012",)))
    assert ids(result) == ["PHEALTH010", "PHEALTH010"]
    assert all(f.severity.value == "error" for f in result.findings)
    assert result.probe_runs == 1
    only_static = static(config)
    assert only_static.probe_runs == 0  # no import rule selected: nothing imported


def test_configuration_errors(components, tmp_path):
    with pytest.raises(ConfigError, match="components is not set"):
        check_pipeline(load_config(tmp_path))
    config = make(components, toml="[tool.trainguard.pipeline]\nflows = []\n")
    with pytest.raises(ConfigError, match="unknown keys: flows"):
        check_pipeline(config)
