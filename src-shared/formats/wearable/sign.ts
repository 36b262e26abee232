/**
 * Issuing wearable receipts (the service side) and signing observations (the device side).
 *
 * `issueWearable` is what the future `POST /v1/wearable/receipts` route runs: it takes exactly
 * the caller fields of spec 2.2, refuses anything else (a derived field, the verdict, a
 * service-set field or an unknown name is a {@link WearableInputError}, which the route answers
 * with 400), validates them against the published schema, computes every derived field and signs
 * the receipt under Rule D1. An invalid device signature is not refused: the receipt records it
 * as `signature_relation: "invalid"` (spec section 7).
 *
 * Issuer decisions:
 * - `ts` is the Unix second of issuance and `recorded_at` the same instant as TS with
 *   millisecond precision (`.000Z`, since `ts` has whole seconds).
 * - `receipt_id` is `r_ppr.wearable_<ts>_<first 12 hex of observation_sha256>`.
 * - The issued receipt's members are in JCS order (signRuleD1 writes them so).
 */
import { DomainError } from '../../api/domain-error';
import { b64uEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { pointerAppend } from '../../json';
import type { JsonValue } from '../../json/types';
import { isJsonObject, problem, type JsonObject } from '../../verify/fields';
import type { ReportError } from '../../verify/report';
import { signRuleD1 } from '../../verify/signature';
import { canonicalObservation } from './canonical';
import { deriveWearable, wearableVerdict } from './derive';
import {
  WEARABLE_BOUNDARY,
  WEARABLE_CALLER_FIELDS,
  WEARABLE_DERIVED_FIELDS,
  WEARABLE_RECEIPT_ID_PREFIX,
  WEARABLE_RECEIPT_TYPE,
  WEARABLE_SCHEMA_VERSION,
  WEARABLE_SERVICE_FIELDS,
  type WearableCallerFields,
  type WearableObservation,
  type WearableReceipt,
} from './fields';
import { wearableShapeProblems } from './schema';

/** The spec 2.1 shape of a wearable receipt's key_id. */
export const WEARABLE_KEY_ID_PATTERN = /^did:(svc|web|key):[A-Za-z0-9._:%-]+$/;

/** The smallest `ts` the schema allows (spec 2.1). */
export const WEARABLE_MIN_TS = 1_000_000_000;
/** The largest `ts` whose instant a TS can write (9999-12-31T23:59:59Z). */
export const WEARABLE_MAX_TS = 253_402_300_799;

/** Options for {@link issueWearable}. */
export interface IssueWearableOptions {
  /** Unix seconds of issuance; default the current second. */
  ts?: number;
}

/**
 * Caller input the issuer refuses; `details` says which member and why.
 *
 * Paths are JSON Pointers into the caller's field set (`/sequence_no`), ready for a 400 answer.
 */
export class WearableInputError extends DomainError {
  override readonly code = 'invalid_request';
  override readonly kind = 'invalid_input';
  override readonly details: readonly ReportError[];

  /**
   * @param details - One error per refused member or value.
   */
  constructor(details: readonly ReportError[]) {
    const summary = details
      .slice(0, 5)
      .map((detail) => `${detail.path || '(document)'}: ${detail.message}`)
      .join('; ');
    super(
      `The wearable observation cannot be issued: ${summary}${details.length > 5 ? `; and ${details.length - 5} more` : ''}`,
    );
    this.name = 'WearableInputError';
    this.details = details.map((detail) => ({ ...detail }));
  }
}

/**
 * Issue a wearable receipt from caller fields.
 *
 * @param callerFields - Exactly the caller fields of spec 2.2 (device_signature included).
 * @param serviceSeed - The service's 32-byte Ed25519 secret seed.
 * @param serviceKeyId - The service key id, `did:svc|web|key:<identifier>`.
 * @param crypto - The crypto provider.
 * @param options - The issuance second.
 * @returns The signed receipt.
 * @throws TypeError if `callerFields` is not an object or `serviceKeyId` is not a key id.
 * @throws RangeError if `options.ts` is not an integer from 1000000000 to 253402300799, or the
 *   seed is not 32 bytes.
 * @throws WearableInputError if the caller fields hold a derived, verdict, service-set or unknown
 *   member, or break the schema (missing field, bad pattern or bound, both or neither of value
 *   and value_commitment_sha256, a classification without a reference, an impossible date).
 */
export function issueWearable(
  callerFields: WearableCallerFields | JsonObject,
  serviceSeed: Uint8Array,
  serviceKeyId: string,
  crypto: CryptoProvider,
  options: IssueWearableOptions = {},
): WearableReceipt {
  if (!isJsonObject(callerFields as JsonValue)) throw new TypeError('The caller fields must be a JSON object');
  if (typeof serviceKeyId !== 'string' || !WEARABLE_KEY_ID_PATTERN.test(serviceKeyId)) {
    throw new TypeError(`Not a wearable service key id (did:svc|web|key:<identifier>): ${String(serviceKeyId)}`);
  }
  if (!(serviceSeed instanceof Uint8Array)) throw new TypeError('The service seed must be a Uint8Array');
  if (serviceSeed.length !== 32) throw new RangeError(`The service seed must be 32 bytes, got ${serviceSeed.length}`);
  const ts = options.ts ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(ts) || ts < WEARABLE_MIN_TS || ts > WEARABLE_MAX_TS) {
    throw new RangeError(`ts must be an integer from ${WEARABLE_MIN_TS} to ${WEARABLE_MAX_TS}, got ${String(ts)}`);
  }
  const caller = callerFields as JsonObject;
  const refused = refusedMembers(caller);
  if (refused.length > 0) throw new WearableInputError(refused);

  const recordedAt = new Date(ts * 1000).toISOString();
  const fields: JsonObject = {};
  for (const name of WEARABLE_CALLER_FIELDS) {
    const member = caller[name];
    if (member !== undefined) fields[name] = structuredJson(member);
  }
  const shape = wearableShapeProblems(probeReceipt(fields, ts, serviceKeyId, recordedAt));
  if (shape.length > 0) throw new WearableInputError(shape.map(callerProblem));

  const typed = fields as unknown as WearableCallerFields;
  const derived = deriveWearable(typed, crypto);
  const body: JsonObject = {
    receipt_type: WEARABLE_RECEIPT_TYPE,
    schema: WEARABLE_SCHEMA_VERSION,
    ...fields,
    recorded_at: recordedAt,
    ...(derived as unknown as JsonObject),
  };
  const unsigned: JsonObject = {
    receipt_id: wearableReceiptId(ts, derived.observation_sha256),
    key_id: serviceKeyId,
    algorithm: 'Ed25519',
    ts,
    signed_body: body,
  };
  return signRuleD1(unsigned, serviceSeed, crypto) as unknown as WearableReceipt;
}

