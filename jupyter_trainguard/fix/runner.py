"""Run the fixers over notebooks: findings in, surgical edits out, a checklist-shaped report back."""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..config import Config, ConfigError, load_config
from ..engine import Selection, analyze_notebook
from ..findings import Report, Severity, cell_label
from ..notebook.load import iter_notebook_paths, notebook_from_bytes
from ..notebook.model import Notebook
from ..rules.registry import Rule, all_rules
from . import ipynb_splice, py_splice
from .context import EngineFindings, FixContext
from .model import FileResult, FixReport, Left
from .registry import Fixer, all_fixers
from .work import WorkNotebook

SPLICEABLE = ("ipynb", "py:percent", "py:light", "py")


def _as_selection(selection: Selection | Iterable[str] | None) -> Selection:
    if selection is None:
        return Selection()
    if isinstance(selection, Selection):
        return selection
    return Selection(select=tuple(selection))


def selected_rules(fixers: list[Fixer], selection: Selection, config: Config, known: dict[str, Rule]) -> set[str]:
    """The rule ids whose fixes may run under --select/--ignore and the config (fixer ids select too)."""
    out: set[str] = set()
    for fx in fixers:
        if fx.id in selection.ignore:
            continue
        for rid in fx.rules:
            r = known.get(rid) or Rule(id=rid, name=fx.id, category=fx.category, severity=Severity.WARNING,
                                       rationale="", fix="", impact="")
            if fx.id in selection.select or selection.why_skipped(r, config) is None:
                out.add(rid)
    return out


def engine_selection(selection: Selection, fixers: list[Fixer]) -> Selection:
    """Fixer ids in --select stand for their rules (so the engine runs those rules too)."""
    by_id = {fx.id: fx.rules for fx in fixers}
    if not any(s in by_id for s in selection.select):
        return selection
    select = tuple(dict.fromkeys(r for s in selection.select for r in by_id.get(s, (s,))))
    return Selection(select=select + tuple(s for s in selection.select if s in by_id), ignore=selection.ignore)


