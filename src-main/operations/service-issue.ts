/**
 * What the HTTP service issues: profile receipts (emit, free, tenant) and wearable receipts.
 *
 * Each receipt is signed with the service's active key, verified before it is answered (the
 * service never hands out a document `evroom verify` would reject), and stored in the service's
 * store (the ledger, where it is an ordinary receipt whose source is `service` with the tenant
 * or `public` in its ref; or PostgreSQL's issued_receipts) in the same transaction that counts it
 * against its quota, records its nonce and appends it to the tenant's log (docs/logs.md, "The
 * service's log"). A quota that is used up stores and appends nothing.
 */
import { hexEncode, utf8Encode } from '../../src-shared/crypto';
import { jcs } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import {
  issueProfileReceipt,
  ProfileBudgetError,
  ProfileFieldsError,
  type ProfileFieldsByName,
} from '../../src-shared/formats/profile';
import { issueWearable, WearableInputError, type WearableCallerFields } from '../../src-shared/formats/wearable';
import type { Tier } from '../../src-shared/api/vocabulary';
import { isJsonObject, type JsonObject } from '../../src-shared/verify/fields';
import type { Report, SerializedReport } from '../../src-shared/verify/report';
import { tlogLeafHash } from '../../src-shared/crypto/tlog';
import type { TenantRecord } from '../ledger';
import type { IssuanceStore, IssueItem, IssueNonce, IssueOutcome } from '../ledger/store/issuance';
import { toVerifiedReceipt, verifyReceiptBytes, type VerifiedReceipt } from '../core/receipt-facts';
import type { ReceiptKeys, VerifyPool } from '../core/worker-pool';
import { OperationError } from './errors';
import { workspaceServiceStore, type ServiceStore } from './service-store';
import { workspaceTrustKeys, workspaceVerifyContext, type Workspace } from './workspace';

/** Receipts per UTC day per client address on the free route, and of a free tenant (spec section 8). */
export const FREE_RECEIPTS_PER_DAY = 100;
/** Requests per minute per client address on every route of the service, by default. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
/** Receipts per UTC month of a pro tenant (spec section 8); scale and enterprise are unlimited. */
export const PRO_RECEIPTS_PER_MONTH = 50_000;

/** The profiles emit issues. */
export const EMIT_PROFILES = ['nano', 'standard', 'pq'] as const;
export type EmitProfile = (typeof EMIT_PROFILES)[number];

/** The body of emit and of tenant receipts (PROTOCOL section 3). */
export interface EmitRequest {
  agent_did: string;
  /** The content's hex SHA-256; or give `input`, which is hashed and never stored. */
  content_sha256?: string;
  input?: string;
  content_type: string;
  settlement_reference?: { rail: string; chain_id: number; asset: string };
  sealed?: boolean;
  reputation_tier?: string;
}

/** The key the service signs with. */
export interface IssuingKey {
  key_id: string;
  seed: Uint8Array;
  public_key: Uint8Array;
}

/** A quota a receipt counts against, or none (scale and enterprise are unlimited). */
export interface Quota {
  subject: string;
  period: string;
  limit: number;
}

/** A receipt the service issued and stored. */
export interface Issued {
  document: JsonObject;
  /** The document's JCS SHA-256 (its identity in the ledger). */
  receipt_sha256: string;
  /** The ledger row. */
  id: number;
  /** Uses of the quota after this one, when one applies. */
  quotaUsed?: number;
}

/** The quota of a tenant's tier in the month of `now` (PROTOCOL section 9); none for unlimited tiers. */
export function tenantQuota(
  tenant: TenantRecord,
  now: Date,
  limits: { freePerDay: number; proPerMonth: number },
): Quota | undefined {
  const tier: Tier = tenant.tier;
  if (tier === 'free')
    return { subject: `tenant:${tenant.id}`, period: now.toISOString().slice(0, 10), limit: limits.freePerDay };
  if (tier === 'pro')
    return { subject: `tenant:${tenant.id}`, period: now.toISOString().slice(0, 7), limit: limits.proPerMonth };
  return undefined;
}

