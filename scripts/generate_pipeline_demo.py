"""Write the seed-1-style demo notebooks in demo_notebooks/notebooks/ (run from the repository root).

The notebooks are committed; rerun this script after changing them here. Each deliberate violation is named in the
notebook's first markdown cell so that `trainguard scan demo_notebooks/` output can be read against it.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

OUT = Path(__file__).resolve().parent.parent / "demo_notebooks" / "notebooks"

PATH_CELL = """import sys
from pathlib import Path

# make `notebooks.components` importable when the notebook runs from demo_notebooks/notebooks/
sys.path.insert(0, str(Path.cwd().parent))"""

RUNNER_IMPORT = "from notebooks.components.experiment_runner import run_standard_experiment"


def config_cell(component: str, positions: str, dataset: str, output_dir: str) -> str:
    return (f'COMPONENT = "{component}"\nPOSITIONS = {positions}\nDATASET = "{dataset}"\n'
            f'OUTPUT_DIR = "{output_dir}"')


EXPERIMENT_LOOP = """model.train()
for epoch in range(EPOCHS):
    for step, (inputs, labels) in enumerate(loader):
        inputs, labels = inputs.to(device), labels.to(device)
        optimizer.zero_grad()
        logits = model(inputs)
        loss = criterion(logits, labels)
        loss.backward()
        optimizer.step()
        history.append(loss.item())
        if step >= MAX_STEPS:
            break"""


def standard(title: str, violation: str, cfg: str, call: str) -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.cells = [
        new_markdown_cell(f"# {title}\n\nStandard notebook: configure, then call the shared runner.\n\n"
                          f"**Deliberate problem for the demo:** {violation}"),
        new_code_cell(PATH_CELL),
        new_code_cell(cfg),
        new_code_cell(RUNNER_IMPORT),
        new_code_cell(call),
    ]
    return nb


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    notebooks: dict[str, nbformat.NotebookNode] = {}
    notebooks["01_aversion_baseline.ipynb"] = standard(
        "01 Aversion baseline", "none: this is what a clean standard notebook looks like.",
        config_cell("aversion", "[3, 6]", "toy_sentiment", "outputs/aversion_baseline"),
        "results = run_standard_experiment(COMPONENT, POSITIONS, DATASET, OUTPUT_DIR, max_steps=2)\nresults",
    )
    notebooks["02_empathy_positions.ipynb"] = standard(
        "02 Empathy positions", "the runner is called with `position=`, but its parameter is `positions` (PIPE004).",
        config_cell("empathy", "[2, 5, 8]", "toy_sentiment", "outputs/empathy_positions"),
        "results = run_standard_experiment(\n    component=COMPONENT,\n    position=POSITIONS,\n"
        "    dataset=DATASET,\n    output_dir=OUTPUT_DIR,\n)",
    )
    notebooks["03_coherence_sweep.ipynb"] = standard(
        "03 Coherence sweep", "the configuration has a misspelt component, a position past layer 11, a dataset "
        "that data_loading does not define, and an output folder outside the convention (CFG001).",
        config_cell("coherance", "[4, 12]", "toy_reviews", "results/Coherence Sweep"),
        "results = run_standard_experiment(COMPONENT, POSITIONS, DATASET, OUTPUT_DIR)",
    )
    nb4 = standard(
        "04 Humility custom", "a hand-written training loop in a standard notebook (PIPE001).",
        config_cell("humility", "[7]", "toy_preferences", "outputs/humility_custom"),
        "results = run_standard_experiment(COMPONENT, POSITIONS, DATASET, OUTPUT_DIR, max_steps=2)",
    )
    nb4.cells.insert(4, new_code_cell(
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "from notebooks.components.data_loading import load_dataset\n"
        "from notebooks.components.training_rig import TrainingRig\n\n"
        "# 'just a quick extra fine-tune' copied from an experiment\n"
        "rig = TrainingRig(COMPONENT, POSITIONS)\nmodel = rig.model\n"
        "optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)\n"
        "criterion = torch.nn.CrossEntropyLoss()\n"
        "loader = DataLoader(load_dataset(DATASET, n=64), batch_size=16, shuffle=True)\n"
        "for epoch in range(2):\n    for inputs, labels in loader:\n        optimizer.zero_grad()\n"
        "        loss = criterion(model(inputs), labels)\n        loss.backward()\n        optimizer.step()"))
    notebooks["04_humility_custom.ipynb"] = nb4

    def experimental(title: str, note: str, setup: str, tail: str,
                     loop: str = "history = []\n" + EXPERIMENT_LOOP) -> nbformat.NotebookNode:
        nb = new_notebook()
        nb.cells = [
            new_markdown_cell(f"# {title}\n\nExperimental notebook: may train its own way, but must use the shared "
                              f"device set-up and artifacts.\n\n**For the demo:** {note}"),
            new_code_cell(PATH_CELL),
            new_code_cell(config_cell("empathy", "[5]", "toy_sentiment", "outputs/" + title.split()[0].lower())
                          + "\nEPOCHS = 1\nMAX_STEPS = 3\nSEED = 0"),
            new_code_cell(setup),
            new_code_cell(loop),
            new_code_cell(tail),
        ]
        return nb

    common_setup = (
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "from notebooks.components import artifacts, device_setup\n"
        "from notebooks.components.data_loading import load_dataset\n"
        "from notebooks.components.training_rig import TrainingRig\n\n"
        "torch.manual_seed(SEED)\ndevice = device_setup.setup()\n"
        "model = TrainingRig(COMPONENT, POSITIONS).model.to(device)\n"
        "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)\n"
        "criterion = torch.nn.CrossEntropyLoss()\n"
        "generator = torch.Generator().manual_seed(SEED)\n"
        "loader = DataLoader(load_dataset(DATASET, n=64), batch_size=16, shuffle=True, generator=generator)"
    )
    notebooks["01b_teacher_distillation.ipynb"] = experimental(
        "01b teacher distillation", "uses the shared components properly.", common_setup,
        "report = {'final_loss': metrics['loss'], 'steps': metrics.get('steps')}\n"
        "artifacts.save_report(OUTPUT_DIR, report)",
        loop="from notebooks.components.training_loop import train\n\n"
             "metrics = train(model, loader, optimizer, epochs=EPOCHS, device=device, max_steps=MAX_STEPS)",
    )
    bypass_setup = common_setup.replace("device = device_setup.setup()", 'device = torch.device("cpu")').replace(
        "from notebooks.components import artifacts, device_setup\n", "")
    notebooks["01c_contrastive_probe.ipynb"] = experimental(
        "01c contrastive probe", "picks its own device and saves with torch.save instead of the shared "
        "artifacts (PIPE002); its training loop is copied from 01d (PIPE003).", bypass_setup,
        "torch.save(model.state_dict(), 'contrastive_probe.pt')",
    )
    notebooks["01d_layer_ablation.ipynb"] = experimental(
        "01d layer ablation", "its training loop also appears in 01c (PIPE003).", common_setup,
        "artifacts.save_report(OUTPUT_DIR, {'final_loss': history[-1]})",
    )
    for name, nb in notebooks.items():
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, OUT / name)
        print("wrote", OUT / name)


if __name__ == "__main__":
    main()
