/** The right side panel: findings of the active notebook (or `.py` file in the editor), one click from the cell. */

import { DocumentRegistry, IDocumentWidget } from '@jupyterlab/docregistry';
import { FileEditor } from '@jupyterlab/fileeditor';
import { NotebookPanel } from '@jupyterlab/notebook';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import { shieldIcon } from './icon';
import {
  CellOutputs,
  groupFindings,
  IPlacedFinding,
  IReport,
  placeStatic,
  runtimeFindings
} from './model';
import { countsLine, el, groupsNode } from './render';

export type Target =
  | { kind: 'notebook'; widget: NotebookPanel }
  | { kind: 'editor'; widget: IDocumentWidget<FileEditor> };

export interface IFindingsPanelOptions {
  fetch: (path: string) => Promise<IReport>;
  /** Bring the document to the front (shell.activateById). */
  activate: (widget: Widget) => void;
}

export class FindingsPanel extends Widget {
  constructor(options: IFindingsPanelOptions) {
    super();
    this._options = options;
    this.id = 'trainguard-panel';
    this.addClass('jp-TrainGuardPanel');
    this.title.icon = shieldIcon;
    this.title.caption = 'TrainGuard findings';

    const header = el('div', 'jp-TrainGuardPanel-header');
    header.appendChild(el('h2', 'jp-TrainGuardPanel-title', 'TrainGuard'));
    const refresh = el('button', 'jp-TrainGuardPanel-refresh jp-Button jp-mod-minimal', 'Refresh');
    refresh.title = 'Analyse the saved file again';
    refresh.addEventListener('click', () => void this.refresh());
    header.appendChild(refresh);
    this._path = el('div', 'jp-TrainGuardPanel-path');
    this._summary = el('div', 'jp-TrainGuardPanel-summary');
    this._status = el('div', 'jp-TrainGuardPanel-status');
    this._list = el('div', 'jp-TrainGuardPanel-list');
    this.node.append(header, this._path, this._summary, this._status, this._list);
    this._renderEmpty();
  }

  /** Total findings shown; emitted for the tab badge. */
  get count(): number {
    return this._count;
  }

  get countChanged(): ISignal<this, number> {
    return this._countChanged;
  }

  get target(): Target | null {
    return this._target;
  }

  /** Follow another document (or none); refreshes at once. */
  setTarget(target: Target | null): void {
    if (target?.widget === this._target?.widget) {
      return;
    }
    this._disconnect();
    this._target = target;
    this._report = null;
    if (target) {
      const ctx = target.widget.context as DocumentRegistry.IContext<DocumentRegistry.IModel>;
      ctx.saveState.connect(this._onSaveState, this);
      target.widget.disposed.connect(this._onTargetDisposed, this);
      if (target.kind === 'notebook') {
        target.widget.model?.contentChanged.connect(this._onContentChanged, this);
      }
    }
    void this.refresh();
  }

  /** Ask the server for the saved file's findings and re-read runtime results from the outputs. */
  async refresh(): Promise<void> {
    const target = this._target;
    const seq = ++this._seq;
    if (!target) {
      this._renderEmpty();
      return;
    }
    await target.widget.context.ready;
    if (seq !== this._seq) {
      return;
    }
    const path = target.widget.context.path;
    this._path.textContent = path;
    this._path.title = path;
    this._status.textContent = 'Analysing…';
    this._status.className = 'jp-TrainGuardPanel-status jp-mod-busy';
    try {
      const report = await this._options.fetch(path);
      if (seq !== this._seq) {
        return;
      }
      this._report = report;
      this._status.textContent = report.error ? `Could not read the notebook: ${report.error}` : '';
      this._status.className = 'jp-TrainGuardPanel-status' + (report.error ? ' jp-mod-error' : '');
    } catch (err) {
      if (seq !== this._seq) {
        return;
      }
      this._report = null;
      const message = err instanceof Error ? err.message : String(err);
      this._status.textContent = `Static findings unavailable: ${message}`;
      this._status.className = 'jp-TrainGuardPanel-status jp-mod-error';
    }
    this._render();
  }

  protected onAfterShow(): void {
    this._render();
  }

  private _renderEmpty(): void {
    this._path.textContent = '';
    this._status.textContent = 'Open a notebook (or a .py file) to see its findings.';
    this._status.className = 'jp-TrainGuardPanel-status';
    this._summary.textContent = '';
    this._list.replaceChildren();
    this._setCount(0);
  }

