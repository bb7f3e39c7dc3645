"""PHEALTH rules: the shared training components themselves, checked by `trainguard pipeline`.

These never run during a notebook scan (scope "runtime"): `jupyter_trainguard.pipeline` evaluates them by
importing the components in a subprocess (PHEALTH001-007) or by reading their source (PHEALTH010-013).
"""

from __future__ import annotations

from .registry import runtime_rule

IMPORT_ERROR = runtime_rule(
    id="PHEALTH001", name="component-import-error", category="pipeline", severity="error",
    rationale="A component that cannot be imported breaks every notebook that uses it, often only at run time.",
    impact="Every notebook importing this component fails before training starts.",
    fix="Fix the import error shown (missing dependency, wrong import path, code that runs or exits at import).",
    bad="from .trainer_utils import train  # module was renamed", good="from .training_loop import train",
)
ENTRY_POINT = runtime_rule(
    id="PHEALTH002", name="entry-point-signature", category="pipeline", severity="error",
    rationale="A declared entry point that is missing, not callable, or lost a parameter breaks its callers.",
    impact="Notebooks calling the entry point fail with AttributeError or TypeError.",
    fix="Restore the entry point and its parameters, or update [tool.trainguard.pipeline] entry_points.",
    bad="def run_experiment(component, dataset, out_dir): ...",
    good="def run_standard_experiment(component, positions, dataset, output_dir, *, epochs=1): ...",
)
CALL_MISMATCH = runtime_rule(
    id="PHEALTH003", name="component-call-mismatch", category="pipeline", severity="error",
    rationale="A call that does not bind to the callee's real signature raises TypeError when it runs.",
    impact="The run fails at this call, possibly after minutes of training.",
    fix="Update the call (or the callee's signature) so the arguments match.",
    bad="train(model, loader, opt, step_limit=10)", good="train(model, loader, opt, max_steps=10)",
)
INTEGRATION = runtime_rule(
    id="PHEALTH004", name="integration-mismatch", category="pipeline", severity="warning",
    rationale="Components that work alone can still fail together: a stage is skipped, or one returns what the "
              "next does not accept.",
    impact="The integration flow breaks or passes the wrong kind of object between stages.",
    fix="Make the runner call every stage of the flow, and align return and parameter annotations.",
    bad="def load_dataset(...) -> Dataset\ndef train(model, dataloader: DataLoader, ...)\ntrain(m, load_dataset(n))",
    good="train(m, make_loader(load_dataset(n)))",
)
CONSTANT = runtime_rule(
    id="PHEALTH005", name="constant-not-accepted", category="config", severity="error",
    rationale="A notebook constant (or configured choice) that the components do not accept fails at run time.",
    impact="The experiment fails when the component looks the value up, or trains something other than intended.",
    fix="Use a value the component supports, or add it to the component (and the config).",
    bad='DATASET = "toy_reviews"  # not in data_loading.DATASET_SPECS', good='DATASET = "toy_sentiment"',
)
SMOKE = runtime_rule(
    id="PHEALTH006", name="smoke-run-failed", category="pipeline", severity="error",
    rationale="The integration entry point failed on a tiny configuration, so the components do not work "
              "together end to end.",
    impact="Every real experiment fails the same way, after loading data and building the model.",
    fix="Fix the error at the location shown; rerun `trainguard pipeline --smoke`.",
    bad="run_standard_experiment(...)  # raises inside training_loop.train",
    good="run_standard_experiment(...)  # returns a report, artifacts saved",
)
PROBE = runtime_rule(
    id="PHEALTH007", name="pipeline-probe-failed", category="pipeline", severity="error",
    rationale="The isolated process that inspects the components could not finish.",
    impact="Some pipeline checks did not run.",
    fix="Read the error; it usually names a component that hangs or crashes the interpreter.",
)
LOOP_ERRORS = runtime_rule(
    id="PHEALTH010", name="training-loop-error-handling", category="pipeline", severity="warning",
    rationale="A training loop should catch and log exceptions, and clean up (eval mode, memory) in `finally`.",
    impact="A crash mid-epoch loses the error context and leaves the model and GPU in a half-trained state.",
    fix="Wrap the loop in try/except that logs the exception, and put cleanup in a finally block.",
    bad="for batch in loader:\n    loss.backward()",
    good="try:\n    for batch in loader: ...\nexcept Exception:\n    logger.exception('training failed')\n"
         "    raise\nfinally:\n    model.eval()",
)
ARTIFACTS_ON_FAILURE = runtime_rule(
    id="PHEALTH011", name="artifacts-not-saved-on-failure", category="pipeline", severity="error",
    rationale="When training fails, the report and partial results are the only record of what happened.",
    impact="A failed run leaves nothing behind: no report, no error, no way to compare with other runs.",
    fix="Save the report in a finally block (or in a broad except) around the training call.",
    bad="result = train(...)\nsave_report(out, result)",
    good="try:\n    result = train(...)\nfinally:\n    save_report(out, report, status=status)",
)
GPU_CLEANUP = runtime_rule(
    id="PHEALTH012", name="gpu-memory-not-released", category="memory", severity="warning",
    rationale="After a failure, tensors held by the failed run keep GPU memory allocated in the kernel.",
    impact="The next run in the same kernel runs out of memory although the model fits.",
    fix="Call torch.cuda.empty_cache() (after dropping references) in an except or finally block.",
    bad="result = train(model, ...)",
    good="try:\n    result = train(model, ...)\nfinally:\n    del model\n    torch.cuda.empty_cache()",
)
TRACKING_RUN = runtime_rule(
    id="PHEALTH013", name="tracking-run-not-closed", category="tracking", severity="error",
    rationale="An MLflow/W&B run started without a with block or finally stays open when the code fails.",
    impact="The run shows as RUNNING forever, and the next run may nest inside it or log to it.",
    fix="Use `with mlflow.start_run():` (or end_run()/finish() in a finally block).",
    bad="mlflow.start_run()\ntrain(...)\nmlflow.end_run()", good="with mlflow.start_run():\n    train(...)",
)
