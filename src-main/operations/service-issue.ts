/**
 * What the HTTP service issues: profile receipts (emit, free, tenant) and wearable receipts.
 *
 * Each receipt is signed with the service's active key, verified before it is answered (the
 * service never hands out a document `evroom verify` would reject), and stored in the ledger as
 * an ordinary receipt whose source is `service` with the tenant (or `public`) in its ref, in the
 * same transaction that counts it against its quota. A quota that is used up stores nothing.
 */
import { hexEncode, utf8Encode } from '../../src-shared/crypto';
import { jcs } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { issueProfileReceipt, type ProfileFieldsByName } from '../../src-shared/formats/profile';
import { issueWearable, WearableInputError, type WearableCallerFields } from '../../src-shared/formats/wearable';
import type { Tier } from '../../src-shared/api/vocabulary';
import type { JsonObject } from '../../src-shared/verify/fields';
import type { Report } from '../../src-shared/verify/report';
import { consumeQuota, insertReceipts, recordWearableNonce, type TenantRecord, type WritableDB } from '../ledger';
import { verifyReceiptBytes } from '../core/receipt-facts';
import { OperationError } from './errors';
import { workspaceVerifyContext, type Workspace } from './workspace';

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
export function tenantQuota(tenant: TenantRecord, now: Date, limits: { freePerDay: number; proPerMonth: number }): Quota | undefined {
  const tier: Tier = tenant.tier;
  if (tier === 'free') return { subject: `tenant:${tenant.id}`, period: now.toISOString().slice(0, 10), limit: limits.freePerDay };
  if (tier === 'pro') return { subject: `tenant:${tenant.id}`, period: now.toISOString().slice(0, 7), limit: limits.proPerMonth };
  return undefined;
}

function profileFields(profile: EmitProfile, request: EmitRequest, crypto: Workspace['crypto']): ProfileFieldsByName[EmitProfile] {
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
    smsh: { sealed, declaration: sealed ? 'The caller declares sealed evidence for this content; the service holds none.' : 'No sealed evidence accompanies this receipt.' },
    hktn_context: { reputation_tier: request.reputation_tier ?? 'unrated' },
  };
}

/** One receipt waiting for the next group commit. */
interface PendingWrite {
  write(database: WritableDB): Issued;
  resolve(issued: Issued): void;
  reject(error: unknown): void;
}

const pendingWrites = new WeakMap<Workspace, PendingWrite[]>();

/**
 * Commits every receipt queued in this turn of the event loop in one transaction, each in a
 * savepoint of its own: one refused receipt (a used-up quota, a reused nonce) leaves the others
 * stored. A commit waits for the disk (synchronous = FULL), so sharing it among the requests that
 * arrived together is what lets the service issue more than one receipt per disk flush; no
 * request is answered before its receipt is committed.
 */
