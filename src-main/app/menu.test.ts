import { describe, expect, it } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { applicationMenu, type MenuActions } from './menu';

function recordingActions(calls: string[]): MenuActions {
  return {
    importBundle: () => calls.push('import'),
    verifyFile: () => calls.push('verify'),
    exportBundle: () => calls.push('export'),
    saveVerifier: () => calls.push('verifier'),
    show: (route) => calls.push(`show ${route}`),
    openDataFolder: () => calls.push('data folder'),
  };
}

function items(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((item) => [item, ...items(item.submenu ?? [])]);
}

describe('applicationMenu', () => {
  it('wires every item to its action', () => {
    const calls: string[] = [];
    for (const item of items(applicationMenu(recordingActions(calls), 'linux'))) item.click?.();
    expect(calls).toEqual([
      'import',
      'verify',
      'export',
      'verifier',
      'show /overview',
      'show /receipts',
      'show /bundles',
      'show /trust',
      'show /verify',
      'show /reports',
      'show /service',
      'data folder',
    ]);
  });

  it('gives every accelerator once', () => {
    const accelerators = items(applicationMenu(recordingActions([]), 'linux')).flatMap((item) =>
      item.accelerator ? [item.accelerator] : [],
    );
    expect(new Set(accelerators).size).toBe(accelerators.length);
  });

  it('puts the application menu first on macOS and Quit in File elsewhere', () => {
    expect(applicationMenu(recordingActions([]), 'darwin')[0]).toEqual({ role: 'appMenu' });
    const linuxFile = applicationMenu(recordingActions([]), 'linux')[0]!;
    expect(linuxFile.submenu?.some((item) => item.role === 'quit')).toBe(true);
    const macFile = applicationMenu(recordingActions([]), 'darwin')[1]!;
    expect(macFile.submenu?.some((item) => item.role === 'quit')).toBe(false);
  });
});
