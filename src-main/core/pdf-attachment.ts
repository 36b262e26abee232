/**
 * A minimal, strict reader of the files a PDF carries as attachments (PDF 32000-1 7.11.4, the
 * `EmbeddedFiles` name tree), for `evroom verify report.pdf`: an audit report's PDF carries its
 * signed JSON as an attached file (docs/reports.md).
 *
 * It reads only what pdfkit writes and what a classic PDF has: the header, `startxref`, the
 * cross-reference tables (with `/Prev` for incremental updates), the trailer's `/Root`, the
 * catalog's `/Names /EmbeddedFiles` name tree, each file specification's `/EF /F` stream, and
 * streams stored plain or `/FlateDecode` without predictors. Anything else (a cross-reference
 * stream, an object stream, another filter, encryption) is refused with a sentence saying what,
 * never guessed at. Every walk is bounded (objects, depth, entries, decoded bytes), so a hostile
 * file gets a clear error, not a hang or an exhaustion.
 */
import { inflateSync } from 'node:zlib';

/** A PDF this reader cannot read; the message says why in one sentence. */
export class PdfAttachmentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdfAttachmentError';
  }
}

/** One attached file. */
export interface PdfAttachment {
  /** The name in the name tree (the file specification's /UF or /F when the key is empty). */
  name: string;
  /** /AFRelationship (Source, Data, ...), or null. */
  relationship: string | null;
  /** The file's bytes, decoded. */
  data: Uint8Array;
}

/** Limits of {@link pdfAttachments}. */
export interface PdfAttachmentLimits {
  /** Most bytes one attached file may decode to. */
  maxFileBytes: number;
  /** Most attached files listed. */
  maxFiles: number;
}

const DEFAULT_LIMITS: PdfAttachmentLimits = { maxFileBytes: 128 * 1024 * 1024, maxFiles: 64 };
/** Nesting of arrays and dictionaries inside one object. */
const MAX_NESTING = 32;
/** Depth of the name tree. */
const MAX_TREE_DEPTH = 16;
/** Cross-reference sections followed through /Prev. */
const MAX_XREF_SECTIONS = 64;
/** Entries of all cross-reference tables together. */
const MAX_XREF_ENTRIES = 4_000_000;
/** Objects resolved while reading one file (a loop of references ends here). */
const MAX_RESOLUTIONS = 100_000;

type PdfValue =
  | null
  | boolean
  | number
  | { kind: 'name'; value: string }
  | { kind: 'string'; bytes: Uint8Array }
  | { kind: 'ref'; num: number; gen: number }
  | { kind: 'dict'; entries: Map<string, PdfValue>; stream?: { start: number; end: number } }
  | PdfValue[];
type PdfDict = Extract<PdfValue, { kind: 'dict' }>;

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

function isDict(value: PdfValue | undefined): value is PdfDict {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && value.kind === 'dict';
}

function nameOf(value: PdfValue | undefined): string | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && value.kind === 'name'
    ? value.value
    : undefined;
}

/** A PDF text string: UTF-16BE with its byte order mark, UTF-8 with its mark, else PDFDocEncoding (read as Latin-1). */
function textOf(bytes: Uint8Array): string {
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    let out = '';
    for (let index = 2; index + 1 < bytes.length; index += 2)
      out += String.fromCharCode(((bytes[index] ?? 0) << 8) | (bytes[index + 1] ?? 0));
    return out;
  }
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return new TextDecoder().decode(bytes.subarray(3));
  return Buffer.from(bytes).toString('latin1');
}

/** Reads PDF objects from bytes at an offset. */
class Lexer {
  position: number;
  constructor(
    private readonly bytes: Uint8Array,
    position: number,
  ) {
    this.position = position;
  }

  fail(what: string): never {
    throw new PdfAttachmentError(`${what} (at byte ${this.position}).`);
  }

