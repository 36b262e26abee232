/**
 * Profile receipt issuer: makes signed nano, standard, pq and legacy proof_tier receipts, for the
 * service, tests, samples and benchmarks.
 *
 * Every receipt is checked against its published schema and byte budget before it is returned,
 * so an issuer can never emit a receipt our own verifier calls MALFORMED.
 */
import { b64uEncode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { validate as validateLegacy } from '../../schemas/profile-legacy.generated';
import { validate as validateNano } from '../../schemas/profile-nano.generated';
import { validate as validatePq } from '../../schemas/profile-pq.generated';
import { validate as validateStandard } from '../../schemas/profile-standard.generated';
import { isJsonObject, type JsonObject } from '../../verify/fields';
import { isKeyId } from '../../verify/keys';
import { schemaErrorsToReport, type SchemaValidator } from '../../verify/schema-errors';
import { isTimestamp } from '../../verify/timestamp';
import { createReceiptId, isReceiptId } from './receipt-id';
import {
  PROFILE_BYTE_BUDGETS,
  PROFILE_NAMES,
  PROFILE_SCHEMA_VERSION,
  profileByteLength,
  profileDigest,
  type ProfileName,
} from './verify';

/** The verify route receipts point to by default (PROTOCOL section 3). */
export const DEFAULT_VERIFY_URI = '/v1/receipt/verify';

/** The caller's fields of a nano receipt (compact names). */
export interface NanoFields {
  /** Whether the receipted operation succeeded. */
  ok: boolean;
  /** The agent DID. */
  a: string;
  /** `sha256:<64 lowercase hex>` of the content. */
  h: string;
  /** The content type. */
  t: string;
}

/** The content a standard or pq receipt is about. */
export interface ProfileContent {
  /** 64 lowercase hex characters. */
  sha256: string;
  /** The content type. */
  type: string;
}

/** The caller's fields of a standard receipt. */
export interface StandardFields {
  agent_did: string;
  content: ProfileContent;
  /** A settlement rail reference; not proof of payment or anchoring. Omitted when absent. */
  settlement_reference?: { rail: string; chain_id: number; asset: string };
  smsh: { sealed: boolean; declaration: string };
  hktn_context: { reputation_tier: string };
}

/** The caller's fields of a pq receipt (`sealed_evidence_ref` is always null in r1.0.0). */
export interface PqFields {
  agent_did: string;
  content: ProfileContent;
  crypto_agile_metadata: { current_alg: string; signature_posture: string; envelope_posture: string };
  pq_posture: string;
  auditor_verifier: boolean;
}

/** The fields each profile takes. */
export interface ProfileFieldsByName {
  nano: NanoFields;
  standard: StandardFields;
  pq: PqFields;
}

/** Options for {@link issueProfileReceipt}. */
export interface ProfileIssueOptions {
  /** The issuing instant: nano `i` (Unix seconds), `issued_at` and the id's ULID time. Default: now. */
  now?: Date;
  /** The receipt id (`rcp_` + ULID). Default: a new ULID from `now` and the provider's randomness. */
  id?: string;
  /** `receipt.verify_uri`. Default {@link DEFAULT_VERIFY_URI}. */
  verifyUri?: string;
}

/** Options for {@link issueLegacyReceipt}. */
export interface LegacyIssueOptions extends ProfileIssueOptions {
  /** Also write `receipt_schema_version` (legacy emits usually lack it). Default false. */
  schemaVersion?: boolean;
}

/** The tiers a legacy proof_tier receipt may name. */
export type LegacyTier = 'standard' | 'pq';

const VALIDATORS: Readonly<Record<ProfileName, SchemaValidator>> = {
  nano: validateNano,
  standard: validateStandard,
  pq: validatePq,
};

/**
 * The fields do not fit the profile's schema: a TypeError (as every argument check of the
 * signer) that also names the first offending field, so a door can point at its own input.
 */
export class ProfileFieldsError extends TypeError {
  /** JSON Pointer into the receipt (`/a`, `/content/type`); `''` for the whole. */
  readonly path: string;
  /** What is wrong there, without the path (`must NOT have more than 256 characters`). */
  readonly reason: string;
  constructor(message: string, path: string, reason: string) {
    super(message);
    this.name = 'ProfileFieldsError';
    this.path = path;
    this.reason = reason;
  }
}

/** The receipt would exceed its profile's byte budget: a RangeError with the sizes. */
export class ProfileBudgetError extends RangeError {
  /** The receipt's JCS size in bytes. */
  readonly size: number;
  /** The profile's budget in bytes. */
  readonly budget: number;
  constructor(message: string, size: number, budget: number) {
    super(message);
    this.name = 'ProfileBudgetError';
    this.size = size;
    this.budget = budget;
  }
}

/**
 * Issue a signed profile receipt.
 *
 * Signs `SHA-256(JCS(receipt without receipt.sig_b64u))` with Ed25519 and writes the signature
 * as `receipt.sig_b64u`. Members are written in the order of the spec's tables.
 *
 * @param profile - `nano`, `standard` or `pq`.
 * @param fields - The profile's own fields (see {@link ProfileFieldsByName}).
 * @param seed - The 32-byte Ed25519 secret seed.
 * @param keyId - The signing key's id (written as `receipt.k` in nano, `receipt.key_id` otherwise).
 * @param crypto - The crypto provider (signing, hashing, randomness for the id).
 * @param options - Instant, id and verify route.
 * @returns The signed receipt.
 * @throws TypeError if `profile` is unknown, `fields` is not an object, `keyId` is not a key id,
 *   `options.now` is not a valid Date, `options.id` is not a receipt id, or the fields do not fit
 *   the profile's schema ({@link ProfileFieldsError}: the message and `path` name the first
 *   offending path).
 * @throws RangeError if the seed is not 32 bytes or the receipt exceeds its byte budget
 *   ({@link ProfileBudgetError}).
 * @example issueProfileReceipt('nano', { ok: true, a: did, h: `sha256:${hex}`, t: 'text/plain' }, seed, keyId, crypto)
 */
export function issueProfileReceipt<P extends ProfileName>(
  profile: P,
  fields: ProfileFieldsByName[P],
  seed: Uint8Array,
  keyId: string,
  crypto: CryptoProvider,
  options: ProfileIssueOptions = {},
): JsonObject {
  if (!PROFILE_NAMES.includes(profile))
    throw new TypeError(`Unknown receipt profile ${JSON.stringify(String(profile))}`);
  const unsigned = buildUnsigned(profile, fields as unknown as JsonObject, keyId, crypto, options, undefined, true);
  return signAndCheck(unsigned, profile, VALIDATORS[profile], `${profile} receipt`, seed, crypto);
}

/**
 * Issue a legacy receipt: a standard or pq receipt with `proof_tier` in place of
 * `receipt_profile`, as older issuers emitted.
 *
 * @param tier - `standard` or `pq`.
 * @param fields - The tier's fields.
 * @param seed - The 32-byte Ed25519 secret seed.
 * @param keyId - The signing key's id.
 * @param crypto - The crypto provider.
 * @param options - Instant, id, verify route, and whether to write `receipt_schema_version`.
 * @returns The signed legacy receipt.
 * @throws TypeError and RangeError as {@link issueProfileReceipt} does.
 */
export function issueLegacyReceipt<T extends LegacyTier>(
  tier: T,
  fields: ProfileFieldsByName[T],
  seed: Uint8Array,
  keyId: string,
  crypto: CryptoProvider,
  options: LegacyIssueOptions = {},
): JsonObject {
  if (tier !== 'standard' && tier !== 'pq') throw new TypeError(`Unknown proof_tier ${JSON.stringify(String(tier))}`);
  const unsigned = buildUnsigned(
    tier,
    fields as unknown as JsonObject,
    keyId,
    crypto,
    options,
    tier,
    options.schemaVersion ?? false,
  );
  return signAndCheck(unsigned, tier, validateLegacy, `legacy ${tier} receipt`, seed, crypto);
}

function buildUnsigned(
  profile: ProfileName,
  fields: JsonObject,
  keyId: string,
  crypto: CryptoProvider,
  options: ProfileIssueOptions,
  legacyTier: LegacyTier | undefined,
  schemaVersion: boolean,
): JsonObject {
  if (!isJsonObject(fields)) throw new TypeError('Receipt fields must be an object');
  if (!isKeyId(keyId)) throw new TypeError(`Not a key id: ${JSON.stringify(String(keyId))}`);
  if (typeof crypto !== 'object' || crypto === null) throw new TypeError('issueProfileReceipt needs a CryptoProvider');
  const now = options.now ?? new Date();
  if (!(now instanceof Date) || !Number.isFinite(now.getTime()))
    throw new TypeError('options.now must be a valid Date');
  const id = options.id ?? createReceiptId(now, crypto.randomBytes);
  if (!isReceiptId(id)) throw new TypeError(`Not a receipt id (rcp_ + ULID): ${JSON.stringify(String(id))}`);
  const verifyUri = options.verifyUri ?? DEFAULT_VERIFY_URI;

  if (profile === 'nano') {
    return {
      ok: fields['ok'] ?? null,
      a: fields['a'] ?? null,
      h: fields['h'] ?? null,
      t: fields['t'] ?? null,
      profile: 'nano',
      v: PROFILE_SCHEMA_VERSION,
      i: Math.floor(now.getTime() / 1000),
      receipt: { id, k: keyId, verify_uri: verifyUri },
    };
  }
  const issuedAt = now.toISOString();
  // toISOString writes six-digit years outside 0000-9999, which TS cannot express.
  if (!isTimestamp(issuedAt)) throw new TypeError(`options.now is outside the years TS can write: ${issuedAt}`);
  const unsigned: JsonObject = {};
  if (legacyTier === undefined) unsigned['receipt_profile'] = profile;
  else unsigned['proof_tier'] = legacyTier;
  if (schemaVersion) unsigned['receipt_schema_version'] = PROFILE_SCHEMA_VERSION;
  unsigned['agent_did'] = fields['agent_did'] ?? null;
  unsigned['content'] = fields['content'] ?? null;
  unsigned['issued_at'] = issuedAt;
  if (profile === 'standard') {
    if (fields['settlement_reference'] !== undefined) unsigned['settlement_reference'] = fields['settlement_reference'];
    unsigned['smsh'] = fields['smsh'] ?? null;
    unsigned['hktn_context'] = fields['hktn_context'] ?? null;
  } else {
    unsigned['crypto_agile_metadata'] = fields['crypto_agile_metadata'] ?? null;
    unsigned['sealed_evidence_ref'] = null;
    unsigned['pq_posture'] = fields['pq_posture'] ?? null;
    unsigned['auditor_verifier'] = fields['auditor_verifier'] ?? null;
  }
  unsigned['receipt'] = { id, key_id: keyId, verify_uri: verifyUri };
  return unsigned;
}

function signAndCheck(
  unsigned: JsonObject,
  profile: ProfileName,
  validator: SchemaValidator,
  what: string,
  seed: Uint8Array,
  crypto: CryptoProvider,
): JsonObject {
  const signature = crypto.ed25519Sign(profileDigest(unsigned, crypto.sha256), seed);
  // The signature goes before verify_uri, the order of the spec's receipt block.
  const { verify_uri: verifyUri = null, ...head } = unsigned['receipt'] as JsonObject;
  const signed: JsonObject = {
    ...unsigned,
    receipt: { ...head, sig_b64u: b64uEncode(signature), verify_uri: verifyUri },
  };
  if (!validator(signed)) {
    const [first] = schemaErrorsToReport(validator.errors);
    throw new ProfileFieldsError(
      `Cannot issue this ${what}: ${first?.path || '(document)'} ${first?.message ?? 'does not fit the schema'}`,
      first?.path ?? '',
      first?.message ?? 'does not fit the schema',
    );
  }
  const budget = PROFILE_BYTE_BUDGETS[profile];
  const size = profileByteLength(signed);
  if (budget !== undefined && size > budget) {
    throw new ProfileBudgetError(
      `Cannot issue this ${what}: it is ${size} bytes as JCS, over the ${budget}-byte budget`,
      size,
      budget,
    );
  }
  return signed;
}
