import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LEDGER_FILE_NAME, ledgerFileIn, resolveDataDirectory, userDataDirectory } from './data-directory';
import { LedgerError } from './errors';
import { makeTemporaryDirectory } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporary(): string {
  const { directory, cleanup } = makeTemporaryDirectory('evroom-data-');
  cleanups.push(cleanup);
  return directory;
}

describe('userDataDirectory', () => {
  it('prefers EVROOM_HOME, made absolute', () => {
    expect(userDataDirectory({ EVROOM_HOME: '/srv/evroom', HOME: '/home/a' }, 'linux')).toBe('/srv/evroom');
    expect(userDataDirectory({ EVROOM_HOME: 'rel/dir' }, 'linux')).toBe(path.resolve('rel/dir'));
  });

  it('ignores an empty EVROOM_HOME', () => {
    expect(userDataDirectory({ EVROOM_HOME: '', HOME: '/home/a' }, 'linux')).toBe('/home/a/.config/evidence-room');
  });

  it('follows each platform convention', () => {
    expect(userDataDirectory({ HOME: '/home/a' }, 'linux')).toBe('/home/a/.config/evidence-room');
    expect(userDataDirectory({ HOME: '/home/a', XDG_CONFIG_HOME: '/cfg' }, 'linux')).toBe('/cfg/evidence-room');
    // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
    expect(userDataDirectory({ HOME: '/home/a', XDG_CONFIG_HOME: 'cfg' }, 'linux')).toBe(
      '/home/a/.config/evidence-room',
    );
    expect(userDataDirectory({ HOME: '/Users/a' }, 'darwin')).toBe(
      '/Users/a/Library/Application Support/Evidence Room',
    );
    expect(userDataDirectory({ APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, 'win32')).toBe(
      'C:\\Users\\a\\AppData\\Roaming\\Evidence Room',
    );
    expect(userDataDirectory({ USERPROFILE: 'C:\\Users\\a' }, 'win32')).toBe(
      'C:\\Users\\a\\AppData\\Roaming\\Evidence Room',
    );
  });
});

describe('resolveDataDirectory', () => {
  it('creates a missing directory with mode 0700', () => {
    const home = path.join(temporary(), 'nested', 'home');
    const directory = resolveDataDirectory({ EVROOM_HOME: home }, 'linux');
    expect(directory).toBe(home);
    expect(fs.statSync(directory).mode & 0o777).toBe(0o700);
  });

  it('creates the XDG directory when EVROOM_HOME is unset', () => {
    const root = temporary();
    const directory = resolveDataDirectory({ HOME: root }, 'linux');
    expect(directory).toBe(path.join(root, '.config', 'evidence-room'));
    expect(fs.statSync(directory).isDirectory()).toBe(true);
    expect(fs.statSync(directory).mode & 0o777).toBe(0o700);
  });

  it('leaves an existing directory as it is', () => {
    const existing = temporary();
    fs.chmodSync(existing, 0o755);
    expect(resolveDataDirectory({ EVROOM_HOME: existing }, 'linux')).toBe(existing);
    expect(fs.statSync(existing).mode & 0o777).toBe(0o755);
  });

  it('refuses a path that is a file', () => {
    const file = path.join(temporary(), 'file');
    fs.writeFileSync(file, 'x');
    expect(() => resolveDataDirectory({ EVROOM_HOME: file }, 'linux')).toThrow(LedgerError);
  });

  it('names the ledger file inside it', () => {
    expect(ledgerFileIn('/data')).toBe(path.join('/data', LEDGER_FILE_NAME));
    expect(() => ledgerFileIn('')).toThrow(TypeError);
  });
});
