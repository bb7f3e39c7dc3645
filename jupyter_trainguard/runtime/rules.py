"""The runtime rules of `%%guarded_train`: checks evaluated on live kernel objects, not on code."""

from __future__ import annotations

from ..rules.registry import Rule, get_rule, runtime_rule


def _rule(**meta: object) -> Rule:
    try:  # importing this module twice (e.g. reload) must not register twice
        return get_rule(str(meta["id"]))
    except KeyError:
        return runtime_rule(**meta)


DATA001 = _rule(
    id="DATA001", name="split-row-overlap", category="leakage.overlap", severity="error",
    rationale="Rows present in both the training split and an evaluation split let the model be scored on "
              "data it memorised.",
    impact="Validation/test scores are optimistic by an amount that grows with the overlap ratio.",
    fix="Deduplicate before splitting (df.drop_duplicates()), and split once from one source.",
    bad="X_train, X_test = train_test_split(pd.concat([X, X.sample(100)]))",
    good="X = X.drop_duplicates()\nX_train, X_test = train_test_split(X, random_state=0)",
)
DATA002 = _rule(
    id="DATA002", name="group-key-overlap", category="leakage.overlap", severity="error",
    rationale="The same entity (patient, user, session) in training and evaluation splits leaks per-entity "
              "patterns even when no row is duplicated.",
    impact="Scores measure recognition of known entities, not generalisation to new ones.",
    fix="Split by group: GroupShuffleSplit / GroupKFold on the key column.",
    bad="train_test_split(df, test_size=0.2)  # several rows per user_id",
    good="GroupShuffleSplit(test_size=0.2, random_state=0).split(df, groups=df['user_id'])",
)
DATA003 = _rule(
    id="DATA003", name="transformer-saw-eval-rows", category="leakage.preprocessing", severity="error",
    rationale="A fitted scaler/encoder whose statistics come from more rows than the training split was fitted "
              "on evaluation data.",
    impact="Evaluation rows influenced the features the model was trained on; scores are optimistic.",
    fix="Fit the transformer on the training split only (or inside a Pipeline), then transform the others.",
    bad="scaler = StandardScaler().fit(X)\nX_train, X_test = train_test_split(scaler.transform(X))",
    good="scaler = StandardScaler().fit(X_train)\nX_test_s = scaler.transform(X_test)",
)
DATA004 = _rule(
    id="DATA004", name="test-set-as-validation", category="leakage.multi-test", severity="error",
    rationale="Passing the test split as eval_set/validation data lets it drive early stopping or model "
              "selection.",
    impact="The reported test score is no longer an unbiased estimate.",
    fix="Carve a validation split out of the training data and keep the test split for the final score.",
    bad="model.fit(X_train, y_train, eval_set=[(X_test, y_test)])",
    good="model.fit(X_tr, y_tr, eval_set=[(X_val, y_val)])",
)
DATA005 = _rule(
    id="DATA005", name="train-after-test-in-time", category="leakage.temporal", severity="warning",
    rationale="For time-ordered data, training rows dated after evaluation rows let the model see the future.",
    impact="Scores overstate how the model does when deployed on later data.",
    fix="Split by time (all training rows before the first evaluation row), e.g. TimeSeriesSplit.",
    bad="train_test_split(df_sorted_by_date, shuffle=True)",
    good="cut = df.date.quantile(0.8)\ntrain, test = df[df.date <= cut], df[df.date > cut]",
)
DATA006 = _rule(
    id="DATA006", name="single-feature-predicts-label", category="leakage.target", severity="warning",
    rationale="One feature that equals or almost perfectly predicts the label usually is the label in disguise "
              "(a post-outcome field, an ID sorted by class).",
    impact="The model learns the shortcut; accuracy collapses on real data.",
    fix="Drop the column or check that it is available at prediction time.",
    bad="X = df.drop(columns=['churned'])  # but 'cancellation_date' stays",
    good="X = df.drop(columns=['churned', 'cancellation_date'])",
)
RNG001 = _rule(
    id="RNG001", name="rng-not-seeded-at-run", category="reproducibility.seeding", severity="warning",
    rationale="Random number generators in use were not seeded when the training cell ran.",
    impact="A rerun gives different weights and metrics.",
    fix="Run the cell with %%guarded_train --seed N, or seed random, numpy and torch before training.",
    bad="%%guarded_train\nmodel.fit(X, y)",
    good="%%guarded_train --seed 0\nmodel.fit(X, y)",
)
RNG002 = _rule(
    id="RNG002", name="determinism-not-effective", category="reproducibility.determinism", severity="warning",
    rationale="Some determinism settings only work when set before the interpreter or CUDA starts.",
    impact="Runs stay nondeterministic although the notebook asks for determinism.",
    fix="Set PYTHONHASHSEED and CUBLAS_WORKSPACE_CONFIG in the kernel's environment (kernel.json 'env').",
    bad="os.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'  # after CUDA started",
    good='kernel.json: "env": {"CUBLAS_WORKSPACE_CONFIG": ":4096:8", "PYTHONHASHSEED": "0"}',
)
MEM001 = _rule(
    id="MEM001", name="out-of-memory", category="memory", severity="error",
    rationale="The training cell ran out of (GPU) memory.",
    impact="Training stopped; memory held by the failed frames may block the next attempt.",
    fix="Follow the advice in the message (smaller batch, mixed precision, gradient checkpointing, ...).",
    bad="loader = DataLoader(ds, batch_size=4096)",
    good="loader = DataLoader(ds, batch_size=256)  # or AMP / gradient accumulation",
)
MEM002 = _rule(
    id="MEM002", name="memory-retained-after-cell", category="memory", severity="warning",
    rationale="Device memory allocated by the cell is still allocated after it finished.",
    impact="The next cell has less memory and may run out.",
    fix="del the large objects you no longer need (models, optimizers, outputs holding graphs), then "
        "torch.cuda.empty_cache().",
    bad="outputs = [model(x) for x in batches]  # keeps every graph alive",
    good="with torch.no_grad():\n    outputs = [model(x).cpu() for x in batches]",
)
MEM003 = _rule(
    id="MEM003", name="estimate-over-budget", category="memory", severity="warning",
    rationale="The estimated peak memory of the cell exceeds the memory budget given with --memory-budget.",
    impact="The cell is likely to run out of memory part-way through.",
    fix="Reduce batch size or model size, or use mixed precision/checkpointing before running.",
    bad="%%guarded_train --estimate --memory-budget 8GiB   # estimate 11 GiB",
    good="%%guarded_train --estimate --memory-budget 8GiB   # estimate 6 GiB",
)
GUARD001 = _rule(
    id="GUARD001", name="tracking-run-left-open", category="tracking", severity="warning",
    rationale="An MLflow/W&B run stayed open when the cell ended; on failure the guard closes it as FAILED.",
    impact="Open runs show as RUNNING forever and mix metrics of later runs into them.",
    fix="Use `with mlflow.start_run():` (or try/finally with end_run(status='FAILED')).",
    bad="mlflow.start_run()\ntrain()\nmlflow.end_run()",
    good="with mlflow.start_run():\n    train()",
)
