/**
 * The Electron entry: one window, a strict CSP, no remote content, validated IPC.
 *
 * The shell is thin on purpose: everything it offers is the app API (src-main/appapi), which
 * local web mode serves too, so every capability is reachable and tested without Electron.
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, protocol, session, shell, net, type IpcMainInvokeEvent, type MenuItemConstructorOptions } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFile } from 'node:fs/promises';
import { createAppApi, type AppApiDispatcher } from '../appapi/app-api';
import { resolveDataDirectory } from '../ledger/data-directory';
import { describeError } from '../operations/errors';
import { createServiceControl } from './service-control';
import { APP_ORIGIN, APP_PROTOCOL, CONTENT_SECURITY_POLICY, isTrustedSender, secureWebPreferences, type SenderFacts } from './window-options';

protocol.registerSchemesAsPrivileged([{ scheme: APP_PROTOCOL, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

const rendererDirectory = join(import.meta.dirname, '../renderer');
let mainWindow: BrowserWindow | null = null;

function senderFacts(event: IpcMainInvokeEvent): SenderFacts {
  const frame = event.senderFrame;
  return {
    fromMainWindow: mainWindow !== null && event.sender === mainWindow.webContents,
    // Sub-frames never get the API, only the top frame of our own origin.
    fromTopFrame: frame !== null && frame === event.sender.mainFrame,
    url: frame?.url ?? '',
  };
}

function createWindow(): void {
  mainWindow = new BrowserWindow({
    width: 1280,
    height: 820,
    title: 'Evidence Room',
    show: false,
    webPreferences: secureWebPreferences(join(import.meta.dirname, '../preload/preload.mjs')),
  });
  mainWindow.once('ready-to-show', () => mainWindow?.show());
  mainWindow.webContents.on('will-navigate', (event) => event.preventDefault());
  mainWindow.webContents.on('will-attach-webview', (event) => event.preventDefault());
  mainWindow.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  void mainWindow.loadURL(`${APP_ORIGIN}/index.html`);
}

/** Shows a route of the app (in-page navigation: the hash changes, the page stays). */
function show(route: string): void {
  void mainWindow?.loadURL(`${APP_ORIGIN}/index.html#${route}`);
}

async function reportError(error: unknown): Promise<void> {
  if (!mainWindow) return;
  const { envelope } = describeError(error);
  await dialog.showMessageBox(mainWindow, { type: 'error', title: 'Evidence Room', message: envelope.message, detail: `(${envelope.code})` });
}

function buildMenu(api: AppApiDispatcher): void {
  const importBundle = async (): Promise<void> => {
    if (!mainWindow) return;
    const choice = await dialog.showOpenDialog(mainWindow, { title: 'Import an evidence bundle', properties: ['openFile'], filters: [{ name: 'Evidence bundles', extensions: ['zip'] }] });
    const file = choice.filePaths[0];
    if (choice.canceled || !file) return;
    // The file the user chose in the system dialog: the one path the app imports by name.
    const job = api.desktop.importFile(file);
    show(`/bundles?job=${encodeURIComponent(job.jobId)}`);
  };
  const verifyFile = async (): Promise<void> => {
    if (!mainWindow) return;
    const choice = await dialog.showOpenDialog(mainWindow, { title: 'Verify a document', properties: ['openFile'], filters: [{ name: 'JSON documents', extensions: ['json'] }] });
    const file = choice.filePaths[0];
    if (choice.canceled || !file) return;
    const text = await readFile(file, 'utf8');
    const result = await api.desktop.verifyText(text, file);
    show(result.saved ? `/receipts/${result.saved.id}` : '/verify');
  };
  const exportBundle = async (): Promise<void> => {
    if (!mainWindow) return;
    const choice = await dialog.showSaveDialog(mainWindow, { title: 'Export the ledger as a bundle', defaultPath: 'evidence.zip', filters: [{ name: 'Evidence bundles', extensions: ['zip'] }] });
    if (choice.canceled || !choice.filePath) return;
    // Written where the user chose, not under the data folder.
    const result = await api.desktop.exportTo(choice.filePath);
    await dialog.showMessageBox(mainWindow, { type: 'info', title: 'Export complete', message: `Exported ${result.receipts} receipts`, detail: result.path });
  };
  const template: MenuItemConstructorOptions[] = [
    {
      label: 'File',
      submenu: [
        { label: 'Import bundle…', accelerator: 'CmdOrCtrl+O', click: () => void importBundle().catch(reportError) },
        { label: 'Verify file…', accelerator: 'CmdOrCtrl+Shift+O', click: () => void verifyFile().catch(reportError) },
        { label: 'Export…', accelerator: 'CmdOrCtrl+E', click: () => void exportBundle().catch(reportError) },
        { type: 'separator' },
        { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { label: 'Overview', click: () => show('/overview') },
        { label: 'Receipts', click: () => show('/receipts') },
        { label: 'Trust store', click: () => show('/trust') },
        { label: 'Service', click: () => show('/service') },
        { type: 'separator' },
        { role: 'reload' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { role: 'togglefullscreen' },
      ],
    },
    {
      label: 'Help',
      submenu: [
        { label: 'Open data folder', click: () => void shell.openPath(resolveDataDirectory()) },
        { role: 'about' },
      ],
    },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

void app.whenReady().then(() => {
  const dataDirectory = resolveDataDirectory();
  const service = createServiceControl(dataDirectory);
  const api = createAppApi({ mode: 'electron', dataDirectory, service });
  // On quit, the service the Service view started lets its requests finish and closes its
  // ledger connection before the app's own is closed; then the quit goes on.
  let closed = false;
  app.on('before-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    closed = true;
    void service
      .close()
      .catch(() => undefined)
      .finally(() => {
        api.close();
        app.quit();
      });
  });
  // Serve the built renderer from app://evroom only; nothing remote is ever loaded.
  protocol.handle(APP_PROTOCOL, async (request) => {
    const url = new URL(request.url);
    const file = join(rendererDirectory, url.pathname === '/' ? 'index.html' : url.pathname);
    if (!file.startsWith(rendererDirectory)) return new Response('not found', { status: 404 });
    const response = await net.fetch(pathToFileURL(file).toString());
    const headers = new Headers(response.headers);
    headers.set('content-security-policy', CONTENT_SECURITY_POLICY);
    return new Response(response.body, { status: response.status, headers });
  });
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.webRequest.onBeforeRequest({ urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*'] }, (_details, callback) =>
    callback({ cancel: true }),
  );
  // Answers are the contract's envelope ({ok, result} or {ok, error: {code, message, details}}),
  // never a rejection: Electron flattens a rejection into a message and loses its code.
  ipcMain.handle('evroom:invoke', async (event, method: unknown, input: unknown) => {
    if (!isTrustedSender(senderFacts(event))) return { ok: false, error: { code: 'forbidden', message: 'refused: unknown sender', details: [] } };
    return api.answer(method, input);
  });
  buildMenu(api);
  createWindow();
});

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});

app.on('window-all-closed', () => app.quit());
