import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BundleError } from './errors';
import { DEFAULT_ZIP_LIMITS, resolveZipLimits } from './limits';
import {
  checkCentralEntry,
  checkEntryName,
  decodeEntryName,
  EntryNames,
  foldEntryName,
  type CentralEntryFields,
} from './zip-hygiene';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof BundleError) return error.code;
    throw error;
  }
  return undefined;
}

function fields(overrides: Partial<CentralEntryFields> & { name?: string }): CentralEntryFields {
  const name = overrides.name ?? 'receipts/a.json';
  return {
    nameBytes: Buffer.from(name, 'utf8'),
    generalPurposeBitFlag: 0x800,
    versionMadeBy: 0x0314,
    externalFileAttributes: (0o100644 << 16) >>> 0,
    compressionMethod: 8,
    compressedSize: 100,
    uncompressedSize: 300,
    extraFields: [],
    ...overrides,
  };
}

describe('checkEntryName', () => {
  it.each([
    ['', 'zip_path_invalid'],
    ['/etc/passwd', 'zip_path_absolute'],
    ['C:/x.json', 'zip_path_drive'],
    ['c:x.json', 'zip_path_drive'],
    ['../x.json', 'zip_path_traversal'],
    ['receipts/../../x.json', 'zip_path_traversal'],
    ['receipts/..', 'zip_path_traversal'],
    ['receipts\\x.json', 'zip_path_backslash'],
    ['receipts/x\u0000.json', 'zip_path_control'],
    ['receipts/x\n.json', 'zip_path_control'],
    ['receipts/x\u0085.json', 'zip_path_control'],
    ['receipts//x.json', 'zip_path_invalid'],
    ['./receipts/x.json', 'zip_path_invalid'],
    [`receipts/${'a'.repeat(1100)}.json`, 'zip_path_invalid'],
  ])('refuses %j with %s', (name, code) => {
    expect(codeOf(() => checkEntryName(name))).toBe(code);
  });

  it.each([
    'manifest.json',
    'receipts/rcp_01H.json',
    'anchors/2026-11-01T12:00Z.json',
    'receipts/',
    'a/b/c.json',
    'receipts/..x.json',
  ])('accepts %j', (name) => {
    expect(codeOf(() => checkEntryName(name))).toBeUndefined();
  });
});

describe('decodeEntryName', () => {
  it('decodes flagged UTF-8 and plain ASCII', () => {
    expect(decodeEntryName(Buffer.from('receipts/é.json', 'utf8'), 0x800)).toBe('receipts/é.json');
    expect(decodeEntryName(Buffer.from('receipts/a.json', 'latin1'), 0)).toBe('receipts/a.json');
  });

  it('refuses unflagged non-ASCII names and invalid UTF-8', () => {
    expect(codeOf(() => decodeEntryName(Buffer.from('receipts/é.json', 'utf8'), 0))).toBe('zip_path_invalid');
    expect(codeOf(() => decodeEntryName(Buffer.from([0x61, 0xff, 0x62]), 0x800))).toBe('zip_path_invalid');
  });

  it('refuses a Unicode Path field naming another file, and ignores one whose CRC does not match', () => {
    const name = Buffer.from('receipts/a.json');
    const other = Buffer.from('../evil.json');
    const field = (crc: number): { id: number; data: Uint8Array } => {
      const data = Buffer.alloc(5 + other.length);
      data[0] = 1;
      data.writeUInt32LE(crc, 1);
      other.copy(data, 5);
      return { id: 0x7075, data };
    };
    expect(codeOf(() => decodeEntryName(name, 0, [field(crc32(name))]))).toBe('zip_path_invalid');
    expect(decodeEntryName(name, 0, [field((crc32(name) + 1) >>> 0)])).toBe('receipts/a.json');
  });
});

