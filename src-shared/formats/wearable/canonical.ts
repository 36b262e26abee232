/**
 * The canonical wearable observation message M (PROTOCOL section 2).
 *
 * `M = JCS(o)`, where `o` holds the domain string, the observation nonce, the three commitments
 * (subject assignment, device identifier, firmware), the device model, metric type and unit,
 * exactly one of `value` / `value_commitment_sha256`, `observed_at`, `sequence_no`, and
 * `prior_sequence_no` and `calibration_ref` when present. The device signs M itself (its UTF-8
 * bytes); `observation_sha256` is the hex SHA-256 of the same bytes.
 *
 * Fields outside that list (record id, evidence digest, device public key, gateway time, trust
 * classifications, everything derived) are not part of M: they are the service's record of the
 * observation, bound by the service signature instead.
 */
import { jcs } from '../../json';
import type { JsonValue } from '../../json/types';
import type { JsonObject } from '../../verify/fields';
import type { WearableObservation } from './fields';

/** The domain separator in every canonical observation message. */
export const OBSERVATION_DOMAIN = 'ppr.wearable.observation/r2.0.0';

/** The string members of `o` that are always present. */
const REQUIRED_STRINGS = [
  'observation_nonce',
  'subject_assignment_sha256',
  'device_id_commitment_sha256',
  'firmware_sha256',
  'device_model',
  'metric_type',
  'unit',
  'observed_at',
] as const;

/**
 * Build the object `o` whose JCS is the canonical observation message.
 *
 * Only the listed members are copied, so a whole `signed_body` (or a caller's field set) can be
 * passed in.
 *
 * @param fields - The observation fields; other members are ignored.
 * @returns `o`, a fresh object.
 * @throws TypeError if a required member is missing or of the wrong type, if both or neither of
 *   `value` and `value_commitment_sha256` are present, or if an integer is not a non-negative
 *   safe integer.
 * @example observationObject(fields).domain // 'ppr.wearable.observation/r2.0.0'
 */
export function observationObject(fields: WearableObservation): JsonObject {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw new TypeError('The observation fields must be an object');
  }
  const source = fields as unknown as Readonly<Record<string, unknown>>;
  const object: JsonObject = { domain: OBSERVATION_DOMAIN };
  for (const name of REQUIRED_STRINGS) {
    const member = source[name];
    if (typeof member !== 'string') throw new TypeError(`The observation needs "${name}" as a string`);
    object[name] = member;
  }
  object['sequence_no'] = countMember(source, 'sequence_no');
  if (source['prior_sequence_no'] !== undefined) object['prior_sequence_no'] = countMember(source, 'prior_sequence_no');
  if (source['calibration_ref'] !== undefined) {
    if (typeof source['calibration_ref'] !== 'string') throw new TypeError('"calibration_ref" must be a string');
    object['calibration_ref'] = source['calibration_ref'];
  }
  const value = source['value'];
  const commitment = source['value_commitment_sha256'];
  if ((value === undefined) === (commitment === undefined)) {
    throw new TypeError('Exactly one of "value" and "value_commitment_sha256" must be present');
  }
  if (value !== undefined) {
    if (
      typeof value !== 'string' &&
      typeof value !== 'boolean' &&
      !(typeof value === 'number' && Number.isFinite(value))
    ) {
      throw new TypeError('"value" must be a finite number, a string or a boolean');
    }
    object['value'] = value as JsonValue;
  } else {
    if (typeof commitment !== 'string') throw new TypeError('"value_commitment_sha256" must be a string');
    object['value_commitment_sha256'] = commitment;
  }
  return object;
}

/**
 * The canonical observation message M as text: JCS of {@link observationObject}.
 *
 * @param fields - The observation fields; other members are ignored.
 * @returns M; sign or hash its UTF-8 bytes.
 * @throws TypeError as {@link observationObject}.
 */
export function canonicalObservation(fields: WearableObservation): string {
  return jcs(observationObject(fields));
}

function countMember(source: Readonly<Record<string, unknown>>, name: string): number {
  const member = source[name];
  if (typeof member !== 'number' || !Number.isSafeInteger(member) || member < 0) {
    throw new TypeError(`"${name}" must be a non-negative safe integer`);
  }
  return member;
}
