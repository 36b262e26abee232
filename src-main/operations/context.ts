/**
 * Context packs (docs/anchoring.md, "Air-gapped verification"): what `evroom context export`,
 * `evroom anchor verify --context` and the app's Settings run.
 *
 * - Export (online): the anchor transactions of records, anchors files, bundles or the whole
 *   ledger are gathered from a chain (src-main/anchor/context-gather.ts), written as a zip
 *   (src-main/evidence/context-zip.ts) whose canonical manifest lists every file's SHA-256 and is
 *   signed by the workstation's auditor key (src-main/report/auditor-key.ts).
 * - Import (offline): a pack checked whole (signature, digests, chain of headers) is copied into
 *   the data folder, `context/packs/<pack_id>.zip`.
 * - Pins: block hashes the user takes from a trusted source, `context/pins.json`.
 * - Verify: steps 2 and 3 answered from a pack (src-main/anchor/context-check.ts), never the network.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ContextHead, ContextPackSummary, PinnedBlock } from '../../src-shared/anchor/context';
import { CONTEXT_PACK_FORMAT } from '../../src-shared/anchor/context';
import { readAnchorRecord } from '../../src-shared/anchor/proof';
import { hexEncode } from '../../src-shared/crypto/encoding';
import { formatJsonError, JsonParseError, parseJsonBytes, toPlain } from '../../src-shared/json';
import { ChainClient, ChainError } from '../anchor/chain';
import {
  contextAnchorFile,
  CONTEXT_HEADERS_PER_FILE,
  contextHeadersFile,
  CONTEXT_MANIFEST,
  CONTEXT_SIGNATURE,
  CONTEXT_CHECKPOINTS,
  CONTEXT_TRUST,
  MAX_CONTEXT_CHECKPOINTS,
  ContextPackError,
  openContextPack,
  signContextManifest,
  type ContextManifest,
  type OpenedContextPack,
} from '../anchor/context-pack';
import { verifyAnchor, type AnchorVerification } from '../anchor/verify-anchor';
import { AnchorsFileError, parseAnchorsFile } from '../evidence/anchors-file';
import { readBundleAnchors, readContextZip, writeContextZip } from '../evidence/context-zip';
import { BundleError } from '../evidence/errors';
import { listAnchorStates } from '../ledger';
import { withAuditorKey } from '../report/auditor-key';
import { recordPackCheckpoints, seenCheckpointsForPack } from './context-checkpoints';
import { OperationError } from './errors';
import { nodeCrypto, type Workspace } from './workspace';

/** Where imported packs live inside the data folder. */
export const CONTEXT_PACKS_DIRECTORY = path.join('context', 'packs');
/** Where pinned block hashes live inside the data folder. */
export const CONTEXT_PINS_FILE = path.join('context', 'pins.json');
/** The most pins kept. */
export const MAX_PINS = 1000;
const HASH = /^0x[0-9a-f]{64}$/;
const PACK_ID = /^ctx_[0-9a-f]{32}$/;

/** How to export a pack. */
export interface ContextExportOptions {
  /** The zip to write. */
  out: string;
  /** Replace an existing `out`. */
  force?: boolean;
  /** The chain's JSON-RPC (http or https). */
  rpcUrl: string;
  /**
   * Anchor record files, bundles' anchors files or bundles; empty: every resolved anchor of the
   * data folder's ledger (imported bundles' records; a SQLite service's own anchors), never a
   * PostgreSQL service's database.
   */
  inputs: readonly string[];
  /** Per chain call; default 20 s. */
  timeoutMs?: number;
  /** Progress lines (the CLI prints them on stderr). */
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
  /** made_at (default now). */
  now?: Date;
  /** Headers per `headers/<index>.json` file, 1 to 10,000 (default); smaller for tests. */
  headersPerFile?: number;
}

