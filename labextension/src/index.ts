/**
 * jupyter-trainguard JupyterLab plugin: a right side panel with the findings of the active notebook,
 * a command-palette and launcher entry, and a count badge on the panel's tab.
 */

import { ILabShell, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { DocumentWidget, IDocumentWidget } from '@jupyterlab/docregistry';
import { FileEditor, IEditorTracker } from '@jupyterlab/fileeditor';
import { ILauncher } from '@jupyterlab/launcher';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { shieldIcon } from './icon';
import { FindingsPanel, Target } from './panel';
import { fetchFindings } from './request';

const OPEN = 'trainguard:open-panel';
const REFRESH = 'trainguard:refresh';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-trainguard:panel',
  description: 'Side panel with the TrainGuard findings of the active notebook.',
  autoStart: true,
  requires: [ILabShell],
  optional: [INotebookTracker, IEditorTracker, ICommandPalette, ILauncher],
  activate: (
    app: JupyterFrontEnd,
    shell: ILabShell,
    notebooks: INotebookTracker | null,
    editors: IEditorTracker | null,
    palette: ICommandPalette | null,
    launcher: ILauncher | null
  ) => {
    const settings = app.serviceManager.serverSettings;
    const panel = new FindingsPanel({
      fetch: path => fetchFindings(path, settings),
      activate: (w: Widget) => shell.activateById(w.id)
    });
    shell.add(panel, 'right', { rank: 650 });

    // Trackers only hold widgets of the default factories; notebooks opened through another factory
    // (jupytext's "Jupytext Notebook" for .py/.md files) are still NotebookPanels.
    const targetOf = (w: Widget | null): Target | null => {
      if (w && (notebooks?.has(w) || w instanceof NotebookPanel)) {
        return { kind: 'notebook', widget: w as NotebookPanel };
      }
      if (w && (editors?.has(w) || (w instanceof DocumentWidget && w.content instanceof FileEditor))) {
        return { kind: 'editor', widget: w as IDocumentWidget<FileEditor> };
      }
      return null;
    };
    const follow = (w: Widget | null) => {
      const t = targetOf(w);
      if (t) {
        panel.setTarget(t);
      }
    };
    // A document can be shown without ever taking focus (opened by a command behind a dialog): then follow
    // the visible document of the main area.
    const visibleDocument = (): Widget | null => {
      for (const w of shell.widgets('main')) {
        if (w.isVisible && targetOf(w)) {
          return w;
        }
      }
      return null;
    };
    const followVisible = () => {
      const t = panel.target;
      if (!t || !t.widget.isVisible) {
        const current = shell.currentWidget;
        follow(targetOf(current) ? current : visibleDocument());
      }
    };
    shell.currentChanged.connect((_, args) => follow(args.newValue));
    shell.layoutModified.connect(followVisible);
    notebooks?.currentChanged.connect((_, nb) => nb && nb === shell.currentWidget && follow(nb));
    editors?.currentChanged.connect((_, ed) => ed && ed === shell.currentWidget && follow(ed));
    void app.restored.then(followVisible);

    app.commands.addCommand(OPEN, {
      label: 'TrainGuard: Show Findings Panel',
      caption: 'Findings of the active notebook, grouped by severity and rule',
      icon: args => (args['isPalette'] ? undefined : shieldIcon),
      execute: () => {
        shell.activateById(panel.id);
        followVisible();
        return panel.refresh();
      }
    });
    app.commands.addCommand(REFRESH, {
      label: 'TrainGuard: Refresh Findings',
      execute: () => panel.refresh()
    });
    if (palette) {
      palette.addItem({ command: OPEN, category: 'TrainGuard' });
      palette.addItem({ command: REFRESH, category: 'TrainGuard' });
    }
    if (launcher) {
      launcher.add({ command: OPEN, category: 'Other', rank: 90 });
    }
  }
};

export default plugin;
