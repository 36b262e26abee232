/**
 * manifest.json read without its parse tree: the same manifest, the same errors, a fraction of
 * the memory.
 *
 * The strict parse (src-shared/evidence/manifest.ts) builds a node per value, some 800,000 of
 * them for a bundle of 100,000 receipts: its garbage peaks at about 110 MB of heap and its file
 * list keeps about 26 MB, which the import carried into pass 1. This module reads the file list
 * straight from the bytes into a compact form (one string per path, one Uint8Array of digests,
 * one Float64Array of sizes) and leaves everything else to the strict parse.
 *
 * How it stays exactly as strict (the rule: the lean path accepts a manifest only when the strict
 * parse would accept it with the same result; otherwise the strict parse decides):
 * 1. The top-level object is scanned for its `files` member. Each item must have the one common
 *    shape `{"path": P, "sha256": H, "bytes": N}` in that order, any JSON whitespace between
 *    tokens, P printable ASCII without `"` or `\`, H 64 lowercase hex digits, N a plain
 *    non-negative safe integer; each path passes the same checks as in the strict parse
 *    (usable entry name, not a directory, not manifest.json or manifest.sig, no duplicate after
 *    case folding). All of that is strict JSON, and is what the strict parse checks per item.
 * 2. The manifest with its file list emptied (`"files": []`) goes through the strict parse,
 *    which checks everything else: JSON outside the list, members, format, tenant, timestamp,
 *    key id, counts.
 * 3. Anything the lean reading does not recognise (another member order, an escape, a
 *    non-ASCII path, a broken rule), or a failure in step 2, sends the whole manifest through
 *    the strict parse, whose error (with its JSON Pointer) is the one thrown. A valid manifest
 *    the lean path declined is converted from the strict result, so the answer is the same.
 */
import { checkEntryName, foldEntryName } from '../../src-shared/evidence/entry-names';
import { MANIFEST_NAME, parseManifest, SIGNATURE_NAME, type Manifest } from './manifest';

/** The manifest's file list in compact form: file `i` is `paths[i]`, its digest bytes and size. */
export interface CompactFileList {
  /** How many files are listed. */
  readonly count: number;
  /** The listed paths, in manifest order. */
  readonly paths: readonly string[];
  /** 32 bytes per file: the SHA-256 the manifest gives for file `i` is `digests[32 * i .. 32 * i + 32)`. */
  readonly digests: Uint8Array;
  /** The byte counts the manifest gives. */
  readonly sizes: Float64Array;
}

/** A checked manifest whose file list is compact ({@link CompactFileList}). */
export interface CompactManifest {
  /** Everything but the file list, exactly as {@link parseManifest} answers it. */
  header: Omit<Manifest, 'files'>;
  files: CompactFileList;
  /** True when the lean reading answered, false when the strict parse had to (for tests and benches). */
  lean: boolean;
}

/** Bytes of one digest. */
export const DIGEST_BYTES = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The lean reading gave up; the strict parse decides. */
class NotLean extends Error {}

const NOT_LEAN = new NotLean('not the lean shape');

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** A hex digit's value for lowercase hex, -1 otherwise. */
function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x61 + 10;
  return -1;
}

class Scanner {
  position = 0;
  constructor(readonly bytes: Uint8Array) {}

  skipWhitespace(): void {
    const { bytes } = this;
    while (this.position < bytes.length && isWhitespace(bytes[this.position] as number)) this.position += 1;
  }

  /** The next non-whitespace byte, consumed; -1 at the end. */
  next(): number {
    this.skipWhitespace();
    if (this.position >= this.bytes.length) return -1;
    const byte = this.bytes[this.position] as number;
    this.position += 1;
    return byte;
  }

  expect(byte: number): void {
    if (this.next() !== byte) throw NOT_LEAN;
  }

  /** A member name or string of printable ASCII without escapes; [start, end) of its content. */
  asciiString(): [number, number] {
    this.expect(QUOTE);
    const { bytes } = this;
    const start = this.position;
    for (;;) {
      const byte = bytes[this.position];
      if (byte === undefined) throw NOT_LEAN;
      this.position += 1;
      if (byte === QUOTE) return [start, this.position - 1];
      if (byte < 0x20 || byte > 0x7e || byte === BACKSLASH) throw NOT_LEAN;
    }
  }

