/**
 * Reading document inputs for the CLI, with one specific error per way a file can be wrong.
 */
import { isUtf8 } from 'node:buffer';
import { readFile, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import {
  checkDocumentBytes,
  describeFsError,
  DocumentReadError,
  MAX_DOCUMENT_BYTES,
  readDocumentFile,
} from '../core/read-document';
import { CliError } from './cli-error';

// The reading itself lives in core/read-document.ts, where the verification workers use it too.
export { describeFsError, MAX_DOCUMENT_BYTES };

/**
 * Reads one input named on the command line; `-` is standard input.
 *
 * A file that begins (after whitespace) with `{` or `[` is a JSON document whatever follows: its
 * bytes go to the verifier, which reports invalid UTF-8 or a NUL inside it as MALFORMED with the
 * offset (PROTOCOL section 1). Only other content that is not UTF-8 text is refused as binary.
 *
 * @returns the bytes: non-empty, and UTF-8 without NUL bytes unless they open like JSON
 * @throws CliError (exit 2) naming the input and what is wrong with it
 */
export async function readDocumentInput(name: string, stdin: Readable = process.stdin): Promise<Uint8Array> {
  const label = name === '-' ? 'standard input' : name;
  if (name !== '-') return readDocumentFileSync(name);
  const bytes = await readStream(stdin, label);
  checkDocument(bytes, label);
  return bytes;
}

/**
 * Reads a small JSON side file (keys, trust store, secrets) with the same checks.
 */
export async function readTextFile(name: string, what: string): Promise<string> {
  const bytes = await readFileChecked(name, what);
  if (bytes.length === 0) throw new CliError(`${what} ${name}: is empty`);
  if (!isUtf8(bytes)) throw new CliError(`${what} ${name}: is not UTF-8 text`);
  return new TextDecoder().decode(bytes);
}

async function readFileChecked(name: string, what = ''): Promise<Uint8Array> {
  const prefix = what ? `${what} ${name}` : name;
  let info;
  try {
    info = await stat(name);
  } catch (error) {
    throw new CliError(`${prefix}: ${describeFsError(error)}`);
  }
  if (info.isDirectory()) throw new CliError(`${prefix}: is a directory, not a file`);
  if (!info.isFile()) throw new CliError(`${prefix}: is not a regular file`);
  if (info.size > MAX_DOCUMENT_BYTES) {
    throw new CliError(`${prefix}: is ${info.size} bytes; files over ${MAX_DOCUMENT_BYTES} bytes are not read`);
  }
  try {
    return new Uint8Array(await readFile(name));
  } catch (error) {
    throw new CliError(`${prefix}: ${describeFsError(error)}`);
  }
}

/**
 * Reads one document file named on the command line, synchronously (see readDocumentFile in
 * core/read-document.ts: one open, fstat, read and close; a FIFO or a device is refused without
 * waiting for a writer).
 *
 * @returns the bytes, checked as by {@link readDocumentInput}
 * @throws CliError (exit 2) naming the file and what is wrong with it
 */
export function readDocumentFileSync(name: string): Uint8Array {
  if (typeof name !== 'string' || name === '-') throw new TypeError('readDocumentFileSync expects a file name (not -)');
  try {
    return readDocumentFile(name);
  } catch (error) {
    throw asCliError(error);
  }
}

function checkDocument(bytes: Uint8Array, label: string): void {
  try {
    checkDocumentBytes(bytes, label);
  } catch (error) {
    throw asCliError(error);
  }
}

function asCliError(error: unknown): unknown {
  return error instanceof DocumentReadError ? new CliError(error.message) : error;
}

async function readStream(stream: Readable, label: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : (chunk as Uint8Array);
    total += bytes.length;
    if (total > MAX_DOCUMENT_BYTES) throw new CliError(`${label}: more than ${MAX_DOCUMENT_BYTES} bytes; not read`);
    chunks.push(bytes);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
