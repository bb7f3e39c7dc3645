/**
 * Renders `%%guarded_train` / `%trainaudit` results saved in notebooks (no kernel needed): the
 * application/vnd.trainguard.*+json payloads, ranked above text/html. Text only, via textContent.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { cellLabel, findingsInPayload, groupFindings, RUN_MIME, AUDIT_MIME, RUNTIME_MIME_TYPES } from './model';
import { countsLine, el, groupsNode } from './render';

const TITLES: Record<string, string> = {
  [RUN_MIME]: 'TrainGuard: guarded training run',
  [AUDIT_MIME]: 'TrainGuard: audit'
};

function scalars(payload: unknown): Array<[string, string]> {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
    return [];
  }
  const out: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(payload as Record<string, unknown>)) {
    if (['string', 'number', 'boolean'].includes(typeof v) && String(v).length <= 200) {
      out.push([k, String(v)]);
    }
  }
  return out.slice(0, 12);
}

export class TrainGuardOutput extends Widget implements IRenderMime.IRenderer {
  constructor(options: IRenderMime.IRendererOptions) {
    super();
    this._mimeType = options.mimeType;
    this.addClass('jp-TrainGuardOutput');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const payload = model.data[this._mimeType] as unknown;
    const items = findingsInPayload(payload).map(finding => ({
      finding,
      cell: null,
      line: finding.location.line ?? null,
      origin: 'runtime' as const,
      label: cellLabel(finding.location.cell_index, finding.location.execution_count)
    }));
    const groups = groupFindings(items);
    const head = el('div', 'jp-TrainGuardOutput-head');
    head.append(
      el('strong', 'jp-TrainGuardOutput-title', TITLES[this._mimeType] ?? 'TrainGuard'),
      el('span', 'jp-TrainGuardOutput-summary', countsLine(groups))
    );
    const facts = scalars(payload);
    const nodes: HTMLElement[] = [head];
    if (facts.length) {
      const dl = el('dl', 'jp-TrainGuardOutput-facts');
      for (const [k, v] of facts) {
        dl.append(el('dt', undefined, k), el('dd', undefined, v));
      }
      nodes.push(dl);
    }
    nodes.push(groupsNode(groups));
    this.node.replaceChildren(...nodes);
    return Promise.resolve();
  }

  private _mimeType: string;
}

export const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: RUNTIME_MIME_TYPES,
  defaultRank: 40,
  createRenderer: options => new TrainGuardOutput(options)
};

const extension: IRenderMime.IExtension = {
  id: 'jupyter-trainguard:mime',
  description: 'Renders TrainGuard run and audit results saved in notebooks.',
  rendererFactory,
  rank: 40,
  dataType: 'json'
};

export default extension;
