/**
 * The default mail transport: one RFC 5322 file per key message in a folder (the data folder's
 * `outbox/`), for the operator's own mail system to pick up (docs/protocol.md, "Delivery of
 * bought keys").
 *
 * The folder is private (0700) and each file too (0600): a message holds a key. A file appears
 * whole or not at all (written to a temporary name, flushed, then renamed), and is flushed with
 * its folder before `send` resolves, since the caller then records the key as delivered. The
 * file of a transaction is written once: sending the same transaction again leaves it as it is.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { DeliveryError } from './delivery-error';
import { DEFAULT_FROM, checkKeyMessage, keyMessageEml } from './key-message';
import type { KeyMessage, MailTransport } from './key-message';

const FOLDER_MODE = 0o700;
const FILE_MODE = 0o600;
/** A temporary file older than this was left by a crash mid-write (a write takes milliseconds). */
const STALE_TEMPORARY_MS = 60_000;

/**
 * A transport that writes `<folder>/<tx_hash>.eml`.
 *
 * @param folder - the outbox folder; made (0700) on the first send if missing
 * @returns the transport (channel `outbox`)
 * @throws TypeError when `folder` is not a non-empty string
 * @example outboxTransport(path.join(dataFolder, 'outbox'))
 */
export function outboxTransport(folder: string): MailTransport {
  if (typeof folder !== 'string' || folder === '') throw new TypeError('outboxTransport: folder must be a path');
  const root = path.resolve(folder);
  return {
    channel: 'outbox',
    describe: () => `outbox ${root}`,
    send: (message) => Promise.resolve().then(() => writeMessage(root, message)),
  };
}

function writeMessage(root: string, message: KeyMessage): void {
  checkKeyMessage(message);
  const target = path.join(root, `${message.tx_hash}.eml`);
  ensureFolder(root);
  const existing = lstatOrUndefined(target);
  if (existing !== undefined) {
    // Written before (a retry, a second pass, a restart): the buyer's message already exists.
    if (existing.isFile()) return;
    throw new DeliveryError('io', `the outbox holds something other than a file at ${target}`, false);
  }
  removeStaleTemporaries(root, message.tx_hash);
  const eml = keyMessageEml(message, DEFAULT_FROM, new Date());
  const temporary = path.join(root, `.${message.tx_hash}.${randomBytes(6).toString('hex')}.tmp`);
  let descriptor: number | undefined;
  try {
    descriptor = fs.openSync(temporary, 'wx', FILE_MODE);
    fs.writeFileSync(descriptor, eml, 'ascii');
    fs.fsyncSync(descriptor);
    fs.closeSync(descriptor);
    descriptor = undefined;
    fs.renameSync(temporary, target);
    syncFolder(root);
  } catch (error) {
    if (descriptor !== undefined) fs.closeSync(descriptor);
    fs.rmSync(temporary, { force: true });
    throw ioError('cannot write the outbox message', error);
  }
}

/**
 * Deletes this transaction's temporary files that a crash left behind: they hold the key, and
 * only the finished `.eml` should. Recent ones are left alone (another send may be writing).
 */
function removeStaleTemporaries(root: string, txHash: string): void {
  const prefix = `.${txHash}.`;
  const now = Date.now();
  try {
    for (const name of fs.readdirSync(root)) {
      if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
      const file = path.join(root, name);
      if (now - fs.lstatSync(file).mtimeMs > STALE_TEMPORARY_MS) fs.rmSync(file, { force: true });
    }
  } catch (error) {
    throw ioError('cannot clean the outbox', error);
  }
}

/** Makes the folder 0700 (and tightens an existing one), refusing a folder that is not one. */
function ensureFolder(root: string): void {
  try {
    fs.mkdirSync(root, { recursive: true, mode: FOLDER_MODE });
    const stat = fs.lstatSync(root);
    if (!stat.isDirectory()) throw new DeliveryError('io', `the outbox ${root} is not a folder`, false);
    if ((stat.mode & 0o777) !== FOLDER_MODE) fs.chmodSync(root, FOLDER_MODE);
  } catch (error) {
    if (error instanceof DeliveryError) throw error;
    throw ioError(`cannot make the outbox ${root}`, error);
  }
}

/** A rename is durable only once its folder is flushed (POSIX); Windows cannot open a folder so. */
function syncFolder(root: string): void {
  if (process.platform === 'win32') return;
  const descriptor = fs.openSync(root, 'r');
  try {
    fs.fsyncSync(descriptor);
  } finally {
    fs.closeSync(descriptor);
  }
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError('cannot read the outbox', error);
  }
}

/** A file system failure: retryable (a full disk, a permission fixed later), with its errno code only. */
function ioError(what: string, error: unknown): DeliveryError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return new DeliveryError('io', `${what} (${typeof code === 'string' ? code : 'error'})`, true);
}
