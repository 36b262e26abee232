/**
 * The BrowserWindow settings of the app, kept apart from Electron itself so the security test
 * can check them without an Electron binary. Weakening any of them fails that test.
 */
import { CONTENT_SECURITY_POLICY } from '../appapi/web-server';

export { CONTENT_SECURITY_POLICY };

/** Preferences for every window: isolated, sandboxed, no Node in the page. */
export function secureWebPreferences(preloadPath: string) {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    enableBlinkFeatures: '',
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    safeDialogs: true,
  } as const;
}

/** The only origin the app's pages may come from. */
export const APP_PROTOCOL = 'app';
export const APP_ORIGIN = `${APP_PROTOCOL}://evroom`;
