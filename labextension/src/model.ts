/**
 * The findings model as served by `GET /trainguard/findings` (the engine's `Report.to_dict()`) and as
 * stored by `%%guarded_train` / `%trainaudit` in cell outputs. No analysis happens in TypeScript.
 */

export const RUN_MIME = 'application/vnd.trainguard.run+json';
export const AUDIT_MIME = 'application/vnd.trainguard.audit+json';
export const FINDINGS_MIME = 'application/vnd.trainguard.findings+json';
export const RUNTIME_MIME_TYPES = [RUN_MIME, AUDIT_MIME, FINDINGS_MIME];

export const SEVERITIES = ['error', 'warning', 'info'];

export interface ILocation {
  path?: string;
  /** 0-based index over all cells, markdown included (`cell` is the same number, kept for old payloads). */
  cell_index?: number;
  cell?: number;
  cell_id?: string;
  line?: number;
  column?: number;
  end_line?: number;
  file_line?: number;
  execution_count?: number;
}

/**
 * What a leak did to the reported metric (`evidence.impact`, written by `jupyter_trainguard.impact`): the score
 * refitted without the leak, or why it could not be measured.
 */
export interface IMeasuredImpact {
  /** "measured" or "not measured". */
  status: string;
  /** "reported accuracy 0.758; refitted without the leak 0.622 (−13.6 points)" when measured. */
  summary: string;
  /** Why it was not measured (empty when measured). */
  reason: string;
  /** "inflated", "deflated", "no measurable effect", "undetermined" or "". */
  verdict: string;
}

export interface IFinding {
  rule_id: string;
  rule_name: string;
  severity: string;
  category: string;
  message: string;
  location: ILocation;
  impact: string;
  fix: string;
  source: string;
  /** The measured effect of this leak on the score, when the run measured (or tried to) it. */
  measured: IMeasuredImpact | null;
}

export interface IReport {
  path: string;
  error?: string | null;
  cells?: number;
  elapsed_ms?: number;
  findings: IFinding[];
}

/** A finding placed in the open document: which cell (notebooks) or file line (editors) it points at. */
export interface IPlacedFinding {
  finding: IFinding;
  /** The cell to select on click (0-based over all cells). */
  cell: number | null;
  line: number | null;
  origin: 'static' | 'runtime';
  /** How the finding names its cell: "cell 5 [In 3]", "[In 3]" or "" (see `cellLabel`). */
  label: string;
}

/**
 * The one spelling of a cell, as the Python side writes it: "cell 5 [In 3]" ("cell N" 1-based over all
 * cells as JupyterLab counts them, then the execution count when known); "[In 3]" when only the count is
 * known; "" when neither is.
 */
export function cellLabel(index: number | null | undefined, count: number | null | undefined): string {
  const parts: string[] = [];
  if (index !== null && index !== undefined) {
    parts.push(`cell ${index + 1}`);
  }
  if (count !== null && count !== undefined) {
    parts.push(`[In ${count}]`);
  }
  return parts.join(' ');
}

export interface IRuleGroup {
  ruleId: string;
  ruleName: string;
  items: IPlacedFinding[];
}

export interface ISeverityGroup {
  severity: string;
  rules: IRuleGroup[];
  count: number;
}

function str(value: unknown): string {
  if (value === null || value === undefined) {
    return '';
  }
  return typeof value === 'string' ? value : String(value);
}

function int(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

/** `evidence.impact` of untrusted finding JSON, or null when there is none (or it is not a record). */
export function toMeasuredImpact(evidence: unknown): IMeasuredImpact | null {
  if (!evidence || typeof evidence !== 'object' || Array.isArray(evidence)) {
    return null;
  }
  const rec = (evidence as Record<string, unknown>).impact;
  if (!rec || typeof rec !== 'object' || Array.isArray(rec)) {
    return null;
  }
  const r = rec as Record<string, unknown>;
  const status = str(r.status);
  const summary = str(r.summary);
  const reason = str(r.reason);
  if (!status || (status === 'measured' ? !summary : !(reason || summary))) {
    return null;
  }
  return { status, summary, reason, verdict: str(r.verdict) };
}

/** The one line the panel shows: the summary when measured, else "not measured: <reason>". */
export function measuredLine(m: IMeasuredImpact): string {
  if (m.status === 'measured') {
    return m.summary;
  }
  if (m.reason) {
    return `not measured: ${m.reason}`;
  }
  return m.summary.startsWith('not measured') ? m.summary : `not measured: ${m.summary}`;
}

/** Coerce untrusted JSON (server answer or a saved cell output) into a finding, or null if it is none. */
export function toFinding(raw: unknown): IFinding | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    return null;
  }
  const r = raw as Record<string, unknown>;
  if (typeof r.rule_id !== 'string' || r.message === undefined) {
    return null;
  }
  const loc = (r.location && typeof r.location === 'object' ? r.location : {}) as Record<string, unknown>;
  return {
    rule_id: r.rule_id,
    rule_name: str(r.rule_name),
    severity: str(r.severity).toLowerCase() || 'info',
    category: str(r.category),
    message: str(r.message),
    impact: str(r.impact),
    fix: str(r.fix),
    source: str(r.source) || 'static',
    measured: toMeasuredImpact(r.evidence),
    location: {
      path: str(loc.path),
      cell_index: int(loc.cell_index) ?? int(loc.cell),
      cell: int(loc.cell_index) ?? int(loc.cell),
      cell_id: typeof loc.cell_id === 'string' ? loc.cell_id : undefined,
      line: int(loc.line),
      column: int(loc.column),
      end_line: int(loc.end_line),
      file_line: int(loc.file_line),
      execution_count: int(loc.execution_count)
    }
  };
}

