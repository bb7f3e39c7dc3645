/**
 * DOM builders shared by the side panel and the output renderer. Every piece of text is set with
 * `textContent`, never `innerHTML`, so notebook content (cell code, column names, file names) stays inert.
 */

import { IFinding, IPlacedFinding, ISeverityGroup, measuredLine, SEVERITIES } from './model';

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

export function severityClass(severity: string): string {
  return 'jp-TrainGuard-sev-' + (SEVERITIES.includes(severity) ? severity : 'other');
}

export function placeLabel(item: IPlacedFinding): string {
  const parts: string[] = [];
  if (item.label) {
    parts.push(item.label);
  }
  if (item.line !== null) {
    parts.push(`line ${item.line}`);
  }
  return parts.join(', ');
}

const CODE_SPAN = /`([^`\n]+)`/g;

/** Text whose Markdown code spans (`X_test`) become <code> elements; everything else stays plain text. */
export function inlineCode(className: string, text: string): HTMLElement {
  const node = el('div', className);
  appendInlineCode(node, text);
  return node;
}

/** Append `text` to `node`: code spans as <code> (set through textContent), the rest as text nodes. */
export function appendInlineCode(node: HTMLElement, text: string): void {
  let last = 0;
  CODE_SPAN.lastIndex = 0;
  for (let m = CODE_SPAN.exec(text); m !== null; m = CODE_SPAN.exec(text)) {
    const at = m.index;
    if (at > last) {
      node.append(document.createTextNode(text.slice(last, at)));
    }
    node.append(el('code', undefined, m[1]));
    last = at + m[0].length;
  }
  if (last < text.length) {
    node.append(document.createTextNode(text.slice(last)));
  }
}

/** The measured effect of a leak on the score: one line, classed by status and verdict for the colour. */
export function measuredNode(f: IFinding): HTMLElement | null {
  const m = f.measured;
  if (!m) {
    return null;
  }
  const measured = m.status === 'measured';
  const node = el('div', 'jp-TrainGuard-measured ' + (measured ? 'jp-mod-measured' : 'jp-mod-unmeasured'));
  node.dataset.status = m.status;
  if (measured && m.verdict) {
    node.dataset.verdict = m.verdict;
  }
  node.append(el('span', 'jp-TrainGuard-label', 'Effect on the score: '));
  appendInlineCode(node, measuredLine(m));
  return node;
}

/** One finding: location and rule, the message, the measured effect on the score, then impact and fix. */
export function findingNode(f: IFinding, place: string, origin?: string): HTMLElement {
  const node = el('div', 'jp-TrainGuard-finding ' + severityClass(f.severity));
  node.dataset.rule = f.rule_id;
  const head = el('div', 'jp-TrainGuard-findingHead');
  if (place) {
    head.appendChild(el('span', 'jp-TrainGuard-place', place));
  }
  if (origin === 'runtime') {
    head.appendChild(el('span', 'jp-TrainGuard-tag', 'runtime'));
  }
  node.appendChild(head);
  node.appendChild(inlineCode('jp-TrainGuard-message', f.message));
  const measured = measuredNode(f);
  if (measured) {
    node.appendChild(measured);
  }
  if (f.impact) {
    const p = el('div', 'jp-TrainGuard-impact');
    p.append(el('span', 'jp-TrainGuard-label', 'Impact: '));
    appendInlineCode(p, f.impact);
    node.appendChild(p);
  }
  if (f.fix) {
    const p = el('div', 'jp-TrainGuard-fix');
    p.append(el('span', 'jp-TrainGuard-label', 'Fix: '));
    appendInlineCode(p, f.fix);
    node.appendChild(p);
  }
  return node;
}

export function countsLine(groups: ISeverityGroup[]): string {
  const total = groups.reduce((n, g) => n + g.count, 0);
  if (!total) {
    return 'No findings';
  }
  const parts = groups.map(g => `${g.count} ${g.severity}${g.count === 1 ? '' : 's'}`);
  return `${total} finding${total === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/**
 * Severity sections, each with rule groups (`<details>`, open) listing the findings.
 * `onSelect` makes a finding clickable (and keyboard-activatable) when given.
 */
export function groupsNode(groups: ISeverityGroup[], onSelect?: (item: IPlacedFinding) => void): HTMLElement {
  const root = el('div', 'jp-TrainGuard-groups');
  for (const g of groups) {
    const section = el('section', 'jp-TrainGuard-severity ' + severityClass(g.severity));
    section.dataset.severity = g.severity;
    const h = el('h3', 'jp-TrainGuard-severityHead');
    h.append(el('span', 'jp-TrainGuard-sevDot'), document.createTextNode(`${g.severity} (${g.count})`));
    section.appendChild(h);
    for (const rule of g.rules) {
      const details = el('details', 'jp-TrainGuard-rule');
      details.open = true;
      details.dataset.rule = rule.ruleId;
      const summary = el('summary', 'jp-TrainGuard-ruleHead');
      summary.append(
        el('span', 'jp-TrainGuard-ruleId', rule.ruleId),
        el('span', 'jp-TrainGuard-ruleName', rule.ruleName),
        el('span', 'jp-TrainGuard-ruleCount', String(rule.items.length))
      );
      details.appendChild(summary);
      for (const item of rule.items) {
        const node = findingNode(item.finding, placeLabel(item), item.origin);
        if (item.cell !== null) {
          node.dataset.cell = String(item.cell);
        }
        if (item.line !== null) {
          node.dataset.line = String(item.line);
        }
        if (onSelect && (item.cell !== null || item.line !== null)) {
          node.classList.add('jp-mod-clickable');
          node.tabIndex = 0;
          node.title = 'Go to ' + placeLabel(item);
          node.addEventListener('click', () => onSelect(item));
          node.addEventListener('keydown', (ev: KeyboardEvent) => {
            if (ev.key === 'Enter' || ev.key === ' ') {
              ev.preventDefault();
              onSelect(item);
            }
          });
        }
        details.appendChild(node);
      }
      section.appendChild(details);
    }
    root.appendChild(section);
  }
  return root;
}
