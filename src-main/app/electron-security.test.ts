import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { APP_ORIGIN, CONTENT_SECURITY_POLICY, isTrustedSender } from './window-options';

// The Electron shell's security settings, checked without an Electron binary: the window's
// preferences exactly, the main process's use of them, the preload's surface and the CSP.
// Weakening any of them fails here.
const mainSource = readFileSync(new URL('./main.ts', import.meta.url), 'utf8');
const preloadSource = readFileSync(new URL('./preload.ts', import.meta.url), 'utf8');
const rendererHtml = readFileSync(new URL('../../src-renderer/index.html', import.meta.url), 'utf8');

function parse(source: string, name: string): ts.SourceFile {
  return ts.createSourceFile(name, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
}

function findAll(node: ts.Node, predicate: (node: ts.Node) => boolean, found: ts.Node[] = []): ts.Node[] {
  if (predicate(node)) found.push(node);
  node.forEachChild((child) => void findAll(child, predicate, found));
  return found;
}

function directives(policy: string): Map<string, string> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [name = '', ...values] = part.split(/\s+/);
        return [name, values.join(' ')] as const;
      }),
  );
}

describe('BrowserWindow preferences', () => {
  /** Each `new BrowserWindow({...})` of main.ts: its webPreferences as property name to source text. */
  function windowPreferences(): Map<string, string>[] {
    const file = parse(mainSource, 'main.ts');
    const windows = findAll(
      file,
      (node) => ts.isNewExpression(node) && node.expression.getText() === 'BrowserWindow',
    ) as ts.NewExpression[];
    return windows.map((window) => {
      const options = window.arguments?.[0];
      if (!options || !ts.isObjectLiteralExpression(options))
        throw new Error('a BrowserWindow without an object literal of options');
      const preferences = options.properties.find((property) => property.name?.getText() === 'webPreferences');
      if (
        !preferences ||
        !ts.isPropertyAssignment(preferences) ||
        !ts.isObjectLiteralExpression(preferences.initializer)
      ) {
        throw new Error(
          'a BrowserWindow whose webPreferences is not an object literal (electronegativity could not read it)',
        );
      }
      return new Map(
        preferences.initializer.properties.map((property) => {
          if (!ts.isPropertyAssignment(property)) throw new Error(`not a plain property: ${property.getText()}`);
          return [property.name.getText(), property.initializer.getText()] as const;
        }),
      );
    });
  }

  it('every window isolates the page, sandboxes it and gives it no Node, written out where the scanner reads it', () => {
    const windows = windowPreferences();
    expect(windows.length).toBeGreaterThan(0);
    for (const preferences of windows) {
      expect(Object.fromEntries(preferences)).toEqual({
        preload: "join(import.meta.dirname, '../preload/preload.mjs')",
        contextIsolation: 'true',
        sandbox: 'true',
        nodeIntegration: 'false',
        nodeIntegrationInWorker: 'false',
        nodeIntegrationInSubFrames: 'false',
        webSecurity: 'true',
        allowRunningInsecureContent: 'false',
        experimentalFeatures: 'false',
        enableBlinkFeatures: "''",
        disableBlinkFeatures: "'Auxclick'",
        webviewTag: 'false',
        navigateOnDragDrop: 'false',
        spellcheck: 'false',
        safeDialogs: 'true',
      });
    }
  });

  it('the main process never weakens a setting by name', () => {
    for (const weak of [
      /sandbox:\s*false/,
      /contextIsolation:\s*false/,
      /nodeIntegration\w*:\s*true/,
      /webSecurity:\s*false/,
      /allowRunningInsecureContent:\s*true/,
      /webviewTag:\s*true/,
      /enableRemoteModule/,
      /experimentalFeatures:\s*true/,
    ]) {
      expect(mainSource).not.toMatch(weak);
    }
  });

  it('blocks navigation and new windows, denies permissions and remote requests', () => {
    expect(mainSource).toMatch(/on\('will-navigate', \(event\) => event\.preventDefault\(\)\)/);
    expect(mainSource).toMatch(/setWindowOpenHandler\(\(\) => \(\{ action: 'deny' \}\)\)/);
    expect(mainSource).toMatch(/on\('will-attach-webview', \(event\) => event\.preventDefault\(\)\)/);
    expect(mainSource).toMatch(
      /setPermissionRequestHandler\(\(_contents, _permission, callback\) => callback\(false\)\)/,
    );
    expect(mainSource).toMatch(
      /onBeforeRequest\(\s*\{ urls: \['http:\/\/\*\/\*', 'https:\/\/\*\/\*', 'ws:\/\/\*\/\*', 'wss:\/\/\*\/\*'\] \}/,
    );
    // Pages load only from the app's own origin.
    const loads = findAll(
      parse(mainSource, 'main.ts'),
      (node) => ts.isCallExpression(node) && node.expression.getText().endsWith('.loadURL'),
    ) as ts.CallExpression[];
    expect(loads.length).toBeGreaterThan(0);
    for (const load of loads) expect(load.arguments[0]?.getText()).toMatch(/^`\$\{APP_ORIGIN\}\//);
  });

  it('serves every page with the strict CSP', () => {
    expect(mainSource).toMatch(/headers\.set\('content-security-policy', CONTENT_SECURITY_POLICY\)/);
  });
});

describe('IPC', () => {
  it('one handler, and it checks the sender before anything else', () => {
    const handlers = mainSource.match(/ipcMain\.handle\(/g) ?? [];
    expect(handlers).toHaveLength(1);
    // The refusal is an answer (the envelope), not a rejection, so its code reaches the renderer.
    expect(mainSource).toMatch(
      /ipcMain\.handle\('evroom:invoke', async \(event, method: unknown, input: unknown\) => \{\n\s+if \(!isTrustedSender\(senderFacts\(event\)\)\)\s+return \{ ok: false, error: \{ code: 'forbidden'/,
    );
    expect(mainSource).toMatch(/return api\.answer\(method, input\);\n\s+\}\);/);
  });

  it('trusts only the main window’s top frame on the app origin', () => {
    const good = { fromMainWindow: true, fromTopFrame: true, url: `${APP_ORIGIN}/index.html#/receipts` };
    expect(isTrustedSender(good)).toBe(true);
    expect(isTrustedSender({ ...good, fromMainWindow: false })).toBe(false);
    expect(isTrustedSender({ ...good, fromTopFrame: false })).toBe(false);
    expect(isTrustedSender({ ...good, url: 'https://evil.example/' })).toBe(false);
    expect(isTrustedSender({ ...good, url: 'app://evroom.evil/' })).toBe(false);
    expect(isTrustedSender({ ...good, url: 'not a url' })).toBe(false);
  });

  it('the preload exposes exactly one function, invoke, and never ipcRenderer itself', () => {
    const file = parse(preloadSource, 'preload.ts');
    const exposures = findAll(
      file,
      (node) => ts.isCallExpression(node) && node.expression.getText() === 'contextBridge.exposeInMainWorld',
    ) as ts.CallExpression[];
    expect(exposures).toHaveLength(1);
    const [name, api] = exposures[0]!.arguments;
    expect(name?.getText()).toBe("'evroom'");
    expect(api && ts.isObjectLiteralExpression(api)).toBe(true);
    expect((api as ts.ObjectLiteralExpression).properties.map((property) => property.name?.getText())).toEqual([
      'invoke',
    ]);
    const uses = findAll(file, (node) => ts.isIdentifier(node) && node.text === 'ipcRenderer');
    // One import and one call of ipcRenderer.invoke on the one channel.
    expect(uses).toHaveLength(2);
    expect(preloadSource).toMatch(/ipcRenderer\.invoke\('evroom:invoke', method, input\)/);
  });
});

describe('Content-Security-Policy', () => {
  const policy = directives(CONTENT_SECURITY_POLICY);

  it('allows nothing by default and no inline or eval script', () => {
    expect(policy.get('default-src')).toBe("'none'");
    expect(policy.get('script-src')).toBe("'self'");
    expect(policy.get('object-src')).toBe("'none'");
    expect(policy.get('base-uri')).toBe("'none'");
    expect(policy.get('frame-ancestors')).toBe("'none'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:/);
  });

  it('the renderer page carries the same policy (less frame-ancestors, which a meta tag cannot set)', () => {
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(rendererHtml)?.[1];
    expect(meta).toBeDefined();
    const fromMeta = directives(meta ?? '');
    for (const [name, value] of policy) {
      if (name === 'frame-ancestors') continue;
      expect(fromMeta.get(name), name).toBe(value);
    }
  });
});