/** Every `findings` list in a runtime payload (top level, or nested one or two levels down). */
export function findingsInPayload(payload: unknown, depth = 0): IFinding[] {
  if (!payload || typeof payload !== 'object' || depth > 2) {
    return [];
  }
  if (Array.isArray(payload)) {
    return payload.flatMap(p => findingsInPayload(p, depth + 1));
  }
  const out: IFinding[] = [];
  for (const [key, value] of Object.entries(payload as Record<string, unknown>)) {
    if (key === 'findings' && Array.isArray(value)) {
      for (const raw of value) {
        const f = toFinding(raw);
        if (f) {
          out.push(f);
        }
      }
    } else if (value && typeof value === 'object') {
      out.push(...findingsInPayload(value, depth + 1));
    }
  }
  return out;
}

/** One code cell's outputs as mime bundles: `[cellIndex, [bundle, ...]]`. */
export type CellOutputs = [number, Array<Record<string, unknown>>];

/** Whether a finding's location is in the open document (or the kernel session running it). */
function sameDocument(path: string | undefined, docPath: string): boolean {
  if (!path || path.startsWith('<') || !docPath) {
    return true;
  }
  return path === docPath || path.endsWith('/' + docPath);
}

/**
 * Where a finding saved in the output of cell `index` points: its own `cell_index` when the kernel knew
 * the notebook; else the one cell now showing its execution count; else the cell holding the output.
 * `counts` are the live execution counts, one per cell (null: none); `docPath` is the open notebook's path.
 * A finding about another file stays at the output and names that file.
 */
export function placeRuntime(
  finding: IFinding,
  index: number,
  counts: Array<number | null>,
  docPath = ''
): IPlacedFinding {
  const loc = finding.location;
  const line = loc.line ?? null;
  const count = loc.execution_count;
  const place = (cell: number, label: string): IPlacedFinding => ({
    finding,
    cell,
    line,
    origin: 'runtime',
    label
  });
  if (!sameDocument(loc.path, docPath)) {
    return place(index, [loc.path, cellLabel(loc.cell_index, count)].filter(Boolean).join(' '));
  }
  if (loc.cell_index !== undefined && loc.cell_index < Math.max(counts.length, index + 1)) {
    return place(loc.cell_index, cellLabel(loc.cell_index, count ?? counts[loc.cell_index] ?? null));
  }
  if (count !== undefined) {
    const at = counts.indexOf(count);
    const unique = at >= 0 && counts.lastIndexOf(count) === at;
    return unique ? place(at, cellLabel(at, count)) : place(index, cellLabel(null, count));
  }
  return place(index, cellLabel(index, counts[index] ?? null));
}

/** Runtime findings stored in cell outputs, placed by `placeRuntime`. */
export function runtimeFindings(
  cells: CellOutputs[],
  counts: Array<number | null> = [],
  docPath = ''
): IPlacedFinding[] {
  const out: IPlacedFinding[] = [];
  for (const [index, bundles] of cells) {
    for (const bundle of bundles) {
      for (const mime of RUNTIME_MIME_TYPES) {
        if (bundle[mime] !== undefined) {
          for (const finding of findingsInPayload(bundle[mime])) {
            out.push(placeRuntime(finding, index, counts, docPath));
          }
        }
      }
    }
  }
  return out;
}

/** Place a static report's findings: notebooks by cell, text editors by file line. */
export function placeStatic(report: IReport, kind: 'notebook' | 'editor'): IPlacedFinding[] {
  return (report.findings || [])
    .map(toFinding)
    .filter((f): f is IFinding => f !== null)
    .map(finding => {
      const loc = finding.location;
      if (kind === 'editor') {
        const line = loc.file_line ?? loc.line ?? null;
        return { finding, cell: null, line, origin: 'static' as const, label: '' };
      }
      const cell = loc.cell_index ?? null;
      const label = cellLabel(cell, loc.execution_count);
      return { finding, cell, line: loc.line ?? null, origin: 'static' as const, label };
    });
}

function severityRank(sev: string): number {
  const i = SEVERITIES.indexOf(sev);
  return i < 0 ? SEVERITIES.length : i;
}

/** Group by severity (error, warning, info, other), then by rule id; items by cell and line. */
export function groupFindings(items: IPlacedFinding[]): ISeverityGroup[] {
  const bySev = new Map<string, Map<string, IRuleGroup>>();
  for (const item of items) {
    const sev = item.finding.severity;
    if (!bySev.has(sev)) {
      bySev.set(sev, new Map());
    }
    const rules = bySev.get(sev)!;
    const id = item.finding.rule_id;
    if (!rules.has(id)) {
      rules.set(id, { ruleId: id, ruleName: item.finding.rule_name, items: [] });
    }
    rules.get(id)!.items.push(item);
  }
  const pos = (i: IPlacedFinding) => [i.cell ?? -1, i.line ?? 0];
  return [...bySev.entries()]
    .sort((a, b) => severityRank(a[0]) - severityRank(b[0]) || a[0].localeCompare(b[0]))
    .map(([severity, rules]) => {
      const groups = [...rules.values()].sort((a, b) => a.ruleId.localeCompare(b.ruleId));
      for (const g of groups) {
        g.items.sort((a, b) => {
          const [ca, la] = pos(a);
          const [cb, lb] = pos(b);
          return ca - cb || la - lb;
        });
      }
      return { severity, rules: groups, count: groups.reduce((n, g) => n + g.items.length, 0) };
    });
}