  skipSpace(): void {
    const { bytes } = this;
    while (this.position < bytes.length) {
      const byte = bytes[this.position] as number;
      if (WHITESPACE.has(byte)) this.position += 1;
      else if (byte === 0x25) {
        while (this.position < bytes.length && bytes[this.position] !== 0x0a && bytes[this.position] !== 0x0d)
          this.position += 1;
      } else return;
    }
  }

  /** A run of regular characters (a number or a keyword), without moving past it when `peek`. */
  word(peek = false): string {
    this.skipSpace();
    const start = this.position;
    let end = start;
    while (end < this.bytes.length && end - start < 64) {
      const byte = this.bytes[end] as number;
      if (WHITESPACE.has(byte) || DELIMITERS.has(byte)) break;
      end += 1;
    }
    if (!peek) this.position = end;
    return Buffer.from(this.bytes.subarray(start, end)).toString('latin1');
  }

  expectWord(word: string): void {
    if (this.word() !== word) this.fail(`Expected "${word}"`);
  }

  integer(): number {
    const text = this.word();
    if (!/^\d{1,10}$/.test(text)) this.fail(`Expected a non-negative integer, found "${text.slice(0, 20)}"`);
    return Number(text);
  }

  value(depth = 0): PdfValue {
    if (depth > MAX_NESTING) this.fail('Objects are nested too deeply');
    this.skipSpace();
    const { bytes } = this;
    if (this.position >= bytes.length) this.fail('The file ends inside an object');
    const byte = bytes[this.position] as number;
    if (byte === 0x3c && bytes[this.position + 1] === 0x3c) return this.dictionary(depth);
    if (byte === 0x3c) return this.hexString();
    if (byte === 0x28) return this.literalString();
    if (byte === 0x2f) return this.name();
    if (byte === 0x5b) {
      this.position += 1;
      const items: PdfValue[] = [];
      for (;;) {
        this.skipSpace();
        if (this.position >= bytes.length) this.fail('The file ends inside an array');
        if (bytes[this.position] === 0x5d) {
          this.position += 1;
          return items;
        }
        items.push(this.value(depth + 1));
      }
    }
    const word = this.word();
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) {
      if (/^\d{1,10}$/.test(word)) {
        // `num gen R` is a reference.
        const save = this.position;
        const gen = this.word();
        if (/^\d{1,5}$/.test(gen) && this.word() === 'R') return { kind: 'ref', num: Number(word), gen: Number(gen) };
        this.position = save;
      }
      return Number(word);
    }
    return this.fail(`Unexpected "${word.slice(0, 20) || String.fromCharCode(byte)}"`);
  }

  dictionary(depth: number): PdfDict {
    this.position += 2;
    const entries = new Map<string, PdfValue>();
    for (;;) {
      this.skipSpace();
      if (this.position >= this.bytes.length) this.fail('The file ends inside a dictionary');
      if (this.bytes[this.position] === 0x3e && this.bytes[this.position + 1] === 0x3e) {
        this.position += 2;
        return { kind: 'dict', entries };
      }
      const key = this.value(depth + 1);
      const keyName = nameOf(key);
      if (keyName === undefined) this.fail('A dictionary key is not a name');
      entries.set(keyName, this.value(depth + 1));
    }
  }

  name(): PdfValue {
    this.position += 1;
    let out = '';
    while (this.position < this.bytes.length && out.length < 256) {
      const byte = this.bytes[this.position] as number;
      if (WHITESPACE.has(byte) || DELIMITERS.has(byte)) break;
      if (byte === 0x23) {
        const hex = Buffer.from(this.bytes.subarray(this.position + 1, this.position + 3)).toString('latin1');
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) this.fail('A name has a bad # escape');
        out += String.fromCharCode(parseInt(hex, 16));
        this.position += 3;
      } else {
        out += String.fromCharCode(byte);
        this.position += 1;
      }
    }
    return { kind: 'name', value: out };
  }

  hexString(): PdfValue {
    this.position += 1;
    const digits: number[] = [];
    for (;;) {
      if (this.position >= this.bytes.length) this.fail('The file ends inside a hex string');
      const byte = this.bytes[this.position] as number;
      this.position += 1;
      if (byte === 0x3e) break;
      if (WHITESPACE.has(byte)) continue;
      const digit = parseInt(String.fromCharCode(byte), 16);
      if (Number.isNaN(digit)) this.fail('A hex string holds a character that is not a hex digit');
      digits.push(digit);
      if (digits.length > 2 * 65536) this.fail('A hex string is too long');
    }
    if (digits.length % 2 === 1) digits.push(0);
    const bytes = new Uint8Array(digits.length / 2);
    for (let index = 0; index < bytes.length; index += 1)
      bytes[index] = ((digits[2 * index] ?? 0) << 4) | (digits[2 * index + 1] ?? 0);
    return { kind: 'string', bytes };
  }

  literalString(): PdfValue {
    this.position += 1;
    const out: number[] = [];
    let open = 1;
    const escapes: Record<number, number> = { 0x6e: 10, 0x72: 13, 0x74: 9, 0x62: 8, 0x66: 12 };
    for (;;) {
      if (this.position >= this.bytes.length) this.fail('The file ends inside a string');
      if (out.length > 65536) this.fail('A string is too long');
      const byte = this.bytes[this.position] as number;
      this.position += 1;
      if (byte === 0x5c) {
        const next = this.bytes[this.position] as number;
        this.position += 1;
        if (escapes[next] !== undefined) out.push(escapes[next]);
        else if (next >= 0x30 && next <= 0x37) {
          let code = next - 0x30;
          for (let count = 0; count < 2; count += 1) {
            const digit = this.bytes[this.position] as number;
            if (digit < 0x30 || digit > 0x37) break;
            code = code * 8 + (digit - 0x30);
            this.position += 1;
          }
          out.push(code & 0xff);
        } else if (next === 0x0d) {
          if (this.bytes[this.position] === 0x0a) this.position += 1;
        } else if (next !== 0x0a) out.push(next);
        continue;
      }
      if (byte === 0x28) open += 1;
      if (byte === 0x29) {
        open -= 1;
        if (open === 0) break;
      }
      out.push(byte);
    }
    return { kind: 'string', bytes: Uint8Array.from(out) };
  }
}

