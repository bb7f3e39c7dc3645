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
  cell?: number;
  line?: number;
  column?: number;
  end_line?: number;
  file_line?: number;
  execution_count?: number;
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
  cell: number | null;
  line: number | null;
  origin: 'static' | 'runtime';
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
    location: {
      path: str(loc.path),
      cell: int(loc.cell),
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

/** Runtime findings stored in cell outputs; each points at the cell whose output holds it. */
export function runtimeFindings(cells: CellOutputs[]): IPlacedFinding[] {
  const out: IPlacedFinding[] = [];
  for (const [index, bundles] of cells) {
    for (const bundle of bundles) {
      for (const mime of RUNTIME_MIME_TYPES) {
        if (bundle[mime] !== undefined) {
          for (const finding of findingsInPayload(bundle[mime])) {
            out.push({ finding, cell: index, line: finding.location.line ?? null, origin: 'runtime' });
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
        return { finding, cell: null, line: loc.file_line ?? loc.line ?? null, origin: 'static' as const };
      }
      return { finding, cell: loc.cell ?? null, line: loc.line ?? null, origin: 'static' as const };
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
