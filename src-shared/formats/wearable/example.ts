/**
 * The worked example of the wearable receipt, for docs/protocol.md and as a fixture.
 *
 * Everything is fixed: the device seed (32 bytes of 0x44, "D"), the service seed (32 bytes of
 * 0x53, "S"), the service key id, the times and the issuance second. The commitments are the
 * SHA-256 of short labelled texts, so a reader can recompute them. The observation carries a
 * nanosecond `observed_at` to show the truncation to milliseconds in `clock_lag_ms`.
 * example.test.ts pins the resulting hashes as literals, so the docs can quote them.
 */
import { hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { ruleD1Payload } from '../../verify/signature';
import type { JsonObject } from '../../verify/fields';
import { canonicalObservation } from './canonical';
import type { WearableCallerFields, WearableReceipt } from './fields';
import { issueWearable, signObservation } from './sign';

/** The example device's 32-byte Ed25519 seed: 0x44 ("D") repeated. Never use outside examples and tests. */
export const WEARABLE_EXAMPLE_DEVICE_SEED_BYTE = 0x44;
/** The example service's 32-byte Ed25519 seed: 0x53 ("S") repeated. Never use outside examples and tests. */
export const WEARABLE_EXAMPLE_SERVICE_SEED_BYTE = 0x53;
/** The example service key id. */
export const WEARABLE_EXAMPLE_KEY_ID = 'did:svc:evroom:wearable-example';
/** The example issuance second: 2026-03-14T09:27:00Z. */
export const WEARABLE_EXAMPLE_TS = 1_773_480_420;

/** Everything the worked example shows, in the order a reader follows it. */
export interface WearableWorkedExample {
  /** What the gateway sends to the issue route (device_signature included). */
  callerFields: WearableCallerFields;
  /** M, the canonical observation message the device signed. */
  canonicalMessage: string;
  /** hex(SHA-256(M)). */
  observationSha256: string;
  /** Rule D1's digest of the receipt. */
  payloadSha256: string;
  /** The issued receipt. */
  receipt: WearableReceipt;
}

/**
 * The example device's seed.
 *
 * @returns 32 bytes of 0x44.
 */
export function wearableExampleDeviceSeed(): Uint8Array {
  return new Uint8Array(32).fill(WEARABLE_EXAMPLE_DEVICE_SEED_BYTE);
}

/**
 * The example service's seed.
 *
 * @returns 32 bytes of 0x53.
 */
export function wearableExampleServiceSeed(): Uint8Array {
  return new Uint8Array(32).fill(WEARABLE_EXAMPLE_SERVICE_SEED_BYTE);
}

/**
 * The example's caller fields without the device signature: a heart rate of 72 /min, sequence 42
 * after 41, trusted assignment and calibration.
 *
 * @param crypto - The provider that hashes the commitments and derives the device key.
 * @returns Fresh caller fields (device_signature set to the empty string, to be signed).
 */
export function wearableExampleObservation(crypto: CryptoProvider): WearableCallerFields {
  const commit = (text: string): string => hexEncode(crypto.sha256(utf8Encode(text)));
  return {
    record_id: 'rec-2026-03-14-0042',
    evidence_digest_sha256: commit('evidence-room example: evidence bundle rec-2026-03-14-0042'),
    subject_assignment_sha256: commit('evidence-room example: subject assignment S-0001 to band B-0042'),
    assignment_trust_classification: 'trusted',
    device_id_commitment_sha256: commit('evidence-room example: device serial B-0042'),
    device_model: 'Evidence Room Reference Band 2',
    firmware_sha256: commit('evidence-room example: firmware 2.4.1'),
    device_public_key: hexEncode(crypto.ed25519PublicKey(wearableExampleDeviceSeed())),
    observation_nonce: 'nonce-7f3a9c21e4b04d58',
    metric_type: 'heart_rate',
    unit: '/min',
    value: 72,
    observed_at: '2026-03-14T09:26:53.589793238Z',
    sequence_no: 42,
    prior_sequence_no: 41,
    gateway_received_at: '2026-03-14T09:26:54.102Z',
    device_signature: '',
    calibration_ref: 'cal-2026-01-band2-0042',
    calibration_trust_classification: 'trusted',
  };
}

/**
 * Build the worked example: sign the observation as the device, issue the receipt as the service.
 *
 * @param crypto - The crypto provider.
 * @returns The caller fields, M, its hash, the receipt's Rule D1 digest and the receipt.
 */
export function wearableWorkedExample(crypto: CryptoProvider): WearableWorkedExample {
  const callerFields = wearableExampleObservation(crypto);
  callerFields.device_signature = signObservation(callerFields, wearableExampleDeviceSeed(), crypto);
  const canonicalMessage = canonicalObservation(callerFields);
  const receipt = issueWearable(callerFields, wearableExampleServiceSeed(), WEARABLE_EXAMPLE_KEY_ID, crypto, {
    ts: WEARABLE_EXAMPLE_TS,
  });
  return {
    callerFields,
    canonicalMessage,
    observationSha256: hexEncode(crypto.sha256(utf8Encode(canonicalMessage))),
    payloadSha256: hexEncode(crypto.sha256(utf8Encode(ruleD1Payload(receipt as unknown as JsonObject)))),
    receipt,
  };
}