  /** `"name"` then `:`. */
  memberName(name: string): void {
    const [start, end] = this.asciiString();
    if (end - start !== name.length) throw NOT_LEAN;
    for (let index = 0; index < name.length; index += 1) {
      if (this.bytes[start + index] !== name.charCodeAt(index)) throw NOT_LEAN;
    }
    this.expect(COLON);
  }

  /**
   * Skip any JSON value (top-level members other than `files`), only to find where it ends:
   * its validity is the strict parse's business (step 2 of the module comment).
   */
  skipValue(): void {
    const { bytes } = this;
    let depth = 0;
    this.skipWhitespace();
    do {
      const byte = bytes[this.position];
      if (byte === undefined) throw NOT_LEAN;
      this.position += 1;
      if (byte === QUOTE) {
        for (;;) {
          const inner = bytes[this.position];
          if (inner === undefined) throw NOT_LEAN;
          this.position += 1;
          if (inner === BACKSLASH) this.position += 1;
          else if (inner === QUOTE) break;
        }
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        depth += 1;
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth -= 1;
        if (depth < 0) throw NOT_LEAN;
      } else if (depth === 0) {
        // A number or literal at the top of the value: it runs until a delimiter.
        while (this.position < bytes.length) {
          const following = bytes[this.position] as number;
          if (
            following === COMMA ||
            following === CLOSE_BRACE ||
            following === CLOSE_BRACKET ||
            isWhitespace(following)
          )
            break;
          this.position += 1;
        }
      }
    } while (depth > 0);
  }
}

/** Where the top-level `files` array's brackets are: `[` at `open`, `]` at `close`. */
function findFilesArray(scanner: Scanner): { open: number; close: number } | undefined {
  scanner.expect(OPEN_BRACE);
  let found: { open: number; close: number } | undefined;
  for (;;) {
    const [start, end] = scanner.asciiString();
    scanner.expect(COLON);
    const isFiles =
      end - start === 5 &&
      Buffer.from(scanner.bytes.buffer, scanner.bytes.byteOffset + start, 5).toString('latin1') === 'files';
    if (isFiles && found === undefined) {
      scanner.skipWhitespace();
      const open = scanner.position;
      scanner.skipValue();
      found = { open, close: scanner.position - 1 };
      if (scanner.bytes[open] !== OPEN_BRACKET || scanner.bytes[found.close] !== CLOSE_BRACKET) throw NOT_LEAN;
    } else {
      // A second `files` is left in the header, where the strict parse refuses the duplicate.
      scanner.skipValue();
    }
    const after = scanner.next();
    if (after === CLOSE_BRACE) return found;
    if (after !== COMMA) throw NOT_LEAN;
  }
}