def fix_paths(paths: Iterable[str | os.PathLike] | str | os.PathLike, unsafe: bool = False, diff_only: bool = False,
              selection: Selection | Iterable[str] | None = None, config_file: str | None = None,
              engine_rules: list[Rule] | None = None) -> FixReport:
    """Fix every notebook under `paths`; with `diff_only` nothing is written (the report carries the diffs).

    `engine_rules` limits the engine's rules used to cross-check (default: all); with `[]` every fixer relies on
    its own detector, as it does for rules that do not exist yet."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files, errors = iter_notebook_paths(list(paths))
    report = FixReport(diff_only=diff_only, unsafe=unsafe, errors=list(errors))
    sel = _as_selection(selection)
    for f in files:
        report.files.append(fix_file(str(f), unsafe=unsafe, diff_only=diff_only, selection=sel,
                                     config_file=config_file, engine_rules=engine_rules))
    for fr in report.files:
        if fr.error:
            report.errors.append(f"{fr.path}: {fr.error}")
    return report


def fix_file(path: str, unsafe: bool = False, diff_only: bool = False, selection: Selection = Selection(),
             config_file: str | None = None, engine_rules: list[Rule] | None = None) -> FileResult:
    result = FileResult(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        result.error = f"cannot read: {exc.strerror or exc}"
        return result
    nb = notebook_from_bytes(path, raw)
    if nb.error:
        result.error = f"not fixed: {nb.error}"
        return result
    if nb.format not in SPLICEABLE:
        result.error = f"format {nb.format} cannot be written back"
        return result
    try:
        config = load_config(path, explicit=config_file)
    except ConfigError as exc:
        result.error = f"configuration error: {exc}"
        return result
    known = {r.id: r for r in (all_rules() if engine_rules is None else engine_rules)}
    fixers = all_fixers()
    selection = engine_selection(selection, fixers)
    engine_report, _, _ = analyze_notebook(nb, config, selection, rules=engine_rules)
    broken = {rid for rid, why in engine_report.skipped_rules.items() if why.startswith("internal error")}
    engine = EngineFindings(engine_report, set(known) - broken)
    ctx = FixContext(WorkNotebook.from_notebook(nb), config, engine, unsafe,
                     selected_rules(fixers, selection, config, known))
    for fx in fixers:
        if not any(r in ctx.selected for r in fx.rules):
            continue
        ctx.fixer = fx
        try:
            fx.fn(ctx)
        except Exception as exc:  # a fixer bug must never lose the other fixes or the file
            ctx.left.append(Left(path, fx.rules[0], "notebook", None,
                                 f"internal error in fixer {fx.id}: {type(exc).__name__}: {exc}", fx.id))
        ctx._views = None
    result.changes, result.left = ctx.changes, ctx.left
    text = raw.decode("utf-8-sig") if raw.startswith(b"\xef\xbb\xbf") else raw.decode("utf-8")
    new_text = text
    if ctx.changes:
        try:
            new_text = _render(text, nb, ctx.work)
            _verify(text, new_text, nb)
        except (ValueError, ipynb_splice.SpliceError) as exc:
            result.error = f"not written: {exc}"
            result.changes = []
            return result
    fixed_nb = notebook_from_bytes(path, new_text.encode("utf-8")) if ctx.changes else nb
    after, _, _ = analyze_notebook(fixed_nb, config, selection, rules=engine_rules)
    _explain_remaining(result, after, ctx, fixers, fixed_nb)
    result.diff = _diff(path, ctx.work)
    if ctx.changes and not diff_only:
        bom = b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b""
        try:
            atomic_write(path, bom + new_text.encode("utf-8"), expected=raw)
            result.written = True
        except (OSError, RuntimeError) as exc:
            result.error = f"not written: {exc}"
    return result


def _render(text: str, nb: Notebook, work: WorkNotebook) -> str:
    new_sources = {wc.orig.index: wc.source for wc in work.cells if wc.orig is not None and wc.changed}
    inserts = [(wc.inserted_after if wc.inserted_after is not None else -1, wc.source)
               for wc in work.cells if wc.orig is None]
    if nb.format == "ipynb":
        return ipynb_splice.splice(text, new_sources, inserts)
    return py_splice.splice(text, nb, new_sources, inserts)


def _verify(old: str, new: str, nb: Notebook) -> None:
    """Refuse to write a notebook that no longer loads (or no longer validates, when it did before)."""
    if nb.format != "ipynb":
        return
    try:
        data = json.loads(new)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the edited notebook would not be valid JSON ({exc.msg})") from exc
    import nbformat

    def valid(payload: dict) -> bool:
        try:
            nbformat.validate(payload, version=4)
            return True
        except Exception:
            return False

    if valid(json.loads(old)) and not valid(data):
        raise ValueError("the edited notebook would fail nbformat validation")


def _explain_remaining(result: FileResult, after: Report, ctx: FixContext, fixers: list[Fixer],
                       fixed_nb: Notebook | None = None) -> None:
    fixable = {r for fx in fixers for r in fx.rules}
    already = {(x.rule_id, x.where) for x in result.left}
    explained = {x.rule_id for x in result.left if x.fixer}  # a fixer already said why this rule is left
    # `after` analysed the fixed notebook, whose cells are the work cells in order: name a finding's cell by its
    # work cell, so the label is the one the fixers used (original number, "[In k]", "new cell after ...").
    aligned = fixed_nb is None or len(fixed_nb.cells) == len(ctx.work.cells)
    for f in after.findings:
        if f.rule_id not in fixable:
            result.unfixable[f.rule_id] = result.unfixable.get(f.rule_id, 0) + 1
            continue
        index = f.location.cell
        wc = ctx.work.cells[index] if aligned and index is not None and 0 <= index < len(ctx.work.cells) else None
        if wc is not None:
            where = wc.label()
        elif index is not None:
            where = cell_label(index, f.location.execution_count)
        else:
            where = "notebook"
        if (f.rule_id, where) in already or f.rule_id in explained or f.rule_id not in ctx.selected:
            continue
        unparsable = ctx.unparsable_reason(wc) if wc is not None else None
        reason = (f"{unparsable}, so it was not fixed automatically" if unparsable else
                  "this shape of the problem has no automatic fix; " + (f.fix or f.message))
        result.left.append(Left(result.path, f.rule_id, where, f.location.line, reason))


def _diff(path: str, work: WorkNotebook) -> str:
    out: list[str] = []
    for wc in work.cells:
        if not wc.changed:
            continue
        old = wc.orig.source if wc.orig is not None else ""
        a = f"{path} ({wc.label()})" if wc.orig is not None else "/dev/null"
        b = f"{path} ({wc.label()})"
        old_lines = (old + "\n").splitlines(keepends=True) if old else []
        new_lines = (wc.source + "\n").splitlines(keepends=True)
        out.extend(difflib.unified_diff(old_lines, new_lines, fromfile=a, tofile=b))
    return "".join(out)


def atomic_write(path: str, data: bytes, expected: bytes | None = None) -> None:
    """Write through a temporary file in the same folder and `os.replace`; refuse when the file changed since
    it was read (another editor saved it), so no user content is lost."""
    target = Path(path)
    if expected is not None and target.read_bytes() != expected:
        raise RuntimeError("the file changed on disk while it was being fixed; run fix again")
    mode = target.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tg-fix", dir=str(target.parent))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