describe('checkCentralEntry', () => {
  const limits = DEFAULT_ZIP_LIMITS;

  it('accepts a plain deflated file and a real directory', () => {
    expect(checkCentralEntry(fields({}), limits)).toEqual({ name: 'receipts/a.json', directory: false });
    expect(
      checkCentralEntry(
        fields({
          name: 'receipts/',
          externalFileAttributes: (0o040755 << 16) >>> 0,
          compressedSize: 0,
          uncompressedSize: 0,
        }),
        limits,
      ),
    ).toEqual({ name: 'receipts/', directory: true });
  });

  it('refuses symlinks by unix mode and by the Windows reparse-point attribute', () => {
    expect(codeOf(() => checkCentralEntry(fields({ externalFileAttributes: (0o120777 << 16) >>> 0 }), limits))).toBe(
      'zip_symlink',
    );
    expect(
      codeOf(() => checkCentralEntry(fields({ versionMadeBy: 0x0a14, externalFileAttributes: 0x400 }), limits)),
    ).toBe('zip_symlink');
  });

  it('refuses devices, FIFOs and sockets', () => {
    for (const mode of [0o010644, 0o020644, 0o060644, 0o140644]) {
      expect(codeOf(() => checkCentralEntry(fields({ externalFileAttributes: (mode << 16) >>> 0 }), limits))).toBe(
        'zip_special_file',
      );
    }
  });

  it('refuses directories that are not real directory entries', () => {
    // A directory mode on a name without "/".
    expect(codeOf(() => checkCentralEntry(fields({ externalFileAttributes: (0o040755 << 16) >>> 0 }), limits))).toBe(
      'zip_directory_invalid',
    );
    // DOS directory attribute on a file name.
    expect(
      codeOf(() => checkCentralEntry(fields({ versionMadeBy: 0x0014, externalFileAttributes: 0x10 }), limits)),
    ).toBe('zip_directory_invalid');
    // A "directory" with content.
    expect(
      codeOf(() =>
        checkCentralEntry(fields({ name: 'receipts/', externalFileAttributes: (0o040755 << 16) >>> 0 }), limits),
      ),
    ).toBe('zip_directory_invalid');
    // A directory name with a regular-file mode.
    expect(
      codeOf(() => checkCentralEntry(fields({ name: 'receipts/', compressedSize: 0, uncompressedSize: 0 }), limits)),
    ).toBe('zip_directory_invalid');
  });

  it('refuses encryption (bit 0, strong encryption, AES) and unknown methods', () => {
    expect(codeOf(() => checkCentralEntry(fields({ generalPurposeBitFlag: 0x801 }), limits))).toBe('zip_encrypted');
    expect(codeOf(() => checkCentralEntry(fields({ generalPurposeBitFlag: 0x840 }), limits))).toBe('zip_encrypted');
    expect(codeOf(() => checkCentralEntry(fields({ compressionMethod: 99 }), limits))).toBe('zip_encrypted');
    expect(codeOf(() => checkCentralEntry(fields({ compressionMethod: 12 }), limits))).toBe(
      'zip_unsupported_compression',
    );
  });

  it('refuses an entry over the size limit and over the ratio limit, but not a small entry with a high ratio', () => {
    const small = resolveZipLimits({ maxEntryBytes: 1000, maxRatio: 10 });
    expect(codeOf(() => checkCentralEntry(fields({ uncompressedSize: 1001 }), small))).toBe('zip_entry_too_large');
    expect(codeOf(() => checkCentralEntry(fields({ uncompressedSize: 100_000, compressedSize: 100 }), limits))).toBe(
      'zip_ratio_exceeded',
    );
    // 4 KiB of anything cannot be a bomb: exempt one by one.
    expect(
      codeOf(() => checkCentralEntry(fields({ uncompressedSize: 4096, compressedSize: 10 }), limits)),
    ).toBeUndefined();
  });
});

describe('EntryNames', () => {
  it('refuses exact duplicates and names that fold together', () => {
    for (const [first, second] of [
      ['receipts/a.json', 'receipts/a.json'],
      ['receipts/a.json', 'receipts/A.JSON'],
      ['receipts/a.json', 'Receipts/a.json'],
      ['receipts/a.json', 'receipts/a.json.'],
      ['receipts/é.json', 'receipts/e\u0301.json'],
    ] as const) {
      const names = new EntryNames();
      names.add({ name: first, directory: false });
      expect(codeOf(() => names.add({ name: second, directory: false }))).toBe('zip_duplicate_name');
    }
  });

  it('refuses a file used as a directory, in either order', () => {
    const a = new EntryNames();
    a.add({ name: 'receipts', directory: false });
    expect(codeOf(() => a.add({ name: 'receipts/x.json', directory: false }))).toBe('zip_path_conflict');
    const b = new EntryNames();
    b.add({ name: 'receipts/x.json', directory: false });
    expect(codeOf(() => b.add({ name: 'RECEIPTS', directory: false }))).toBe('zip_path_conflict');
  });

  it('accepts a directory entry beside the files it holds', () => {
    const names = new EntryNames();
    names.add({ name: 'receipts/', directory: true });
    names.add({ name: 'receipts/a.json', directory: false });
    names.add({ name: 'receipts/b.json', directory: false });
    expect(foldEntryName('Receipts/A.json ')).toBe('receipts/a.json');
  });
});
