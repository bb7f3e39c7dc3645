/**
 * jupyter-trainguard JupyterLab plugin: a right side panel with the findings of the active notebook,
 * a command-palette and launcher entry, and a count badge on the panel's tab.
 */

import { ILabShell, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IDocumentWidget } from '@jupyterlab/docregistry';
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

    const targetOf = (w: Widget | null): Target | null => {
      if (w && notebooks?.has(w)) {
        return { kind: 'notebook', widget: w as NotebookPanel };
      }
      if (w && editors?.has(w)) {
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
    shell.currentChanged.connect((_, args) => follow(args.newValue));
    notebooks?.currentChanged.connect((_, nb) => nb && nb === shell.currentWidget && follow(nb));
    editors?.currentChanged.connect((_, ed) => ed && ed === shell.currentWidget && follow(ed));
    void app.restored.then(() => follow(shell.currentWidget));

    app.commands.addCommand(OPEN, {
      label: 'TrainGuard: Show Findings Panel',
      caption: 'Findings of the active notebook, grouped by severity and rule',
      icon: args => (args['isPalette'] ? undefined : shieldIcon),
      execute: () => {
        shell.activateById(panel.id);
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
