/**
 * The Electron entry: one window, a strict CSP, no remote content, validated IPC.
 *
 * The shell is thin on purpose: everything it offers is the app API (src-main/appapi), which
 * local web mode serves too, so every capability is reachable and tested without Electron.
 */
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  protocol,
  screen,
  session,
  shell,
  net,
  type IpcMainInvokeEvent,
} from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFile, writeFile } from 'node:fs/promises';
import { createAppApi, type AppApiDispatcher } from '../appapi/app-api';
import { resolveDataDirectory } from '../ledger/data-directory';
import { checkFailpoints } from '../core/failpoints';
import { describeError, internalLogLine } from '../operations/errors';
import { verifierPage } from '../operations/verifier-page';
import { applicationMenu } from './menu';
import { createServiceControl } from './service-control';
import { createOpenQueue, filesToOpen, openedFileKind } from './open-files';
import { loadWindowState, MIN_WINDOW_SIZE, placeWindow, saveWindowState, type WindowState } from './window-state';
import { APP_ORIGIN, APP_PROTOCOL, CONTENT_SECURITY_POLICY, isTrustedSender, type SenderFacts } from './window-options';

protocol.registerSchemesAsPrivileged([
  { scheme: APP_PROTOCOL, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

const rendererDirectory = join(import.meta.dirname, '../renderer');
const dataDirectory = resolveDataDirectory();
// A mistyped failpoint setting (tests only, core/failpoints.ts) stops the app at start.
checkFailpoints();
/** Files the system asked us to open (associations, a second instance, macOS open-file). */
const openQueue = createOpenQueue();
/** `electron PATH` (development) puts the app's path before the files; a packaged app does not. */
const leadingArguments = (process as { defaultApp?: boolean }).defaultApp ? 2 : 1;
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

function createWindow(remembered: WindowState | undefined): void {
  const placement = placeWindow(
    remembered,
    screen.getAllDisplays().map((display) => display.workArea),
  );
  const window = new BrowserWindow({
    width: placement.width,
    height: placement.height,
    ...(placement.x === undefined || placement.y === undefined ? {} : { x: placement.x, y: placement.y }),
    minWidth: MIN_WINDOW_SIZE.width,
    minHeight: MIN_WINDOW_SIZE.height,
    title: 'Evidence Room',
    show: false,
    // Spelled out here, not built by a helper, so that electronegativity (scripts/electron-scan.mjs)
    // reads every value; electron-security.test.ts pins each one. Isolated, sandboxed, no Node
    // in the page, and no Auxclick (a middle click opening windows).
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/preload.mjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      enableBlinkFeatures: '',
      disableBlinkFeatures: 'Auxclick',
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
    },
  });
  mainWindow = window;
  if (placement.maximized) window.maximize();
  window.once('ready-to-show', () => window.show());
  // Remembered when the window closes: its normal (not maximized) bounds and whether it was
  // maximized. A failure to write only loses the placement.
  window.on('close', () => {
    try {
      saveWindowState(dataDirectory, { bounds: window.getNormalBounds(), maximized: window.isMaximized() });
    } catch {
      // The data folder may be read-only; the next start uses the default placement.
    }
  });
  window.on('closed', () => {
    mainWindow = null;
  });
  window.webContents.on('will-navigate', (event) => event.preventDefault());
  window.webContents.on('will-attach-webview', (event) => event.preventDefault());
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  void window.loadURL(`${APP_ORIGIN}/index.html`);
}

/** Shows a route of the app (in-page navigation: the hash changes, the page stays). */
function show(route: string): void {
  void mainWindow?.loadURL(`${APP_ORIGIN}/index.html#${route}`);
}

async function reportError(error: unknown): Promise<void> {
  if (!mainWindow) return;
  const { envelope, internal } = describeError(error);
  if (internal !== undefined) process.stderr.write(`${internalLogLine(internal)}\n`);
  await dialog.showMessageBox(mainWindow, {
    type: 'error',
    title: 'Evidence Room',
    message: envelope.message,
    detail: `(${envelope.code})`,
  });
}

/** Opens a file the user chose or the system handed us: a bundle is imported, a document verified. */
async function openFile(api: AppApiDispatcher, file: string): Promise<void> {
  const kind = openedFileKind(file);
  if (kind === 'bundle') {
    const job = api.desktop.importFile(file);
    show(`/bundles?job=${encodeURIComponent(job.jobId)}`);
  } else if (kind === 'document') {
    const text = await readFile(file, 'utf8');
    const result = await api.desktop.verifyText(text, file);
    show(result.saved ? `/receipts/${result.saved.id}` : '/verify');
  }
}

function buildMenu(api: AppApiDispatcher): void {
  const importBundle = async (): Promise<void> => {
    if (!mainWindow) return;
    const choice = await dialog.showOpenDialog(mainWindow, {
      title: 'Import an evidence bundle',
      properties: ['openFile'],
      filters: [{ name: 'Evidence bundles', extensions: ['zip'] }],
    });
    const file = choice.filePaths[0];
    // The file the user chose in the system dialog: the one path the app imports by name.
    if (!choice.canceled && file) await openFile(api, file);
  };
  const verifyFile = async (): Promise<void> => {
    if (!mainWindow) return;
    const choice = await dialog.showOpenDialog(mainWindow, {
      title: 'Verify a document',
      properties: ['openFile'],
      filters: [{ name: 'JSON documents', extensions: ['json'] }],
    });
    const file = choice.filePaths[0];
    if (!choice.canceled && file) await openFile(api, file);
  };
  const exportBundle = async (): Promise<void> => {
    if (!mainWindow) return;
    const choice = await dialog.showSaveDialog(mainWindow, {
      title: 'Export the ledger as a bundle',
      defaultPath: 'evidence.zip',
      filters: [{ name: 'Evidence bundles', extensions: ['zip'] }],
    });
    if (choice.canceled || !choice.filePath) return;
    // Written where the user chose, not under the data folder.
    const result = await api.desktop.exportTo(choice.filePath);
    await dialog.showMessageBox(mainWindow, {
      type: 'info',
      title: 'Export complete',
      message: `Exported ${result.receipts} receipts`,
      detail: result.path,
    });
  };
  const saveVerifier = async (): Promise<void> => {
    if (!mainWindow) return;
    const choice = await dialog.showSaveDialog(mainWindow, {
      title: 'Save the reference verifier',
      defaultPath: 'verifier.html',
      filters: [{ name: 'Web page', extensions: ['html'] }],
    });
    if (choice.canceled || !choice.filePath) return;
    await writeFile(choice.filePath, await verifierPage());
  };
  const template = applicationMenu(
    {
      importBundle: () => void importBundle().catch(reportError),
      verifyFile: () => void verifyFile().catch(reportError),
      exportBundle: () => void exportBundle().catch(reportError),
      saveVerifier: () => void saveVerifier().catch(reportError),
      show,
      openDataFolder: () => void shell.openPath(dataDirectory),
    },
    process.platform,
  );
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

// macOS hands files over in 'open-file', possibly before the app is ready: they wait in the queue.
app.on('open-file', (event, path) => {
  event.preventDefault();
  openQueue.add(path);
});

async function start(): Promise<void> {
  await app.whenReady();
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
  session.defaultSession.webRequest.onBeforeRequest(
    { urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*'] },
    (_details, callback) => callback({ cancel: true }),
  );
  // Answers are the contract's envelope ({ok, result} or {ok, error: {code, message, details}}),
  // never a rejection: Electron flattens a rejection into a message and loses its code.
  ipcMain.handle('evroom:invoke', async (event, method: unknown, input: unknown) => {
    if (!isTrustedSender(senderFacts(event)))
      return { ok: false, error: { code: 'forbidden', message: 'refused: unknown sender', details: [] } };
    return api.answer(method, input);
  });
  buildMenu(api);
  createWindow(await loadWindowState(dataDirectory));
  openQueue.ready((file) => void openFile(api, file).catch(reportError));
}

// One app per user and data folder: a second start hands its files to the first and quits.
if (app.requestSingleInstanceLock()) {
  for (const file of filesToOpen(process.argv, process.cwd(), leadingArguments)) openQueue.add(file);
  app.on('second-instance', (_event, argv, workingDirectory) => {
    if (mainWindow) {
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.focus();
    }
    for (const file of filesToOpen(argv, workingDirectory, leadingArguments)) openQueue.add(file);
  });
  void start();
} else {
  app.quit();
}

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});

app.on('window-all-closed', () => app.quit());