function profileFields(
  profile: EmitProfile,
  request: EmitRequest,
  crypto: Workspace['crypto'],
): ProfileFieldsByName[EmitProfile] {
  const sha256 = request.content_sha256 ?? hexEncode(crypto.sha256(utf8Encode(request.input ?? '')));
  if (profile === 'nano') return { ok: true, a: request.agent_did, h: `sha256:${sha256}`, t: request.content_type };
  const content = { sha256, type: request.content_type };
  if (profile === 'pq') {
    return {
      agent_did: request.agent_did,
      content,
      crypto_agile_metadata: { current_alg: 'Ed25519', signature_posture: 'classical', envelope_posture: 'pq-ready' },
      pq_posture: 'declared',
      auditor_verifier: true,
    };
  }
  const sealed = request.sealed ?? false;
  return {
    agent_did: request.agent_did,
    content,
    ...(request.settlement_reference ? { settlement_reference: request.settlement_reference } : {}),
    smsh: {
      sealed,
      declaration: sealed
        ? 'The caller declares sealed evidence for this content; the service holds none.'
        : 'No sealed evidence accompanies this receipt.',
    },
    hktn_context: { reputation_tier: request.reputation_tier ?? 'unrated' },
  };
}

/** One receipt waiting for the next group commit. */
interface PendingWrite {
  /** What the store is given: the row, its quota, its nonce, its leaf. */
  item: IssueItem;
  resolve(stored: { id: number; quotaUsed: number | undefined }): void;
  reject(error: unknown): void;
}

/** Per store: the receipts waiting for its next commit, and whether a commit is under way. */
interface WriteQueue {
  pending: PendingWrite[];
  /** A flush is scheduled for the next turn of the event loop. */
  scheduled: boolean;
  /** A commit is under way: the next waits for it (so a tenant's receipts reach its log in order). */
  busy: boolean;
}

const writeQueues = new WeakMap<IssuanceStore, WriteQueue>();

/** The tenant of a ledger ref `tenant:<id>`, whose log its receipts go to; none for other refs. */
export function loggedTenant(ref: string): string | undefined {
  return ref.startsWith('tenant:') ? ref.slice('tenant:'.length) : undefined;
}

/** Why the store refused an item, as the caller is told. */
function refusal(item: IssueItem, outcome: Extract<IssueOutcome, { stored: false }>): Error {
  const quota = item.quota;
  if (outcome.reason === 'quota_exceeded' && quota !== undefined)
    return new OperationError(
      'too_many',
      'quota_exceeded',
      `The quota of ${quota.limit} receipts for ${quota.period} is used up.`,
      { facts: { period: quota.period, limit: quota.limit } },
    );
  if (outcome.reason === 'nonce_reused')
    return new OperationError(
      'conflict',
      'conflict',
      'This observation_nonce was used before for this device; a nonce is used once.',
      { details: [{ path: '/observation_nonce', message: 'used before for this device commitment' }] },
    );
  return new Error(`the receipt was not stored${outcome.detail === undefined ? '' : `: ${outcome.detail}`}`);
}

/**
 * Commits every receipt queued in this turn of the event loop in one store call (one
 * transaction; src-main/ledger/store/issuance.ts).
 *
 * Each receipt's checks (its quota, its nonce) are the store's, each refusing only its own
 * receipt; the accepted receipts are stored together and each tenant's are appended to its log
 * in the order of the queue. A commit waits for the disk (SQLite: synchronous = FULL;
 * PostgreSQL: the WAL flush), so sharing it among the requests that arrived together is what
 * lets the service issue more than one receipt per flush; no request is answered before its
 * receipt is committed. A failed commit refuses them all, and nothing of the batch (no quota use
 * either) is stored. One commit per store runs at a time: what is queued meanwhile waits for it
 * and goes in the next, so batches reach the logs in the order they were queued.
 */
