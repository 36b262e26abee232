import { describe, expect, it } from 'vitest';
import { EntryNames, checkEntryName, foldEntryName } from './entry-names';
import { BundleError } from './errors';

function codeOf(action: () => void): string | undefined {
  try {
    action();
  } catch (error) {
    if (error instanceof BundleError) return error.code;
    throw error;
  }
  return undefined;
}

describe('checkEntryName', () => {
  it.each([
    ['', 'zip_path_invalid'],
    ['a'.repeat(1025), 'zip_path_invalid'],
    ['receipts/a\u0000.json', 'zip_path_control'],
    ['receipts\\a.json', 'zip_path_backslash'],
    ['/etc/passwd', 'zip_path_absolute'],
    ['C:/x.json', 'zip_path_drive'],
    ['receipts/../../x.json', 'zip_path_traversal'],
    ['receipts//x.json', 'zip_path_invalid'],
    ['./x.json', 'zip_path_invalid'],
  ])('refuses %j with %s', (name, code) => {
    expect(codeOf(() => checkEntryName(name))).toBe(code);
  });

  it('accepts the bundle layout, anchors with a colon, and directories', () => {
    for (const name of [
      'manifest.json',
      'receipts/',
      'receipts/r_1.json',
      'anchors/2026-11-01T12:00Z.json',
      'keys/service-keys.json',
    ]) {
      expect(codeOf(() => checkEntryName(name))).toBeUndefined();
    }
  });
});

describe('foldEntryName and EntryNames', () => {
  it('folds case, NFC and trailing dots and spaces', () => {
    expect(foldEntryName('Receipts/A.JSON. ')).toBe('receipts/a.json');
    expect(foldEntryName('receipts/caf\u0065\u0301.json')).toBe(foldEntryName('receipts/caf\u00e9.json'));
  });

  it('refuses duplicates after folding and a file that is also a directory', () => {
    const names = new EntryNames();
    names.add({ name: 'receipts/a.json', directory: false });
    expect(codeOf(() => names.add({ name: 'RECEIPTS/A.json', directory: false }))).toBe('zip_duplicate_name');
    expect(codeOf(() => names.add({ name: 'receipts/a.json/', directory: true }))).toBe('zip_duplicate_name');
    const other = new EntryNames();
    other.add({ name: 'keys', directory: false });
    expect(codeOf(() => other.add({ name: 'keys/service-keys.json', directory: false }))).toBe('zip_path_conflict');
  });
});