/** What an export wrote. */
export interface ContextExportResult {
  out: string;
  pack_id: string;
  made_at: string;
  rpc: string;
  chain_id: number;
  head: ContextHead;
  signer: string;
  anchors: number;
  headers: { from: number; to: number };
  /** Transparency-log checkpoints carried (every one this workstation has seen). */
  checkpoints: number;
  /** Anchor transactions asked for but not carried, and why. */
  missing: { tx_hash: string; reason: string }[];
  bytes: number;
}

function invalid(code: string, message: string): OperationError {
  return new OperationError('invalid_input', code, message);
}

function fromChainError(error: ChainError): OperationError {
  return new OperationError(
    'refused',
    error.kind === 'unreachable' ? 'chain_unreachable' : 'chain_answer_unusable',
    error.message,
  );
}

/** The resolved anchor transactions named by one input file. */
async function transactionsOfInput(file: string): Promise<string[]> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (error) {
    throw invalid(
      'context_input_unreadable',
      `${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
    );
  }
  const resolvedOf = (records: unknown[]): string[] =>
    records.flatMap((record) => {
      const read = readAnchorRecord(record);
      return read.status === 'resolved' ? [read.record.tx_hash.toLowerCase()] : [];
    });
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) {
    try {
      const files = await readBundleAnchors(file);
      return resolvedOf(files.flatMap((anchors) => anchors.anchors.map((entry) => entry.record)));
    } catch (error) {
      if (error instanceof AnchorsFileError)
        throw invalid(
          'anchors_file_invalid',
          `${file}: an anchors file cannot be used at ${error.path || '/'}: ${error.message}`,
        );
      throw error;
    }
  }
  let plain: unknown;
  try {
    plain = toPlain(parseJsonBytes(bytes));
  } catch (error) {
    if (error instanceof JsonParseError)
      throw invalid('anchor_record_malformed', `${file} is neither a zip nor strict JSON: ${formatJsonError(error)}`);
    throw error;
  }
  if (typeof plain === 'object' && plain !== null && 'anchors' in plain && !('svc_anchor' in plain)) {
    const batch = (plain as { batch_id?: unknown }).batch_id;
    try {
      return resolvedOf(
        parseAnchorsFile(bytes, typeof batch === 'string' ? batch : '').anchors.map((entry) => entry.record),
      );
    } catch (error) {
      if (error instanceof AnchorsFileError)
        throw invalid(
          'anchors_file_invalid',
          `${file}: the anchors file cannot be used at ${error.path || '/'}: ${error.message}`,
        );
      throw error;
    }
  }
  const read = readAnchorRecord(plain);
  if (read.status === 'invalid')
    throw invalid(
      'anchor_record_malformed',
      `${file} is not an anchor record (at ${read.path || '/'}: ${read.message}).`,
    );
  if (read.status === 'pending')
    throw invalid(
      'anchor_record_pending',
      `${file} is a pending anchor record: its batch has no transaction on chain yet, so there is nothing to pack.`,
    );
  return [read.record.tx_hash.toLowerCase()];
}

/** Every resolved anchor transaction of the ledger. */
function transactionsOfLedger(workspace: Workspace): string[] {
  const hashes: string[] = [];
  let after: string | undefined;
  do {
    const page = listAnchorStates(workspace.ledger.readable, {
      limit: 1000,
      ...(after === undefined ? {} : { after }),
    });
    for (const row of page.rows) {
      if (row.status !== 'resolved') continue;
      const read = readAnchorRecord(row.record);
      if (read.status === 'resolved') hashes.push(read.record.tx_hash.toLowerCase());
    }
    after = page.nextCursor ?? undefined;
  } while (after !== undefined);
  return hashes;
}

function jsonBytes(value: unknown, pretty: boolean): Uint8Array {
  return new TextEncoder().encode(`${pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`);
}

/**
 * Gathers a context pack online and writes it, signed by the workstation's auditor key.
 *
 * @param workspace - The open workspace (its ledger, trust store and auditor key).
 * @param options - See {@link ContextExportOptions}.
 * @returns What was written, and the anchors that could not be packed.
 * @throws OperationError: `context_out_exists` (conflict) without `force`; invalid_input for an
 *   input that cannot be read as records, anchors files or a bundle; `context_nothing_to_pack`
 *   (refused) when no resolved anchor is named, or none is on the chain; `chain_unreachable` /
 *   `chain_answer_unusable` (refused) when the chain does not answer or answers what does not check.
 */
export async function exportContextPack(
  workspace: Workspace,
  options: ContextExportOptions,
): Promise<ContextExportResult> {
  if (typeof options.out !== 'string' || options.out.length === 0)
    throw new TypeError('exportContextPack: out is required');
  if (options.force !== true && existsSync(options.out))
    throw new OperationError('conflict', 'context_out_exists', `${options.out} exists; give --force to replace it.`);
  let chain: ChainClient;
  try {
    chain = new ChainClient(options.rpcUrl, { timeoutMs: options.timeoutMs ?? 20_000, batch: true });
  } catch (error) {
    if (error instanceof ChainError) throw invalid('rpc_invalid', error.message);
    throw error;
  }
  // Only the origin is written: a provider's key in the URL's path or query stays on this machine.
  const rpcOrigin = new URL(options.rpcUrl).origin;
  const hashes: string[] = [];
  if (options.inputs.length === 0) hashes.push(...transactionsOfLedger(workspace));
  for (const input of options.inputs) hashes.push(...(await transactionsOfInput(input)));
  const unique = [...new Set(hashes)];
  if (unique.length === 0)
    throw new OperationError(
      'refused',
      'context_nothing_to_pack',
      options.inputs.length === 0
        ? 'This data folder’s ledger holds no resolved anchor record, so there is no anchor transaction to pack. Name anchor records, anchors files or bundles; the anchors of a service on PostgreSQL (evroom serve --database) are in its database, not in a data folder: name the tenant’s evidence bundle (GET /tenants/:id/evidence, or evroom export --tenant T --database URL), or import it first.'
        : 'The files name no resolved anchor record: there is no anchor transaction to pack.',
    );
  let gathered;
  try {
    // Loaded here, not at start: it needs the `@ethereumjs` packages, which are slow to load.
    const { gatherContext } = await import('../anchor/context-gather');
    gathered = await gatherContext(chain, unique, {
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    if (error instanceof ChainError) throw fromChainError(error);
    throw error;
  }
  if (gathered.anchors.length === 0)
    throw new OperationError(
      'refused',
      'context_nothing_to_pack',
      `None of the ${unique.length} anchor transactions could be packed: ${gathered.missing
        .slice(0, 5)
        .map((item) => `${item.tx_hash} (${item.reason})`)
        .join('; ')}${gathered.missing.length > 5 ? '; ...' : ''}.`,
    );
  const madeAt = (options.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const files: { name: string; bytes: Uint8Array }[] = [];
  const headerFiles: string[] = [];
  const perFile = options.headersPerFile ?? CONTEXT_HEADERS_PER_FILE;
  if (!Number.isSafeInteger(perFile) || perFile < 1 || perFile > CONTEXT_HEADERS_PER_FILE)
    throw new RangeError(`headersPerFile must be 1 to ${CONTEXT_HEADERS_PER_FILE}`);
  for (let start = 0; start < gathered.headers.length; start += perFile) {
    const name = contextHeadersFile(headerFiles.length);
    headerFiles.push(name);
    files.push({ name, bytes: jsonBytes(gathered.headers.slice(start, start + perFile), false) });
  }
  for (const anchor of gathered.anchors)
    files.push({ name: contextAnchorFile(anchor.tx_hash), bytes: jsonBytes(anchor, true) });
  files.push({ name: CONTEXT_TRUST, bytes: new TextEncoder().encode(workspace.trust.exportKeys()) });
  const checkpoints = seenCheckpointsForPack(workspace);
  if (checkpoints.length > MAX_CONTEXT_CHECKPOINTS)
    throw new OperationError(
      'refused',
      'context_too_many_checkpoints',
      `This workstation has seen ${checkpoints.length} log checkpoints; a pack carries at most ${MAX_CONTEXT_CHECKPOINTS}.`,
    );
  if (checkpoints.length > 0) files.push({ name: CONTEXT_CHECKPOINTS, bytes: jsonBytes(checkpoints, true) });
  const digests: Record<string, string> = {};
  for (const file of files) digests[file.name] = hexEncode(workspace.crypto.sha256(file.bytes));
  const headersRange = { from: gathered.headers[0]?.number ?? gathered.head.number, to: gathered.head.number };
  const { result: signed } = withAuditorKey(workspace.dataDirectory, workspace.crypto, (seed, key) => {
    const manifest: ContextManifest = {
      format: CONTEXT_PACK_FORMAT,
      made_at: madeAt,
      rpc: rpcOrigin,
      chain_id: gathered.chain_id,
      head: gathered.head,
      signer: key.key_id,
      anchors: gathered.anchors.map((anchor) => ({
        tx_hash: anchor.tx_hash,
        block_number: anchor.block_number,
        block_hash: anchor.block_hash,
        file: contextAnchorFile(anchor.tx_hash),
      })),
      headers: { ...headersRange, files: headerFiles },
      files: digests,
    };
    return { manifest, bytes: signContextManifest(manifest, workspace.crypto, seed) };
  });
  options.onProgress?.(`Writing ${options.out}`);
  const bytes = await writeContextZip(
    options.out,
    [
      { name: CONTEXT_MANIFEST, bytes: signed.bytes.manifest },
      { name: CONTEXT_SIGNATURE, bytes: signed.bytes.signature },
      ...files,
    ],
    options.now === undefined ? {} : { mtime: options.now },
  );
  return {
    out: options.out,
    pack_id: `ctx_${hexEncode(workspace.crypto.sha256(signed.bytes.manifest)).slice(0, 32)}`,
    made_at: madeAt,
    rpc: rpcOrigin,
    chain_id: gathered.chain_id,
    head: gathered.head,
    signer: signed.manifest.signer,
    anchors: gathered.anchors.length,
    headers: headersRange,
    checkpoints: checkpoints.length,
    missing: gathered.missing,
    bytes,
  };
}

/**
 * Reads a pack file and checks it as a whole (see src-main/anchor/context-pack.ts
 * `openContextPack`): a signature or digest that does not hold is kept in `integrity`.
 *
 * @param file - The pack's zip.
 * @returns The opened pack.
 * @throws BundleError for a zip the rules refuse; ContextPackError for a pack that is not one.
 */
export async function openContextPackFile(file: string): Promise<OpenedContextPack> {
  return openContextPack(await readContextZip(file), nodeCrypto());
}

function packsDirectory(workspace: Workspace): string {
  return path.join(workspace.dataDirectory, CONTEXT_PACKS_DIRECTORY);
}

function summaryOf(workspace: Workspace, pack: OpenedContextPack, file: string): ContextPackSummary {
  const { manifest } = pack;
  return {
    pack_id: pack.pack_id,
    made_at: manifest.made_at,
    rpc: manifest.rpc,
    chain_id: manifest.chain_id,
    head: { ...manifest.head },
    signer: manifest.signer,
    anchors: manifest.anchors.length,
    headers: { from: manifest.headers.from, to: manifest.headers.to },
    checkpoints: pack.checkpoints.length,
    imported_at: Math.round(statSync(file).mtimeMs),
    file: path.relative(workspace.dataDirectory, file),
  };
}

/**
 * Imports a pack into the data folder after checking it whole: its manifest signature, every
 * file's digest and its whole chain of headers. Importing the same pack again changes nothing.
 *
 * @param workspace - The open workspace.
 * @param file - The pack's zip.
 * @param options - `onProgress`: a line every 10,000 headers checked (a pack of 200,000
 *   headers takes about a minute; the CLI prints them on stderr).
 * @returns The imported pack's summary.
 * @throws OperationError `context_pack_refused` (invalid_input) naming what does not hold;
 *   BundleError / ContextPackError for a file that is not a pack. Nothing is changed then.
 */
export async function importContextPack(
  workspace: Workspace,
  file: string,
  options: { onProgress?: (line: string) => void } = {},
): Promise<ContextPackSummary> {
  const pack = await openContextPackFile(file);
  const { checkContextPackWhole } = await import('../anchor/context-check');
  const { onProgress } = options;
  const whole = await checkContextPackWhole(
    pack,
    onProgress === undefined
      ? undefined
      : (checked, total) =>
          onProgress(`Checked ${checked.toLocaleString('en')} of ${total.toLocaleString('en')} headers`),
  );
  if (!whole.ok) throw new OperationError('invalid_input', 'context_pack_refused', whole.detail);
  // The log checkpoints are checked (all of them) and recorded before the pack is kept.
  const logged = recordPackCheckpoints(workspace, pack);
  const directory = packsDirectory(workspace);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const target = path.join(directory, `${pack.pack_id}.zip`);
  if (!existsSync(target)) {
    const temporary = `${target}.${randomBytes(6).toString('hex')}.partial`;
    try {
      copyFileSync(file, temporary);
      chmodSync(temporary, 0o600);
      renameSync(temporary, target);
    } finally {
      rmSync(temporary, { force: true });
    }
  }
  const summary = summaryOf(workspace, pack, target);
  return logged.split_views > 0 ? { ...summary, log_split_views: logged.split_views } : summary;
}

/** Opened imported packs, by file, while their size and mtime stay the same (a few at most). */
const openedPacks = new Map<string, { size: number; mtimeMs: number; pack: OpenedContextPack }>();
const OPENED_PACKS_KEPT = 8;

/** An imported pack, opened once while its file does not change. */
async function openImportedPack(file: string): Promise<OpenedContextPack> {
  const info = statSync(file);
  const cached = openedPacks.get(file);
  if (cached !== undefined && cached.size === info.size && cached.mtimeMs === info.mtimeMs) return cached.pack;
  const pack = await openContextPackFile(file);
  openedPacks.delete(file);
  openedPacks.set(file, { size: info.size, mtimeMs: info.mtimeMs, pack });
  while (openedPacks.size > OPENED_PACKS_KEPT) openedPacks.delete(openedPacks.keys().next().value as string);
  return pack;
}

/** The imported packs' files. */
function packFiles(workspace: Workspace): string[] {
  const directory = packsDirectory(workspace);
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((name) => PACK_ID.test(name.replace(/\.zip$/, '')) && name.endsWith('.zip'))
    .map((name) => path.join(directory, name));
}

/**
 * The imported packs, the highest head first. A stored pack that no longer opens is left out.
 *
 * @param workspace - The open workspace.
 * @returns Their summaries.
 */
export async function listContextPacks(workspace: Workspace): Promise<ContextPackSummary[]> {
  const summaries: ContextPackSummary[] = [];
  for (const file of packFiles(workspace)) {
    try {
      summaries.push(summaryOf(workspace, await openImportedPack(file), file));
    } catch (error) {
      if (!(error instanceof ContextPackError) && !(error instanceof BundleError)) throw error;
    }
  }
  return summaries.sort((a, b) => b.head.number - a.head.number || b.made_at.localeCompare(a.made_at));
}

/**
 * Removes an imported pack.
 *
 * @param workspace - The open workspace.
 * @param packId - `ctx_` and 32 hex.
 * @throws OperationError invalid_input for a malformed id, not_found when no such pack is imported.
 */
export function removeContextPack(workspace: Workspace, packId: string): void {
  if (typeof packId !== 'string' || !PACK_ID.test(packId))
    throw invalid(
      'context_pack_id_invalid',
      `${JSON.stringify(String(packId).slice(0, 80))} is not a pack id (ctx_ and 32 hex).`,
    );
  const file = path.join(packsDirectory(workspace), `${packId}.zip`);
  if (!existsSync(file)) throw new OperationError('not_found', 'not_found', `No context pack ${packId} is imported.`);
  rmSync(file);
}

// ---------------------------------------------------------------------------------------------
// Pinned block hashes

/**
 * Checks a pin given by a user.
 *
 * @param value - `{chain_id, number, hash, note?}`.
 * @returns The pin, its hash lowercased.
 * @throws OperationError `pin_invalid` (invalid_input) naming the field.
 */
export function checkPinnedBlock(value: unknown): PinnedBlock {
  const bad = (field: string, message: string): OperationError =>
    new OperationError('invalid_input', 'pin_invalid', `The pinned block's ${field} ${message}`, {
      details: [{ path: `/${field}`, message }],
    });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('', 'must be an object.');
  const pin = value as Record<string, unknown>;
  for (const name of Object.keys(pin))
    if (!['chain_id', 'number', 'hash', 'note', 'pinned_at'].includes(name))
      throw bad(name, 'is not a field of a pin.');
  if (typeof pin.chain_id !== 'number' || !Number.isSafeInteger(pin.chain_id) || pin.chain_id < 1)
    throw bad('chain_id', 'must be a positive whole number.');
  if (typeof pin.number !== 'number' || !Number.isSafeInteger(pin.number) || pin.number < 0)
    throw bad('number', 'must be a block number (a whole number, 0 or more).');
  if (typeof pin.hash !== 'string' || !HASH.test(pin.hash.toLowerCase()))
    throw bad('hash', 'must be 0x and 64 hex characters.');
  if (
    pin.note !== undefined &&
    (typeof pin.note !== 'string' ||
      pin.note.length > 200 ||
      [...pin.note].some((character) => character.charCodeAt(0) < 0x20))
  )
    throw bad('note', 'must be text of at most 200 characters on one line.');
  if (pin.pinned_at !== undefined && (typeof pin.pinned_at !== 'number' || !Number.isSafeInteger(pin.pinned_at)))
    throw bad('pinned_at', 'must be an instant in ms.');
  return {
    chain_id: pin.chain_id,
    number: pin.number,
    hash: pin.hash.toLowerCase(),
    ...(pin.note === undefined ? {} : { note: pin.note as string }),
    ...(pin.pinned_at === undefined ? {} : { pinned_at: pin.pinned_at as number }),
  };
}

