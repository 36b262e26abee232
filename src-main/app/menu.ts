/**
 * The desktop app's menu, as a template built from plain actions.
 *
 * Kept apart from Electron so it is tested without it: main.ts passes the actions (dialogs,
 * navigation) and hands the template to `Menu.buildFromTemplate`.
 */
import type { MenuItemConstructorOptions } from 'electron';

/** What the menu's items do. */
export interface MenuActions {
  importBundle(): void;
  verifyFile(): void;
  exportBundle(): void;
  saveVerifier(): void;
  /** Shows a route of the app, e.g. `/receipts`. */
  show(route: string): void;
  openDataFolder(): void;
}

/**
 * The application menu.
 *
 * @param actions - What each item does.
 * @param platform - `process.platform`: macOS gets the application menu first.
 * @returns The template for `Menu.buildFromTemplate`.
 */
export function applicationMenu(actions: MenuActions, platform: string): MenuItemConstructorOptions[] {
  if (typeof actions !== 'object' || actions === null) throw new TypeError('applicationMenu expects the menu actions');
  const template: MenuItemConstructorOptions[] = [
    {
      label: 'File',
      submenu: [
        { label: 'Import bundle…', accelerator: 'CmdOrCtrl+O', click: () => actions.importBundle() },
        { label: 'Verify file…', accelerator: 'CmdOrCtrl+Shift+O', click: () => actions.verifyFile() },
        { label: 'Export…', accelerator: 'CmdOrCtrl+E', click: () => actions.exportBundle() },
        { type: 'separator' },
        { label: 'Save reference verifier…', click: () => actions.saveVerifier() },
        // macOS quits from the application menu.
        ...(platform === 'darwin' ? [] : [{ type: 'separator' as const }, { role: 'quit' as const }]),
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { label: 'Overview', accelerator: 'CmdOrCtrl+1', click: () => actions.show('/overview') },
        { label: 'Receipts', accelerator: 'CmdOrCtrl+2', click: () => actions.show('/receipts') },
        { label: 'Bundles', accelerator: 'CmdOrCtrl+3', click: () => actions.show('/bundles') },
        { label: 'Trust store', accelerator: 'CmdOrCtrl+4', click: () => actions.show('/trust') },
        { label: 'Verify', accelerator: 'CmdOrCtrl+5', click: () => actions.show('/verify') },
        { label: 'Reports', accelerator: 'CmdOrCtrl+6', click: () => actions.show('/reports') },
        { label: 'Service', accelerator: 'CmdOrCtrl+7', click: () => actions.show('/service') },
        { type: 'separator' },
        { role: 'reload' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    {
      label: 'Help',
      submenu: [{ label: 'Open data folder', click: () => actions.openDataFolder() }, { role: 'about' }],
    },
  ];
  return platform === 'darwin' ? [{ role: 'appMenu' }, ...template] : template;
}