/** The PDF's objects, found through its cross-reference tables. */
class PdfFile {
  private readonly offsets = new Map<number, number>();
  private resolutions = 0;
  readonly trailer: PdfDict;

  constructor(private readonly bytes: Uint8Array) {
    if (Buffer.from(bytes.subarray(0, 5)).toString('latin1') !== '%PDF-')
      throw new PdfAttachmentError('The file is not a PDF: it does not start with %PDF-.');
    const tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 2048))).toString('latin1');
    const at = tail.lastIndexOf('startxref');
    if (at < 0) throw new PdfAttachmentError('The PDF has no startxref near its end: it is cut short or damaged.');
    const lexer: Lexer = new Lexer(bytes, bytes.length - tail.length + at + 'startxref'.length);
    let offset = lexer.integer();
    let trailer: PdfDict | undefined;
    const seen = new Set<number>();
    let entries = 0;
    for (let section = 0; ; section += 1) {
      if (section >= MAX_XREF_SECTIONS) throw new PdfAttachmentError('The PDF has too many cross-reference sections.');
      if (offset >= bytes.length || seen.has(offset))
        throw new PdfAttachmentError(`The PDF's cross-reference offset ${offset} is outside the file or loops.`);
      seen.add(offset);
      const reader: Lexer = new Lexer(bytes, offset);
      if (reader.word() !== 'xref')
        throw new PdfAttachmentError(
          'The PDF keeps its cross-references in a stream (PDF 1.5 and later), which this reader does not take: it was not written by evroom report.',
        );
      for (;;) {
        if (reader.word(true) === 'trailer') {
          reader.word();
          break;
        }
        const first = reader.integer();
        const count = reader.integer();
        entries += count;
        if (entries > MAX_XREF_ENTRIES) throw new PdfAttachmentError('The PDF lists too many objects.');
        for (let index = 0; index < count; index += 1) {
          const objectOffset = reader.integer();
          reader.integer();
          const kind = reader.word();
          if (kind !== 'n' && kind !== 'f') reader.fail('A cross-reference entry is neither n nor f');
          // The newest section is read first: an object it lists is not replaced by an older one.
          if (kind === 'n' && !this.offsets.has(first + index)) this.offsets.set(first + index, objectOffset);
        }
      }
      const sectionTrailer = reader.value();
      if (!isDict(sectionTrailer)) reader.fail('The trailer is not a dictionary');
      trailer ??= sectionTrailer;
      if (sectionTrailer.entries.has('Encrypt'))
        throw new PdfAttachmentError('The PDF is encrypted; this reader does not decrypt.');
      const previous = sectionTrailer.entries.get('Prev');
      if (typeof previous !== 'number') break;
      offset = previous;
    }
    this.trailer = trailer;
  }

  /** The value, with a reference followed to its object. */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || value.kind !== 'ref') return value;
    this.resolutions += 1;
    if (this.resolutions > MAX_RESOLUTIONS) throw new PdfAttachmentError('The PDF refers to too many objects.');
    const offset = this.offsets.get(value.num);
    if (offset === undefined) return null;
    if (offset >= this.bytes.length)
      throw new PdfAttachmentError(`Object ${value.num} is listed at ${offset}, outside the file.`);
    const lexer: Lexer = new Lexer(this.bytes, offset);
    if (lexer.integer() !== value.num || lexer.integer() !== value.gen)
      lexer.fail(`Object ${value.num} is not where the cross-reference table says`);
    lexer.expectWord('obj');
    const object = lexer.value();
    if (lexer.word(true) === 'stream') {
      if (!isDict(object)) lexer.fail('A stream without a dictionary');
      lexer.word();
      // The keyword is followed by CRLF or LF (7.3.8.1).
      if (this.bytes[lexer.position] === 0x0d) lexer.position += 1;
      if (this.bytes[lexer.position] !== 0x0a) lexer.fail('The stream keyword is not followed by an end of line');
      const start = lexer.position + 1;
      const length = this.resolve(object.entries.get('Length'));
      if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0)
        lexer.fail(`The stream of object ${value.num} has no valid /Length`);
      const end = start + length;
      if (end > this.bytes.length)
        throw new PdfAttachmentError(`The stream of object ${value.num} runs past the end of the file.`);
      const after: Lexer = new Lexer(this.bytes, end);
      if (after.word() !== 'endstream')
        throw new PdfAttachmentError(`The stream of object ${value.num} is not closed by endstream at its /Length.`);
      object.stream = { start, end };
    }
    return object;
  }

  dict(value: PdfValue | undefined, what: string): PdfDict {
    const resolved = this.resolve(value);
    if (!isDict(resolved)) throw new PdfAttachmentError(`${what} is not a dictionary.`);
    return resolved;
  }

  /** A stream's decoded bytes. */
  streamData(stream: PdfDict, what: string, maxBytes: number): Uint8Array {
    if (stream.stream === undefined) throw new PdfAttachmentError(`${what} is not a stream.`);
    const raw = this.bytes.subarray(stream.stream.start, stream.stream.end);
    let filters = this.resolve(stream.entries.get('Filter'));
    if (Array.isArray(filters)) {
      if (filters.length > 1) throw new PdfAttachmentError(`${what} is encoded by more than one filter.`);
      filters = filters[0];
    }
    const filter = filters === undefined || filters === null ? undefined : nameOf(filters);
    if (filters !== undefined && filters !== null && filter === undefined)
      throw new PdfAttachmentError(`${what} names its filter wrongly.`);
    if (filter === undefined) {
      if (raw.length > maxBytes) throw new PdfAttachmentError(`${what} is larger than ${maxBytes} bytes.`);
      return raw;
    }
    if (filter !== 'FlateDecode')
      throw new PdfAttachmentError(`${what} is encoded with /${filter}; this reader takes only /FlateDecode.`);
    const parameters = this.resolve(stream.entries.get('DecodeParms'));
    if (parameters !== undefined && parameters !== null)
      throw new PdfAttachmentError(`${what} uses decode parameters (a predictor), which this reader does not take.`);
    try {
      return new Uint8Array(inflateSync(raw, { maxOutputLength: maxBytes }));
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        throw new PdfAttachmentError(`${what} decodes to more than ${maxBytes} bytes.`);
      throw new PdfAttachmentError(`${what} is not valid /FlateDecode data.`);
    }
  }
}