function flushWrites(store: IssuanceStore, queue: WriteQueue): void {
  queue.scheduled = false;
  const batch = queue.pending;
  if (batch.length === 0) return;
  queue.pending = [];
  queue.busy = true;
  const settled = (): void => {
    queue.busy = false;
    if (queue.pending.length > 0) schedule(store, queue);
  };
  store.commit(batch.map((pending) => pending.item)).then(
    (outcomes) => {
      settled();
      batch.forEach((pending, index) => {
        const outcome = outcomes[index];
        if (outcome === undefined) pending.reject(new Error('the receipt was not stored'));
        else if (outcome.stored) pending.resolve({ id: outcome.id, quotaUsed: outcome.quotaUsed });
        else pending.reject(refusal(pending.item, outcome));
      });
    },
    (error: unknown) => {
      settled();
      for (const pending of batch) pending.reject(error);
    },
  );
}

function schedule(store: IssuanceStore, queue: WriteQueue): void {
  if (queue.scheduled || queue.busy) return;
  queue.scheduled = true;
  setImmediate(() => flushWrites(store, queue));
}

function enqueueWrite(store: IssuanceStore, item: IssueItem): Promise<{ id: number; quotaUsed: number | undefined }> {
  return new Promise((resolve, reject) => {
    let queue = writeQueues.get(store);
    if (queue === undefined) {
      queue = { pending: [], scheduled: false, busy: false };
      writeQueues.set(store, queue);
    }
    queue.pending.push({ item, resolve, reject });
    schedule(store, queue);
  });
}

/** Per store and tenant: settled when the tenant's last signed receipt has been queued (or refused). */
const tenantTurns = new WeakMap<IssuanceStore, Map<string, Promise<void>>>();

/**
 * A turn in the tenant's queue, taken when its receipt is signed: `ready` settles once every
 * receipt of the tenant signed before it has been queued for the store (or refused), and
 * `done` is called once this one has. A tenant's receipts so reach its log in the order they
 * were signed, so their issuing times never go backwards along the log, even when their checks
 * on the worker threads finish in another order (docs/logs.md, "The service's log").
 */
function takeTurn(store: IssuanceStore, tenant: string): { ready: Promise<void>; done: () => void } {
  let turns = tenantTurns.get(store);
  if (turns === undefined) {
    turns = new Map();
    tenantTurns.set(store, turns);
  }
  const ready = turns.get(tenant) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  turns.set(tenant, mine);
  const map = turns;
  return {
    ready,
    done: () => {
      done();
      if (map.get(tenant) === mine) map.delete(tenant);
    },
  };
}

/** The keys an issued receipt is checked with, one object per state of the trust store and signing key (so a worker is sent them only after a change). */
const issuedKeysCache = new WeakMap<object, { key_id: string; keys: ReceiptKeys }>();

function issuedKeys(workspace: Workspace, signer: IssuingKey): ReceiptKeys {
  const trust = workspaceTrustKeys(workspace);
  const cached = issuedKeysCache.get(trust);
  if (cached !== undefined && cached.key_id === signer.key_id) return cached.keys;
  const keys: ReceiptKeys = {
    pinned: trust.pinned,
    advertised: [...trust.advertised, { key_id: signer.key_id, algorithm: 'Ed25519', public_key: signer.public_key }],
  };
  issuedKeysCache.set(trust, { key_id: signer.key_id, keys });
  return keys;
}

/**
 * The facts of a receipt the service signed: verified on a worker of `pool` (the service's
 * verifyThreads), so the thread that answers requests only signs and stores; without one, here.
 */
