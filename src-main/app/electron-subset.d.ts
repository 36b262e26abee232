/**
 * The part of Electron's API the thin shell uses, typed here on purpose.
 *
 * `electron` is an optional dependency: where its binary cannot be downloaded its install fails
 * quietly and the package (with its typings) is absent, yet the typecheck must pass on every
 * machine. tsconfig maps the module name `electron` to this file; at run time Electron provides
 * the real module. Keep this in step with the calls in main.ts and preload.ts.
 */

export interface IpcMainInvokeEvent {
  sender: WebContents;
  senderFrame: WebFrameMain | null;
}

export interface WebFrameMain {
  url: string;
}

export interface WindowOpenHandlerResponse {
  action: 'deny' | 'allow';
}

export interface NavigationEvent {
  preventDefault(): void;
}

export interface WebContents {
  mainFrame: WebFrameMain;
  on(
    event: 'will-navigate' | 'will-attach-webview' | 'will-redirect',
    listener: (event: NavigationEvent) => void,
  ): this;
  setWindowOpenHandler(handler: (details: { url: string }) => WindowOpenHandlerResponse): void;
}

export interface WebPreferences {
  preload?: string;
  contextIsolation?: boolean;
  sandbox?: boolean;
  nodeIntegration?: boolean;
  nodeIntegrationInWorker?: boolean;
  nodeIntegrationInSubFrames?: boolean;
  webSecurity?: boolean;
  allowRunningInsecureContent?: boolean;
  experimentalFeatures?: boolean;
  enableBlinkFeatures?: string;
  disableBlinkFeatures?: string;
  webviewTag?: boolean;
  navigateOnDragDrop?: boolean;
  spellcheck?: boolean;
  safeDialogs?: boolean;
}

export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface BrowserWindowConstructorOptions {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  minWidth?: number;
  minHeight?: number;
  title?: string;
  show?: boolean;
  webPreferences?: WebPreferences;
}

export declare class BrowserWindow {
  constructor(options?: BrowserWindowConstructorOptions);
  webContents: WebContents;
  once(event: 'ready-to-show', listener: () => void): this;
  on(event: 'close' | 'resize' | 'move' | 'maximize' | 'unmaximize' | 'closed', listener: () => void): this;
  show(): void;
  focus(): void;
  restore(): void;
  maximize(): void;
  isMinimized(): boolean;
  isMaximized(): boolean;
  isDestroyed(): boolean;
  getNormalBounds(): Rectangle;
  loadURL(url: string): Promise<void>;
}

export interface MenuItemConstructorOptions {
  label?: string;
  role?:
    | 'quit'
    | 'reload'
    | 'togglefullscreen'
    | 'about'
    | 'copy'
    | 'paste'
    | 'selectAll'
    | 'zoomIn'
    | 'zoomOut'
    | 'resetZoom'
    | 'editMenu'
    | 'windowMenu'
    | 'appMenu';
  accelerator?: string;
  type?: 'normal' | 'separator' | 'submenu';
  click?: () => void;
  submenu?: MenuItemConstructorOptions[];
}

export interface Menu {
  readonly items: unknown[];
}
export declare const Menu: {
  setApplicationMenu(menu: Menu | null): void;
  buildFromTemplate(template: MenuItemConstructorOptions[]): Menu;
};

export declare const app: {
  whenReady(): Promise<void>;
  on(event: 'window-all-closed', listener: () => void): void;
  on(event: 'web-contents-created', listener: (event: unknown, contents: WebContents) => void): void;
  on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): void;
  on(event: 'second-instance', listener: (event: unknown, argv: string[], workingDirectory: string) => void): void;
  on(event: 'open-file', listener: (event: NavigationEvent, path: string) => void): void;
  requestSingleInstanceLock(): boolean;
  quit(): void;
  getPath(name: 'userData' | 'home' | 'temp'): string;
};

export declare const ipcMain: {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => Promise<unknown>): void;
};

export declare const protocol: {
  registerSchemesAsPrivileged(
    schemes: { scheme: string; privileges: { standard?: boolean; secure?: boolean; supportFetchAPI?: boolean } }[],
  ): void;
  handle(scheme: string, handler: (request: Request) => Promise<Response> | Response): void;
};

export declare const session: {
  defaultSession: {
    setPermissionRequestHandler(
      handler: (contents: WebContents, permission: string, callback: (granted: boolean) => void) => void,
    ): void;
    webRequest: {
      onBeforeRequest(
        filter: { urls: string[] },
        listener: (details: { url: string }, callback: (response: { cancel: boolean }) => void) => void,
      ): void;
    };
  };
};

export interface OpenDialogReturnValue {
  canceled: boolean;
  filePaths: string[];
}

export interface SaveDialogReturnValue {
  canceled: boolean;
  filePath?: string;
}

export declare const dialog: {
  showOpenDialog(
    window: BrowserWindow,
    options: { title?: string; properties?: 'openFile'[]; filters?: { name: string; extensions: string[] }[] },
  ): Promise<OpenDialogReturnValue>;
  showSaveDialog(
    window: BrowserWindow,
    options: { title?: string; defaultPath?: string; filters?: { name: string; extensions: string[] }[] },
  ): Promise<SaveDialogReturnValue>;
  showMessageBox(
    window: BrowserWindow,
    options: { type?: 'info' | 'error' | 'warning'; title?: string; message: string; detail?: string },
  ): Promise<{ response: number }>;
};

export declare const screen: {
  getAllDisplays(): { workArea: Rectangle }[];
};

export declare const shell: {
  openPath(path: string): Promise<string>;
};

export declare const net: {
  fetch(url: string): Promise<Response>;
};

export declare const contextBridge: {
  exposeInMainWorld(key: string, api: Record<string, unknown>): void;
};

export declare const ipcRenderer: {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
};