function flushWrites(workspace: Workspace): void {
  const queue = pendingWrites.get(workspace) ?? [];
  pendingWrites.delete(workspace);
  const outcomes: ({ ok: true; issued: Issued } | { ok: false; error: unknown })[] = [];
  try {
    workspace.ledger.runInTransaction((database) => {
      for (const item of queue) {
        try {
          outcomes.push({ ok: true, issued: workspace.ledger.runInTransaction(() => item.write(database)) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
    });
  } catch (error) {
    for (const item of queue) item.reject(error);
    return;
  }
  queue.forEach((item, index) => {
    const outcome = outcomes[index];
    if (outcome?.ok) item.resolve(outcome.issued);
    else item.reject(outcome?.error ?? new Error('the receipt was not stored'));
  });
}

function enqueueWrite(workspace: Workspace, write: PendingWrite['write']): Promise<Issued> {
  return new Promise((resolve, reject) => {
    let queue = pendingWrites.get(workspace);
    if (queue === undefined) {
      queue = [];
      pendingWrites.set(workspace, queue);
      setImmediate(() => flushWrites(workspace));
    }
    queue.push({ write, resolve, reject });
  });
}

/**
 * Verifies what the service signed, then counts and stores it at the next group commit.
 *
 * @throws OperationError quota_exceeded (kind too_many: nothing stored); an internal error when
 *   the document would not verify (a fault of ours)
 */
function store(workspace: Workspace, document: JsonObject, ref: string, quota: Quota | undefined, signer: IssuingKey, extra?: (database: WritableDB, receiptSha256: string) => void): Promise<Issued> {
  const bytes = utf8Encode(jcs(document as JsonValue));
  const context = workspaceVerifyContext(workspace, { advertised: [{ key_id: signer.key_id, algorithm: 'Ed25519', public_key: signer.public_key }] });
  const facts = verifyReceiptBytes(bytes, context);
  if (facts.report.status !== 'PASS') return Promise.reject(new Error(`the service signed a document that does not verify (${facts.report.status}): ${facts.report.errors[0]?.message ?? ''}`));
  return enqueueWrite(workspace, (database) => {
    let quotaUsed: number | undefined;
    if (quota !== undefined) {
      const counted = consumeQuota(database, quota.subject, quota.period, quota.limit);
      if (!counted.allowed) {
        throw new OperationError('too_many', 'quota_exceeded', `The quota of ${quota.limit} receipts for ${quota.period} is used up.`, {
          facts: { period: quota.period, limit: quota.limit },
        });
      }
      quotaUsed = counted.used;
    }
    extra?.(database, facts.receipt_sha256);
    const [row] = insertReceipts(database, [
      {
        receipt_sha256: facts.receipt_sha256,
        raw: bytes,
        report: facts.report as Report,
        receipt_id: facts.receipt_id,
        issued_at: facts.issued_at,
        issuer_key_id: facts.issuer_key_id,
        source: { kind: 'service', ref },
      },
    ]);
    if (row === undefined) throw new Error('the receipt was not stored');
    return { document, receipt_sha256: facts.receipt_sha256, id: row.id, ...(quotaUsed === undefined ? {} : { quotaUsed }) };
  });
}

/**
 * Issues a profile receipt (emit, the free route, tenant receipts).
 *
 * @param ref - Whose receipt it is in the ledger: `tenant:<id>`, or `public`.
 */
export function issueProfile(workspace: Workspace, signer: IssuingKey, profile: EmitProfile, request: EmitRequest, options: { now: Date; ref: string; quota?: Quota }): Promise<Issued> {
  const document = issueProfileReceipt(profile, profileFields(profile, request, workspace.crypto), signer.seed, signer.key_id, workspace.crypto, { now: options.now });
  return store(workspace, document, options.ref, options.quota, signer);
}

/**
 * Issues a wearable measurement receipt (PROTOCOL section 2) from the caller's fields.
 *
 * @throws OperationError invalid_request (fields the format refuses, with their pointer),
 *   conflict nonce_reused (the observation nonce was used before for this device)
 */
export async function issueWearableReceipt(workspace: Workspace, signer: IssuingKey, fields: WearableCallerFields, options: { now: Date; ref: string }): Promise<Issued> {
  let document: JsonObject;
  try {
    document = issueWearable(fields, signer.seed, signer.key_id, workspace.crypto, { ts: Math.floor(options.now.getTime() / 1000) }) as unknown as JsonObject;
  } catch (error) {
    if (error instanceof WearableInputError) {
      throw new OperationError('invalid_input', 'invalid_request', error.message, { details: error.details.map((detail) => ({ path: detail.path, message: detail.message })) });
    }
    throw error;
  }
  const body = document['signed_body'] as JsonObject;
  return store(workspace, document, options.ref, undefined, signer, (database, receiptSha256) => {
    const fresh = recordWearableNonce(database, {
      device_id_commitment_sha256: String(body['device_id_commitment_sha256']),
      observation_nonce: String(body['observation_nonce']),
      receipt_sha256: receiptSha256,
      at: options.now.getTime(),
    });
    if (!fresh) {
      throw new OperationError('conflict', 'conflict', 'This observation_nonce was used before for this device; a nonce is used once.', {
        details: [{ path: '/observation_nonce', message: 'used before for this device commitment' }],
      });
    }
  });
}
