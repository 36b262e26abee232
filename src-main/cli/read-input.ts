/**
 * Reading document inputs for the CLI, with one specific error per way a file can be wrong.
 */
import { readFile, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { CliError } from './cli-error';

/**
 * Documents above this size are refused. No receipt comes near it (PROTOCOL section 10 caps
 * service bodies at 1 MiB); audit reports do: one of 100,000 receipts is 25 MB as JSON and 50 MB
 * as HTML, and what we write we must read back.
 */
export const MAX_DOCUMENT_BYTES = 128 * 1024 * 1024;

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
  const bytes = name === '-' ? await readStream(stdin, label) : await readFileChecked(name);
  if (bytes.length === 0) throw new CliError(`${label}: is empty; expected a JSON document`);
  if (!opensLikeJson(bytes) && (bytes.includes(0) || !isUtf8(bytes))) {
    throw new CliError(`${label}: is a binary file, not a JSON document`);
  }
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

/** Whether the first byte after JSON whitespace is `{` or `[`. */
function opensLikeJson(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x7b || byte === 0x5b;
  }
  return false;
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** A one-line reason for a failed file-system call, without the path noise Node adds. */
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