/**
 * The files a PDF carries in its `EmbeddedFiles` name tree.
 *
 * @param bytes - The PDF.
 * @param limits - Most decoded bytes per file, most files.
 * @returns The attached files in name-tree order (none: an empty list).
 * @throws PdfAttachmentError when the file is not a PDF this reader can read, with the reason.
 */
export function pdfAttachments(bytes: Uint8Array, limits: Partial<PdfAttachmentLimits> = {}): PdfAttachment[] {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('pdfAttachments expects a Uint8Array');
  const { maxFileBytes, maxFiles } = { ...DEFAULT_LIMITS, ...limits };
  const pdf = new PdfFile(bytes);
  const catalog = pdf.dict(pdf.trailer.entries.get('Root'), 'The document catalog (/Root)');
  const names = pdf.resolve(catalog.entries.get('Names'));
  if (!isDict(names)) return [];
  const tree = pdf.resolve(names.entries.get('EmbeddedFiles'));
  if (!isDict(tree)) return [];
  const found: PdfAttachment[] = [];
  const walk = (node: PdfDict, depth: number): void => {
    // A node that lists itself among its kids ends here too: the depth bounds every walk.
    if (depth > MAX_TREE_DEPTH) throw new PdfAttachmentError('The embedded files name tree is too deep.');
    const pairs = pdf.resolve(node.entries.get('Names'));
    if (Array.isArray(pairs)) {
      for (let index = 0; index + 1 < pairs.length; index += 2) {
        if (found.length >= maxFiles) throw new PdfAttachmentError(`The PDF attaches more than ${maxFiles} files.`);
        const key = pdf.resolve(pairs[index]);
        const spec = pdf.dict(pairs[index + 1], 'An embedded file specification');
        const ef = pdf.dict(spec.entries.get('EF'), 'A file specification’s /EF');
        const label = (value: PdfValue | undefined): string | undefined => {
          const resolved = pdf.resolve(value);
          return typeof resolved === 'object' &&
            resolved !== null &&
            !Array.isArray(resolved) &&
            resolved.kind === 'string'
            ? textOf(resolved.bytes)
            : undefined;
        };
        const name = label(key) || label(spec.entries.get('UF')) || label(spec.entries.get('F')) || '';
        const stream = pdf.dict(ef.entries.get('F'), `The embedded file "${name}"`);
        found.push({
          name,
          relationship: nameOf(pdf.resolve(spec.entries.get('AFRelationship'))) ?? null,
          data: pdf.streamData(stream, `The embedded file "${name}"`, maxFileBytes),
        });
      }
    }
    const kids = pdf.resolve(node.entries.get('Kids'));
    if (Array.isArray(kids)) for (const kid of kids) walk(pdf.dict(kid, 'A name tree node'), depth + 1);
  };
  walk(tree, 0);
  return found;
}

/**
 * Whether bytes start like a PDF (`%PDF-`).
 *
 * @param bytes - A document.
 * @returns True for a PDF header at offset 0.
 */
export function looksLikePdf(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 5 &&
    bytes[0] === 0x25 &&
    bytes[1] === 0x50 &&
    bytes[2] === 0x44 &&
    bytes[3] === 0x46 &&
    bytes[4] === 0x2d
  );
}