/**
 * Sign an observation as the device does: Ed25519 over the canonical message M itself.
 *
 * @param observation - The observation fields (a caller field set without or with
 *   device_signature; only M's members are read).
 * @param deviceSeed - The device's 32-byte Ed25519 secret seed.
 * @param crypto - The crypto provider.
 * @returns `device_signature`: unpadded base64url of the 64-byte signature.
 * @throws TypeError if the observation fields are missing or mistyped.
 * @throws RangeError if the seed is not 32 bytes.
 */
export function signObservation(
  observation: WearableObservation,
  deviceSeed: Uint8Array,
  crypto: CryptoProvider,
): string {
  const message = utf8Encode(canonicalObservation(observation));
  return b64uEncode(crypto.ed25519Sign(message, deviceSeed));
}

/**
 * The receipt id for an issuance second and an observation hash.
 *
 * @param ts - Unix seconds.
 * @param observationSha256 - hex SHA-256 of M.
 * @returns `r_ppr.wearable_<ts>_<first 12 hex>`.
 * @example wearableReceiptId(1773480420, 'ab12...') // 'r_ppr.wearable_1773480420_ab12...'
 */
export function wearableReceiptId(ts: number, observationSha256: string): string {
  return `${WEARABLE_RECEIPT_ID_PREFIX}${String(ts)}_${observationSha256.slice(0, 12)}`;
}

function refusedMembers(caller: JsonObject): ReportError[] {
  const derived: readonly string[] = WEARABLE_DERIVED_FIELDS;
  const service: readonly string[] = WEARABLE_SERVICE_FIELDS;
  const allowed: readonly string[] = WEARABLE_CALLER_FIELDS;
  const problems: ReportError[] = [];
  for (const name of Object.keys(caller)) {
    const path = pointerAppend('', name);
    if (name === 'verdict') {
      problems.push(problem('derived_field', path, 'The verdict is computed by the service and cannot be supplied.'));
    } else if (derived.includes(name)) {
      problems.push(problem('derived_field', path, `"${name}" is derived by the service and cannot be supplied.`));
    } else if (service.includes(name)) {
      problems.push(problem('service_field', path, `"${name}" is set by the service and cannot be supplied.`));
    } else if (!allowed.includes(name)) {
      problems.push(
        problem(
          'unknown_property',
          path,
          `${JSON.stringify(name.slice(0, 64))} is not a caller field of the wearable receipt.`,
        ),
      );
    }
  }
  return problems;
}

/**
 * A receipt with the caller's fields and valid placeholders everywhere else, so that the
 * published schema judges the caller's fields and only them.
 */
function probeReceipt(fields: JsonObject, ts: number, keyId: string, recordedAt: string): JsonObject {
  const zeros = '0'.repeat(64);
  return {
    receipt_id: wearableReceiptId(ts, zeros),
    payload_sha256: zeros,
    sig_b64u: 'A'.repeat(86),
    key_id: keyId,
    algorithm: 'Ed25519',
    ts,
    signed_body: {
      receipt_type: WEARABLE_RECEIPT_TYPE,
      schema: WEARABLE_SCHEMA_VERSION,
      ...fields,
      recorded_at: recordedAt,
      verdict: wearableVerdict() as unknown as JsonObject,
      boundary: WEARABLE_BOUNDARY,
      observation_sha256: zeros,
      metric_unit_relation: 'indeterminate',
      signature_relation: 'invalid',
      clock_lag_ms: 0,
      sequence_relation: 'indeterminate',
      calibration_relation: 'not_applicable',
      assignment_relation: 'indeterminate',
      elements: [],
      outcome: 'measurement_provenance_partial',
    },
  };
}

function callerProblem(error: ReportError): ReportError {
  const path = error.path.startsWith('/signed_body') ? error.path.slice('/signed_body'.length) : error.path;
  return { ...error, path };
}

function structuredJson(value: JsonValue): JsonValue {
  // The caller's values are copied, so later changes to the caller's object cannot reach the receipt.
  return typeof value === 'object' && value !== null ? (JSON.parse(JSON.stringify(value)) as JsonValue) : value;
}