function verifyIssued(
  workspace: Workspace,
  bytes: Uint8Array,
  signer: IssuingKey,
  now: Date,
  options: WorkerOptions,
): VerifiedReceipt | Promise<VerifiedReceipt> {
  const here = (): VerifiedReceipt => {
    const context = workspaceVerifyContext(workspace, {
      advertised: [{ key_id: signer.key_id, algorithm: 'Ed25519', public_key: signer.public_key }],
      now,
    });
    return toVerifiedReceipt(verifyReceiptBytes(bytes, context));
  };
  const pool = options.pool;
  if (pool === undefined) return here();
  // A worker that stopped (a defect) costs speed, not receipts: the check runs here instead.
  return pool.receipt(bytes, issuedKeys(workspace, signer), now).catch((error: unknown) => {
    options.onPoolError?.(error);
    return here();
  });
}

/** Where the check of a signed receipt runs (see verifyIssued). */
export interface WorkerOptions {
  /** The service's verification workers; without them the check runs on the calling thread. */
  pool?: VerifyPool | undefined;
  /** Told when a worker failed and the check ran on the calling thread instead (the service logs it). */
  onPoolError?: ((error: unknown) => void) | undefined;
}

/**
 * Whether the report of a document the service signed is the one it must have: PASS; or, for a
 * wearable receipt that records an invalid device signature (`signature_relation: "invalid"`,
 * PROTOCOL section 2), INVALID from the device signature alone, every other check (the service's
 * own signature, the derived fields) passed. Such a receipt is issued as it is: it says honestly
 * that the observation's provenance is inconsistent, and `evroom verify` reports it so.
 */
function verifiesAsIssued(document: JsonObject, report: SerializedReport): boolean {
  if (report.status === 'PASS') return true;
  const body = document['signed_body'];
  if (report.format !== 'wearable/r2.0.0' || report.status !== 'INVALID') return false;
  if (body === undefined || !isJsonObject(body) || body['signature_relation'] !== 'invalid') return false;
  const { checks } = JSON.parse(report.json) as Report;
  return checks.every(
    (check) => check.status === 'pass' || (check.id === 'device_signature' && check.status === 'fail'),
  );
}

/** Where a receipt is stored and what it counts against. */
interface StoreOptions extends WorkerOptions {
  ref: string;
  quota?: Quota | undefined;
  now: Date;
  /** The service's store (default: the workspace's own, SQLite). */
  store?: ServiceStore | undefined;
}

/**
 * Verifies what the service signed, then counts and stores it at the next group commit.
 *
 * @throws OperationError quota_exceeded (kind too_many: nothing stored), conflict (a nonce used
 *   before: nothing stored); an internal error when the document would not verify (a fault of ours)
 */
async function store(
  workspace: Workspace,
  document: JsonObject,
  options: StoreOptions,
  signer: IssuingKey,
  nonce?: Omit<IssueNonce, 'at'>,
): Promise<Issued> {
  const bytes = utf8Encode(jcs(document as JsonValue));
  const tenant = loggedTenant(options.ref);
  const issuance = (options.store ?? workspaceServiceStore(workspace)).issuance;
  // Taken before the first await: the turn follows the order of signing.
  const turn = tenant === undefined ? undefined : takeTurn(issuance, tenant);
  let stored: Promise<{ id: number; quotaUsed: number | undefined }>;
  let facts: VerifiedReceipt;
  try {
    facts = await verifyIssued(workspace, bytes, signer, options.now, options);
    if (!verifiesAsIssued(document, facts.report))
      throw new Error(`the service signed a document that does not verify (${facts.report.status}): ${facts.problem}`);
    await turn?.ready;
    const item: IssueItem = {
      row: {
        receipt_sha256: facts.receipt_sha256,
        raw: bytes,
        report: facts.report,
        receipt_id: facts.receipt_id,
        issued_at: facts.issued_at,
        issuer_key_id: facts.issuer_key_id,
        ref: options.ref,
      },
      quota: options.quota,
      nonce: nonce === undefined ? undefined : { ...nonce, at: options.now.getTime() },
      leaf: tenant === undefined ? undefined : { tenant, hash: tlogLeafHash(workspace.crypto.sha256, bytes) },
    };
    stored = enqueueWrite(issuance, item);
  } finally {
    turn?.done();
  }
  const { id, quotaUsed } = await stored;
  return {
    document,
    receipt_sha256: facts.receipt_sha256,
    id,
    ...(quotaUsed === undefined ? {} : { quotaUsed }),
  };
}