  private _render(): void {
    const target = this._target;
    if (!target) {
      return;
    }
    const items: IPlacedFinding[] = this._report ? placeStatic(this._report, target.kind) : [];
    if (target.kind === 'notebook') {
      const path = target.widget.context.path;
      items.push(...runtimeFindings(this._cellOutputs(target.widget), this._executionCounts(target.widget), path));
    }
    const groups = groupFindings(items);
    this._summary.textContent = countsLine(groups);
    this._list.replaceChildren(groupsNode(groups, item => this._select(item)));
    this._setCount(items.length);
  }

  /** The execution count each cell shows now (`[3]`), null for markdown cells and cells never run. */
  private _executionCounts(panel: NotebookPanel): Array<number | null> {
    const cells = panel.model?.cells;
    const out: Array<number | null> = [];
    for (let i = 0; cells && i < cells.length; i++) {
      const cell = cells.get(i) as any;
      const count = cell.type === 'code' ? cell.executionCount : null;
      out.push(typeof count === 'number' ? count : null);
    }
    return out;
  }

  private _cellOutputs(panel: NotebookPanel): CellOutputs[] {
    const out: CellOutputs[] = [];
    const cells = panel.model?.cells;
    if (!cells) {
      return out;
    }
    for (let i = 0; i < cells.length; i++) {
      const cell = cells.get(i) as any;
      const outputs = cell.type === 'code' ? cell.outputs : null;
      if (!outputs || !outputs.length) {
        continue;
      }
      const bundles: Array<Record<string, unknown>> = [];
      for (let j = 0; j < outputs.length; j++) {
        const data = outputs.get(j)?.data;
        if (data) {
          bundles.push(data as Record<string, unknown>);
        }
      }
      out.push([i, bundles]);
    }
    return out;
  }

  private _select(item: IPlacedFinding): void {
    const target = this._target;
    if (!target) {
      return;
    }
    this._options.activate(target.widget);
    if (target.kind === 'notebook') {
      const nb = target.widget.content;
      if (item.cell === null || item.cell >= nb.widgets.length) {
        return;
      }
      nb.deselectAll();
      nb.activeCellIndex = item.cell;
      const cell = nb.widgets[item.cell];
      void nb.scrollToCell(cell, 'center');
      if (item.line !== null && cell.editor) {
        cell.editor.setCursorPosition({ line: Math.max(item.line - 1, 0), column: 0 });
      }
      nb.mode = 'command';
      nb.node.focus();
    } else if (item.line !== null) {
      const editor = target.widget.content.editor;
      const position = { line: Math.max(item.line - 1, 0), column: 0 };
      editor.setCursorPosition(position);
      editor.revealPosition(position);
      editor.focus();
    }
  }

  private _setCount(n: number): void {
    // Keep the shell's entries (it stores `id` there for the tab's data-id); only touch ours.
    const dataset: Record<string, string> = { ...this.title.dataset };
    delete dataset['trainguard-count'];
    if (n > 0) {
      dataset['trainguard-count'] = String(n);
    }
    this.title.dataset = dataset;
    this.title.caption = n > 0 ? `TrainGuard findings (${n})` : 'TrainGuard findings';
    if (n !== this._count) {
      this._count = n;
      this._countChanged.emit(n);
    }
  }

  private _onSaveState(_: unknown, state: DocumentRegistry.SaveState): void {
    if (state === 'completed') {
      void this.refresh();
    }
  }

  private _onContentChanged(): void {
    // Outputs change while cells run: re-read runtime results (cheap, no server call), debounced.
    window.clearTimeout(this._debounce);
    this._debounce = window.setTimeout(() => {
      const t = this._target;
      if (t?.kind === 'notebook') {
        const key = JSON.stringify(
          runtimeFindings(this._cellOutputs(t.widget), this._executionCounts(t.widget), t.widget.context.path)
        );
        if (key !== this._runtimeKey) {
          this._runtimeKey = key;
          this._render();
        }
      }
    }, 400);
  }

  private _onTargetDisposed(): void {
    if (this._target) {
      this._target = null;
      this._report = null;
      this._renderEmpty();
    }
  }

  private _disconnect(): void {
    const t = this._target;
    if (!t) {
      return;
    }
    Signal.disconnectReceiver(this);
    window.clearTimeout(this._debounce);
  }

  private _options: IFindingsPanelOptions;
  private _target: Target | null = null;
  private _report: IReport | null = null;
  private _seq = 0;
  private _count = 0;
  private _debounce = 0;
  private _runtimeKey = '';
  private _countChanged = new Signal<this, number>(this);
  private _path: HTMLDivElement;
  private _summary: HTMLDivElement;
  private _status: HTMLDivElement;
  private _list: HTMLDivElement;
}
