/**
 * Reading one document file for verification, synchronously, with one specific error per way a
 * file can be wrong.
 *
 * It lives in core (the CLI's read-input.ts wraps it) so that a verification worker can read the
 * files it is given by name: `evroom verify` over thousands of files sends the workers paths, not
 * bytes, and each worker reads its own share beside the others.
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { looksLikePdf } from './pdf-attachment';

/**
 * Documents above this size are refused. No receipt comes near it (PROTOCOL section 10 caps
 * service bodies at 1 MiB); audit reports do: one of 100,000 receipts is 25 MB as JSON and 50 MB
 * as HTML, and what we write we must read back.
 */
export const MAX_DOCUMENT_BYTES = 128 * 1024 * 1024;

/**
 * A document file that cannot be read or is not a document. The message names the file and says
 * what is wrong, as one line fit to print: `NAME: no such file`, `NAME: is not a regular file`.
 */
export class DocumentReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentReadError';
  }
}

/**
 * Reads one document file, synchronously: `evroom verify` reads thousands of them, and one open,
 * fstat, read and close (about 5 µs) cost less than the promises and thread hops of reading
 * asynchronously, and never leave the thread idle.
 *
 * A file that begins (after whitespace) with `{` or `[` is a JSON document whatever follows: its
 * bytes go to the verifier, which reports invalid UTF-8 or a NUL inside it as MALFORMED with the
 * offset (PROTOCOL section 1). Only other content that is not UTF-8 text is refused as binary.
 * A FIFO or a device is refused ("is not a regular file") without waiting for a writer.
 *
 * @param name - The file's path.
 * @returns The bytes: non-empty, at most {@link MAX_DOCUMENT_BYTES}, and UTF-8 without NUL bytes
 *   unless they open like JSON.
 * @throws DocumentReadError naming the file and what is wrong with it; TypeError if `name` is not
 *   a non-empty string.
 */
export function readDocumentFile(name: string): Uint8Array {
  if (typeof name !== 'string' || name.length === 0) throw new TypeError('readDocumentFile expects a file name');
  let descriptor: number;
  try {
    // Non-blocking, so that a FIFO or a device is opened (and refused below) without waiting
    // for a writer; a regular file reads the same either way.
    descriptor = openSync(name, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new DocumentReadError(`${name}: ${describeFsError(error)}`);
  }
  let bytes: Uint8Array;
  try {
    const info = fstatSync(descriptor);
    if (info.isDirectory()) throw new DocumentReadError(`${name}: is a directory, not a file`);
    if (!info.isFile()) throw new DocumentReadError(`${name}: is not a regular file`);
    if (info.size > MAX_DOCUMENT_BYTES) {
      throw new DocumentReadError(
        `${name}: is ${info.size} bytes; files over ${MAX_DOCUMENT_BYTES} bytes are not read`,
      );
    }
    // The size fstat gave; a file that grows meanwhile is read to that size, one that shrinks
    // to its end.
    bytes = new Uint8Array(info.size);
    let filled = 0;
    while (filled < bytes.length) {
      const count = readSync(descriptor, bytes, filled, bytes.length - filled, filled);
      if (count === 0) break;
      filled += count;
    }
    if (filled < bytes.length) bytes = bytes.subarray(0, filled);
  } catch (error) {
    if (error instanceof DocumentReadError) throw error;
    throw new DocumentReadError(`${name}: ${describeFsError(error)}`);
  } finally {
    closeSync(descriptor);
  }
  checkDocumentBytes(bytes, name);
  return bytes;
}

/**
 * Refuses what cannot be a document: no bytes, or bytes that do not open like JSON or a PDF
 * (`%PDF-`) and are not UTF-8 text without NUL.
 *
 * @param bytes - The input's bytes.
 * @param label - How the input is named in the message (a path, or "standard input").
 * @throws DocumentReadError saying what is wrong.
 */
export function checkDocumentBytes(bytes: Uint8Array, label: string): void {
  if (bytes.length === 0) throw new DocumentReadError(`${label}: is empty; expected a JSON document`);
  // A PDF is binary: it is read for the signed report it may carry (an audit report's PDF).
  if (!opensLikeJson(bytes) && !looksLikePdf(bytes) && (bytes.includes(0) || !isUtf8(bytes))) {
    throw new DocumentReadError(`${label}: is a binary file, not a JSON document`);
  }
}

/** Whether the first byte after JSON whitespace is `{` or `[`. */
function opensLikeJson(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x7b || byte === 0x5b;
  }
  return false;
}

/**
 * A one-line reason for a failed file-system call, without the path noise Node adds.
 *
 * @param error - What the call threw.
 * @returns For example "no such file" or "permission denied"; else the error's own message.
 */
export function describeFsError(error: unknown): string {
  const code = (error as { code?: string } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ELOOP':
      return 'too many symbolic links';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
