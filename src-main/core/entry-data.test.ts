import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { entryData } from './entry-data';
import { BundleError } from '../../src-shared/evidence/errors';

const text = Buffer.from('{"receipt":"a receipt of some length to be compressed, compressed, compressed"}');
const deflated = deflateRawSync(text);
const shape = { name: 'receipts/a.json', compressionMethod: 8, uncompressedSize: text.length, crc32: crc32(text) };

function refusal(run: () => unknown): BundleError {
  try {
    run();
  } catch (error) {
    if (error instanceof BundleError) return error;
    throw error;
  }
  throw new Error('expected a BundleError');
}

describe('entryData', () => {
  it('inflates a deflated entry and takes a stored one as it is', () => {
    expect(entryData(deflated, shape, 1 << 20).equals(text)).toBe(true);
    const stored = entryData(text, { ...shape, compressionMethod: 0 }, 1 << 20);
    expect(stored.equals(text)).toBe(true);
    expect(stored.buffer).toBe(text.buffer);
  });

  it('refuses data longer or shorter than declared, without inflating far past the declared size', () => {
    const longer = refusal(() => entryData(deflated, { ...shape, uncompressedSize: text.length - 5 }, 1 << 20));
    expect(longer).toMatchObject({ code: 'zip_size_mismatch', entry: 'receipts/a.json' });
    expect(longer.message).toBe(
      `Entry "receipts/a.json" inflates to more than the ${text.length - 5} bytes its header declares.`,
    );
    const shorter = refusal(() => entryData(deflated, { ...shape, uncompressedSize: text.length + 5 }, 1 << 20));
    expect(shorter.message).toBe(
      `Entry "receipts/a.json" holds ${text.length} bytes, not the ${text.length + 5} its header declares.`,
    );
    // The entry limit caps the inflating too: data past it is a size mismatch, whatever is declared.
    expect(refusal(() => entryData(deflated, shape, 10)).code).toBe('zip_size_mismatch');
    expect(refusal(() => entryData(text, { ...shape, compressionMethod: 0, uncompressedSize: 3 }, 1 << 20)).code).toBe(
      'zip_size_mismatch',
    );
  });

  it('refuses a CRC-32 that differs and compressed data that is damaged, naming the entry printably', () => {
    const crc = refusal(() => entryData(deflated, { ...shape, crc32: (shape.crc32 + 1) >>> 0 }, 1 << 20));
    expect(crc).toMatchObject({
      code: 'zip_crc_mismatch',
      message: 'Entry "receipts/a.json": its data does not match its CRC-32.',
    });
    const damaged = refusal(() =>
      entryData(Uint8Array.of(0xff, 0xff, 0xff), { ...shape, name: 'receipts/\u0001.json' }, 1 << 20),
    );
    expect(damaged.code).toBe('zip_corrupt');
    expect(damaged.entry).toBe('receipts/\\u0001.json');
    expect(damaged.message).toMatch(/^Entry "receipts\/\\u0001\.json": its compressed data is damaged \(/);
  });
});
