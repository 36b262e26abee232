/**
 * Anchoring through the service (PROTOCOL section 8, spec 4 route 14): who may anchor, what a
 * submitted hash must look like, and the records `GET /v1/anchor/<urn>` answers.
 *
 * The engine itself lives in src-main/anchor (the one place that talks to a chain); doors reach
 * it through the {@link AnchorBackend} the shell gives them, or get none when the service runs
 * with `--no-anchor`.
 */
import { b64uDecode, b64uEncode, hexDecode } from '../../src-shared/crypto';
import type { PendingAnchorRecord } from '../../src-shared/anchor/proof';
import { parseAnchorUrn } from '../../src-shared/anchor/urn';
import type { Tier } from '../../src-shared/api/vocabulary';
import type { AnchorEngineStatus, SubmitOutcome } from '../anchor/engine';
import { OperationError } from './errors';
import type { Caller } from './service-admin';
import type { ServiceStore } from './service-store';

/** What the doors need of the engine. */
export interface AnchorBackend {
  /** Queues a digest; committed to the service store when the promise settles. */
  submit(digest: Uint8Array, options?: { tenantId?: string }): Promise<SubmitOutcome>;
  status(): Promise<AnchorEngineStatus>;
}

/** Tiers whose keys may call `POST /v1/anchor` (spec section 8: pro on demand, scale and enterprise). */
export const ANCHORING_TIERS: readonly Tier[] = ['pro', 'scale', 'enterprise'];
/** Tiers whose tenant receipts are anchored automatically (PROTOCOL section 9). */
export const AUTO_ANCHOR_TIERS: readonly Tier[] = ['scale', 'enterprise'];

/** The body of `POST /v1/anchor`. */
export interface AnchorRequest {
  canonical_sha256: string;
}

/** The JSON Schema of that body (OpenAPI and the strict body reader). */
export const ANCHOR_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['canonical_sha256'],
  properties: {
    canonical_sha256: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{43}$',
      description: 'base64url (no padding) of the 32-byte SHA-256 of the receipt’s RFC 8785 form',
    },
  },
} as const;

/**
 * Refuses a key whose tier does not anchor (PROTOCOL section 8: 403).
 *
 * The one tier check of `POST /v1/anchor`: {@link submitAnchor} makes it, and the route makes it
 * first, so a free key hears 403 before anything about its body.
 *
 * @throws OperationError forbidden `forbidden` for a free key
 */
export function requireAnchoringTier(caller: Caller): void {
  if (!ANCHORING_TIERS.includes(caller.key.tier))
    throw new OperationError(
      'forbidden',
      'forbidden',
      `A ${caller.key.tier} key does not anchor; anchoring needs a pro, scale or enterprise key.`,
    );
}

/**
 * canonical_sha256 decoded: base64url of exactly 32 bytes, in its one canonical spelling.
 *
 * @throws OperationError invalid_input with the pointer /canonical_sha256
 */
export function decodeCanonicalSha256(text: string): Uint8Array {
  let bytes: Uint8Array | undefined;
  try {
    bytes = b64uDecode(text);
  } catch {
    bytes = undefined;
  }
  if (bytes === undefined || bytes.length !== 32 || b64uEncode(bytes) !== text) {
    throw new OperationError(
      'invalid_input',
      'invalid_request',
      'canonical_sha256 must be the unpadded base64url of a 32-byte SHA-256 (43 characters, canonical last character).',
      { facts: { path: '/canonical_sha256' } },
    );
  }
  return bytes;
}

/**
 * Queues a hash for anchoring; committed before this returns.
 *
 * @param backend - The engine.
 * @param caller - The authenticated caller.
 * @param request - The parsed body.
 * @returns the pending record (the same for the same hash in one open batch)
 * @throws OperationError forbidden (a tier that does not anchor), invalid_request (hash), conflict (another hash
 *   with the same 16-hex suffix already holds this batch's URN)
 */
export async function submitAnchor(
  backend: AnchorBackend,
  caller: Caller,
  request: AnchorRequest,
): Promise<PendingAnchorRecord> {
  requireAnchoringTier(caller);
  const digest = decodeCanonicalSha256(request.canonical_sha256);
  const outcome = await backend.submit(digest, { tenantId: caller.tenant.id });
  if (outcome.outcome === 'conflict') {
    throw new OperationError(
      'conflict',
      'conflict',
      `Another hash with the same first 8 bytes is already queued as ${outcome.svc_anchor}; submit this one again after batch ${outcome.batch_id} closes.`,
      { facts: { path: '/canonical_sha256' } },
    );
  }
  return { svc_anchor: outcome.svc_anchor, batch_id: outcome.batch_id, eta_seconds: outcome.eta_seconds };
}

/**
 * Queues a receipt the service issued for a scale or enterprise tenant.
 *
 * @param receiptSha256 - The receipt's hex JCS SHA-256 (its ledger identity = canonical_sha256's bytes).
 * @returns the pending record, or null when the tier is not anchored automatically, anchoring
 *   is off, or (never in practice) another hash holds the URN
 */
export async function anchorIssuedReceipt(
  backend: AnchorBackend | undefined,
  caller: Caller,
  receiptSha256: string,
): Promise<PendingAnchorRecord | null> {
  if (backend === undefined || !AUTO_ANCHOR_TIERS.includes(caller.tenant.tier)) return null;
  const outcome = await backend.submit(hexDecode(receiptSha256), { tenantId: caller.tenant.id });
  return outcome.outcome === 'conflict'
    ? null
    : { svc_anchor: outcome.svc_anchor, batch_id: outcome.batch_id, eta_seconds: outcome.eta_seconds };
}

/**
 * The record of an anchor URN, pending or resolved.
 *
 * @param store - The service store holds the anchors (read even when anchoring is off, and from any node).
 * @param urn - The URN as given (already URL-decoded).
 * @param now - For a pending record's eta.
 * @throws OperationError invalid_request (not an anchor URN), not_found
 */
export async function lookupAnchor(store: ServiceStore, urn: string, now: Date): Promise<Record<string, unknown>> {
  if (parseAnchorUrn(urn) === undefined) {
    throw new OperationError(
      'invalid_input',
      'invalid_request',
      'Not an anchor URN: urn:svc:anchor:pending:<batch_id>:<suffix> or urn:svc:anchor:<network>:<block_height>:<tx_hash>:<suffix> (URL-encoded in the path).',
      { facts: { path: '/svc_anchor' } },
    );
  }
  const record = await store.anchoring.recordAt(urn, now.getTime());
  if (record === undefined) throw new OperationError('not_found', 'not_found', `No anchor ${urn} here.`);
  return record;
}