/**
 * The pinned block hashes (a missing file: none; a damaged one is refused, not ignored: pins are
 * trust, not preferences).
 *
 * @param workspace - The open workspace.
 * @returns The pins, by chain and number.
 * @throws OperationError `pins_damaged` (internal) when the file cannot be read as pins.
 */
export function listPinnedBlocks(workspace: Workspace): PinnedBlock[] {
  const file = path.join(workspace.dataDirectory, CONTEXT_PINS_FILE);
  if (!existsSync(file)) return [];
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { pins?: unknown };
    if (!Array.isArray(stored.pins)) throw new Error('no pins list');
    return stored.pins.map(checkPinnedBlock);
  } catch (error) {
    throw new OperationError(
      'internal',
      'pins_damaged',
      `The pinned block hashes in ${file} cannot be read (${(error as Error).message.slice(0, 200)}); move the file away and pin again.`,
    );
  }
}

function writePins(workspace: Workspace, pins: PinnedBlock[]): void {
  const file = path.join(workspace.dataDirectory, CONTEXT_PINS_FILE);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.partial`;
  const sorted = [...pins].sort((a, b) => a.chain_id - b.chain_id || a.number - b.number);
  writeFileSync(temporary, `${JSON.stringify({ pins: sorted }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/**
 * Pins a block hash (one per chain and number: a new one replaces the old).
 *
 * @param workspace - The open workspace.
 * @param pin - `{chain_id, number, hash, note?}`.
 * @returns The pin stored.
 * @throws OperationError `pin_invalid`; `too_many` past {@link MAX_PINS}.
 */
export function pinBlockHash(workspace: Workspace, pin: unknown): PinnedBlock {
  const checked = { ...checkPinnedBlock(pin), pinned_at: Date.now() };
  const others = listPinnedBlocks(workspace).filter(
    (existing) => !(existing.chain_id === checked.chain_id && existing.number === checked.number),
  );
  if (others.length >= MAX_PINS)
    throw new OperationError('too_many', 'too_many_pins', `At most ${MAX_PINS} block hashes can be pinned.`);
  writePins(workspace, [...others, checked]);
  return checked;
}

/**
 * Removes a pin.
 *
 * @param workspace - The open workspace.
 * @param which - `{chain_id, number}`.
 * @throws OperationError not_found when no such pin exists.
 */
export function unpinBlockHash(workspace: Workspace, which: { chain_id: number; number: number }): void {
  const pins = listPinnedBlocks(workspace);
  const kept = pins.filter((pin) => !(pin.chain_id === which.chain_id && pin.number === which.number));
  if (kept.length === pins.length)
    throw new OperationError(
      'not_found',
      'not_found',
      `No block hash is pinned for block ${which.number} of chain ${which.chain_id}.`,
    );
  writePins(workspace, kept);
}

// ---------------------------------------------------------------------------------------------
// Verification

/**
 * Steps 1-3 of an anchor with the imported packs and pins: no network, nothing recorded. The pack
 * used is, among those that carry the record's transaction, one whose signature holds (imported
 * packs were checked whole; a file changed since fails), with the highest head; when none does,
 * steps 2-3 are unchecked and say what is missing.
 *
 * @param workspace - The open workspace.
 * @param options - The receipt's canonical SHA-256, the record, the confirmations step 3 requires.
 * @returns The verification (`verified_with_context` when all pass).
 */
export async function verifyAnchorWithContext(
  workspace: Workspace,
  options: { digest: Uint8Array; record: unknown; confirmations?: number },
): Promise<AnchorVerification> {
  const read = readAnchorRecord(options.record);
  const txHash = read.status === 'resolved' ? read.record.tx_hash.toLowerCase() : undefined;
  let chosen: OpenedContextPack | undefined;
  let newest: OpenedContextPack | undefined;
  for (const file of packFiles(workspace)) {
    let pack: OpenedContextPack;
    try {
      pack = await openImportedPack(file);
    } catch {
      continue;
    }
    if (newest === undefined || pack.manifest.head.number > newest.manifest.head.number) newest = pack;
    // A pack whose signature holds is preferred to one whose does not, then the highest head.
    const better = (candidate: OpenedContextPack, current: OpenedContextPack | undefined): boolean =>
      current === undefined ||
      (candidate.integrity.ok && !current.integrity.ok) ||
      (candidate.integrity.ok === current.integrity.ok &&
        candidate.manifest.head.number > current.manifest.head.number);
    if (txHash !== undefined && pack.anchors.has(txHash) && better(pack, chosen)) chosen = pack;
  }
  const context = chosen ?? newest;
  return verifyAnchor({
    sha256: (data) => workspace.crypto.sha256(data),
    digest: options.digest,
    record: options.record,
    ...(options.confirmations === undefined ? {} : { confirmations: options.confirmations }),
    ...(context === undefined
      ? { offline: true, uncheckedReason: 'No context pack is imported, so steps 2 and 3 were not checked.' }
      : { context, pins: listPinnedBlocks(workspace) }),
  });
}
