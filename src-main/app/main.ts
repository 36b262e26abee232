/**
 * The Electron entry: one window, a strict CSP, no remote content, validated IPC.
 *
 * The shell is thin on purpose: everything it offers is the app API (src-main/appapi), which
 * local web mode serves too, so every capability is reachable and tested without Electron.
 */
import { app, BrowserWindow, ipcMain, Menu, protocol, session, shell, net, type IpcMainInvokeEvent, type MenuItemConstructorOptions } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createAppApi } from '../appapi/app-api';
import { resolveDataDirectory } from '../ledger/data-directory';
import { APP_ORIGIN, APP_PROTOCOL, CONTENT_SECURITY_POLICY, secureWebPreferences } from './window-options';

protocol.registerSchemesAsPrivileged([{ scheme: APP_PROTOCOL, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

const rendererDirectory = join(import.meta.dirname, '../renderer');
let mainWindow: BrowserWindow | null = null;

function isTrustedSender(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  if (!frame || !mainWindow || event.sender !== mainWindow.webContents) return false;
  // Sub-frames never get the API, only the top frame of our own origin.
  if (frame !== event.sender.mainFrame) return false;
  return new URL(frame.url).origin === APP_ORIGIN;
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

function buildMenu(): void {
  const template: MenuItemConstructorOptions[] = [
    { label: 'File', submenu: [{ role: 'quit' }] },
    { label: 'View', submenu: [{ role: 'reload' }, { role: 'togglefullscreen' }] },
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
  const api = createAppApi({ mode: 'electron', dataDirectory: resolveDataDirectory() });
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
  ipcMain.handle('evroom:invoke', async (event, method: unknown, input: unknown) => {
    if (!isTrustedSender(event)) throw new Error('refused: unknown sender');
    if (typeof method !== 'string') throw new Error('refused: method must be a string');
    return api(method, input);
  });
  buildMenu();
  createWindow();
});

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});

app.on('window-all-closed', () => app.quit());