/** Read the items between `[` at `open` and `]` at `close`. */
function readFileItems(bytes: Uint8Array, open: number, close: number): CompactFileList {
  const scanner = new Scanner(bytes.subarray(0, close + 1));
  scanner.position = open + 1;
  const paths: string[] = [];
  // Grown by doubling; trimmed at the end.
  let digests = new Uint8Array(DIGEST_BYTES * 1024);
  let sizes = new Float64Array(1024);
  const seen = new Set<string>();
  scanner.skipWhitespace();
  if (bytes[scanner.position] === CLOSE_BRACKET)
    return { count: 0, paths, digests: new Uint8Array(0), sizes: new Float64Array(0) };
  for (;;) {
    const index = paths.length;
    scanner.expect(OPEN_BRACE);
    scanner.memberName('path');
    const [pathStart, pathEnd] = scanner.asciiString();
    const name = Buffer.from(bytes.buffer, bytes.byteOffset + pathStart, pathEnd - pathStart).toString('latin1');
    // The strict parse's per-item rules; any break is its to report.
    try {
      checkEntryName(name);
    } catch {
      throw NOT_LEAN;
    }
    if (name.endsWith('/') || name === MANIFEST_NAME || name === SIGNATURE_NAME) throw NOT_LEAN;
    const folded = foldEntryName(name);
    if (seen.has(folded)) throw NOT_LEAN;
    seen.add(folded);
    scanner.expect(COMMA);
    scanner.memberName('sha256');
    const [hexStart, hexEnd] = scanner.asciiString();
    if (hexEnd - hexStart !== 2 * DIGEST_BYTES) throw NOT_LEAN;
    if (index * DIGEST_BYTES >= digests.length) {
      const grown = new Uint8Array(digests.length * 2);
      grown.set(digests);
      digests = grown;
      const grownSizes = new Float64Array(sizes.length * 2);
      grownSizes.set(sizes);
      sizes = grownSizes;
    }
    for (let byte = 0; byte < DIGEST_BYTES; byte += 1) {
      const high = hexValue(bytes[hexStart + 2 * byte] as number);
      const low = hexValue(bytes[hexStart + 2 * byte + 1] as number);
      if (high < 0 || low < 0) throw NOT_LEAN;
      digests[index * DIGEST_BYTES + byte] = high * 16 + low;
    }
    scanner.expect(COMMA);
    scanner.memberName('bytes');
    scanner.skipWhitespace();
    // /^(?:0|[1-9][0-9]{0,15})$/ and a safe integer, as isPlainNonNegativeInteger; then `}`.
    const numberStart = scanner.position;
    let value = 0;
    while (scanner.position < bytes.length) {
      const digit = (bytes[scanner.position] as number) - 0x30;
      if (digit < 0 || digit > 9) break;
      value = value * 10 + digit;
      scanner.position += 1;
    }
    const digits = scanner.position - numberStart;
    if (digits === 0 || digits > 16 || (digits > 1 && bytes[numberStart] === 0x30) || !Number.isSafeInteger(value))
      throw NOT_LEAN;
    sizes[index] = value;
    scanner.expect(CLOSE_BRACE);
    paths.push(name);
    const after = scanner.next();
    if (after === CLOSE_BRACKET) break;
    if (after !== COMMA) throw NOT_LEAN;
  }
  if (scanner.position !== close + 1) throw NOT_LEAN;
  const count = paths.length;
  return { count, paths, digests: digests.slice(0, count * DIGEST_BYTES), sizes: sizes.slice(0, count) };
}

/** The strict result in compact form. */
function compactFromStrict(manifest: Manifest): CompactManifest {
  const { files, ...header } = manifest;
  const digests = new Uint8Array(files.length * DIGEST_BYTES);
  const sizes = new Float64Array(files.length);
  files.forEach((file, index) => {
    digests.set(Buffer.from(file.sha256, 'hex'), index * DIGEST_BYTES);
    sizes[index] = file.bytes;
  });
  return { header, files: { count: files.length, paths: files.map((file) => file.path), digests, sizes }, lean: false };
}

/**
 * Parse and check manifest.json into {@link CompactManifest}: the same rules and the same errors
 * as {@link parseManifest} (see the module comment for how).
 *
 * @param bytes - manifest.json exactly as stored.
 * @returns The manifest with its file list in compact form.
 * @throws BundleError manifest_unsupported_format or manifest_invalid (with `path`), exactly as
 *   {@link parseManifest} throws them for the same bytes.
 */
export function parseManifestCompact(bytes: Uint8Array): CompactManifest {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('parseManifestCompact expects the manifest bytes');
  try {
    const where = findFilesArray(new Scanner(bytes));
    if (where !== undefined) {
      const files = readFileItems(bytes, where.open, where.close);
      const emptied = Buffer.concat([bytes.subarray(0, where.open + 1), bytes.subarray(where.close)]);
      const { files: none, ...header } = parseManifest(emptied);
      if (none.length === 0) return { header, files, lean: true };
    }
  } catch {
    // Not the lean shape (NotLean), or the header is wrong (a BundleError of the emptied
    // manifest, whose pointers may not be the whole manifest's): the strict parse decides below.
  }
  return compactFromStrict(parseManifest(bytes));
}

/**
 * File `index`'s SHA-256 as HEX64 (for messages).
 *
 * @param list - The list.
 * @param index - 0 to `count - 1`.
 * @returns 64 lowercase hex characters.
 */
export function listedDigestHex(list: CompactFileList, index: number): string {
  return Buffer.from(list.digests.buffer, list.digests.byteOffset + index * DIGEST_BYTES, DIGEST_BYTES).toString('hex');
}