/**
 * Issues a profile receipt (emit, the free route, tenant receipts).
 *
 * @param ref - Whose receipt it is in the ledger: `tenant:<id>`, or `public`.
 */
export function issueProfile(
  workspace: Workspace,
  signer: IssuingKey,
  profile: EmitProfile,
  request: EmitRequest,
  options: StoreOptions,
): Promise<Issued> {
  let document: JsonObject;
  try {
    // The signer checks the fields and the profile's byte budget; refusedRequest words its refusal.
    document = issueProfileReceipt(
      profile,
      profileFields(profile, request, workspace.crypto),
      signer.seed,
      signer.key_id,
      workspace.crypto,
      { now: options.now },
    );
  } catch (error) {
    throw refusedRequest(profile, request, error);
  }
  return store(workspace, document, options, signer);
}

/** Where each receipt field the signer may refuse came from in the emit request. */
const REQUEST_PATHS: Readonly<Record<string, string>> = {
  '/a': '/agent_did',
  '/t': '/content_type',
  '/agent_did': '/agent_did',
  '/content/type': '/content_type',
  '/hktn_context/reputation_tier': '/reputation_tier',
};

/**
 * The signer's refusal of fields that passed the route's schema (the format's own limits: a DID's
 * syntax and 256 characters, a media type, a chain id from 1, a profile's byte budget) as the
 * caller's error, pointing into the request. Anything else passes unchanged: a fault of ours.
 */
function refusedRequest(profile: EmitProfile, request: EmitRequest, error: unknown): unknown {
  if (error instanceof ProfileFieldsError) {
    const path = REQUEST_PATHS[error.path] ?? (error.path.startsWith('/settlement_reference/') ? error.path : '');
    return new OperationError(
      'invalid_input',
      'invalid_request',
      `A ${profile} receipt cannot carry this request: ${path || 'the request'} ${error.reason}.`,
      { details: [{ path, message: error.reason }], cause: error },
    );
  }
  if (error instanceof ProfileBudgetError) {
    const grown = ['agent_did', 'content_type', 'settlement_reference', 'reputation_tier'].filter(
      (name) => request[name as keyof EmitRequest] !== undefined,
    );
    const message = `A ${profile} receipt holds at most ${error.budget} bytes; this request would make one of ${error.size}. Shorten ${grown.join(', ')}${profile === 'nano' ? ', or use profile standard' : ''}.`;
    return new OperationError('invalid_input', 'invalid_request', message, {
      details: grown.map((name) => ({ path: `/${name}`, message: `adds to the ${error.budget}-byte budget` })),
      cause: error,
    });
  }
  return error;
}

/**
 * Issues a wearable measurement receipt (PROTOCOL section 2) from the caller's fields.
 *
 * @throws OperationError invalid_request (fields the format refuses, with their pointer),
 *   conflict nonce_reused (the observation nonce was used before for this device)
 */
export async function issueWearableReceipt(
  workspace: Workspace,
  signer: IssuingKey,
  fields: WearableCallerFields,
  options: Omit<StoreOptions, 'quota'>,
): Promise<Issued> {
  let document: JsonObject;
  try {
    document = issueWearable(fields, signer.seed, signer.key_id, workspace.crypto, {
      ts: Math.floor(options.now.getTime() / 1000),
    }) as unknown as JsonObject;
  } catch (error) {
    if (error instanceof WearableInputError) {
      throw new OperationError('invalid_input', 'invalid_request', error.message, {
        details: error.details.map((detail) => ({ path: detail.path, message: detail.message })),
      });
    }
    throw error;
  }
  const body = document['signed_body'] as JsonObject;
  return store(workspace, document, options, signer, {
    device_id_commitment_sha256: String(body['device_id_commitment_sha256']),
    observation_nonce: String(body['observation_nonce']),
  });
}
