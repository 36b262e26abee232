import { describe, expect, it } from 'vitest';
import { createOpenQueue, filesToOpen, openedFileKind } from './open-files';

describe('openedFileKind', () => {
  it('imports zips and verifies JSON documents, whatever the case', () => {
    expect(openedFileKind('/x/evidence.ZIP')).toBe('bundle');
    expect(openedFileKind('receipt.json')).toBe('document');
    expect(openedFileKind('notes.txt')).toBeUndefined();
    expect(openedFileKind('json')).toBeUndefined();
  });
});

describe('filesToOpen', () => {
  it('takes .zip and .json arguments after the leading ones, resolved against the working folder', () => {
    const argv = [
      '/opt/Evidence Room/evidence-room',
      '--allow-file-access-from-files',
      'bundle.zip',
      '/abs/r.json',
      'readme.txt',
      '-x',
    ];
    expect(filesToOpen(argv, '/home/ann', 1)).toEqual(['/home/ann/bundle.zip', '/abs/r.json']);
  });

  it('skips the app path when run as `electron PATH`', () => {
    expect(filesToOpen(['/usr/bin/electron', '/repo/app.json', 'r.json'], '/w', 2)).toEqual(['/w/r.json']);
  });

  it('refuses bad arguments', () => {
    expect(() => filesToOpen([1] as never, '/w', 1)).toThrow(TypeError);
    expect(() => filesToOpen([], 'relative', 1)).toThrow(TypeError);
    expect(() => filesToOpen([], '/w', -1)).toThrow(RangeError);
  });
});

describe('createOpenQueue', () => {
  it('keeps files until ready, then hands them over in order, and later ones at once', () => {
    const queue = createOpenQueue();
    const opened: string[] = [];
    queue.add('/a.zip');
    queue.add('/b.json');
    expect(opened).toEqual([]);
    queue.ready((path) => opened.push(path));
    expect(opened).toEqual(['/a.zip', '/b.json']);
    queue.add('/c.zip');
    expect(opened).toEqual(['/a.zip', '/b.json', '/c.zip']);
    expect(() => queue.add('')).toThrow(TypeError);
  });
});
