/**
 * The wearable receipt's derived fields as a pure function of its caller fields (PROTOCOL
 * section 2).
 *
 * The issuer computes them once; every verifier recomputes them from the receipt's own fields
 * and compares, so the rules live here and nowhere else. Each relation has its own exported
 * function, for tests and for the documentation's tables.
 *
 * Decisions where PROTOCOL is terse:
 * - Metric and unit names are matched exactly (case-sensitive, no trimming): UCUM units are
 *   case-sensitive (`Cel` is not `cel`) and the registry is a closed table.
 * - A device signature that is not the canonical unpadded base64url of 64 bytes, or a device
 *   public key that is not 32 bytes of lowercase hex, does not verify: `signature_relation` is
 *   `invalid` (the schema normally refuses both already).
 * - `clock_lag_ms` truncates each instant to whole milliseconds (digits past the third are
 *   dropped, which is flooring in time) before subtracting; both are integers then, so the
 *   difference is exact.
 */
import { utf8Encode, hexEncode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { decodeB64uField, decodeHexField } from '../../verify/fields';
import { timestampToMillis } from '../../verify/timestamp';
import { canonicalObservation } from './canonical';
import {
  WEARABLE_BOUNDARY,
  type AssignmentRelation,
  type CalibrationRelation,
  type MetricUnitRelation,
  type ProvenanceElement,
  type ProvenanceOutcome,
  type SequenceRelation,
  type SignatureRelation,
  type TrustClassification,
  type WearableCallerFields,
  type WearableDerivedFields,
  type WearableVerdict,
} from './fields';

/**
 * The metric registry: each known metric type with its accepted UCUM units (PROTOCOL section 2).
 */
export const METRIC_UNITS: ReadonlyMap<string, readonly string[]> = new Map([
  ['heart_rate', ['/min']],
  ['respiratory_rate', ['/min']],
  ['spo2', ['%']],
  ['body_temperature', ['Cel', '[degF]']],
  ['step_count', ['1', '{steps}']],
  ['blood_glucose', ['mg/dL', 'mmol/L']],
  ['systolic_bp', ['mm[Hg]']],
  ['diastolic_bp', ['mm[Hg]']],
  ['hrv_rmssd', ['ms']],
  ['body_weight', ['kg', '[lb_av]']],
  ['sleep_duration', ['min', 'h']],
]);

/** The earliest clock lag still resolved: the gateway may see a device clock up to 2 s ahead. */
export const CLOCK_LAG_MIN_MS = -2000;
/** The latest clock lag still resolved: an observation may reach the gateway up to 5 min late. */
export const CLOCK_LAG_MAX_MS = 300_000;

/** What the canonical message and the device signature establish, computed once. */
export interface ObservationEvidence {
  /** M, the canonical observation message. */
  canonicalMessage: string;
  /** hex(SHA-256(M)). */
  observationSha256: string;
  /** Whether device_signature verifies over M under device_public_key. */
  signatureValid: boolean;
}

/**
 * Build M, hash it and verify the device signature over it.
 *
 * @param fields - The caller fields (a whole signed_body works too).
 * @param crypto - The crypto provider.
 * @returns The message, its hash and the signature's validity.
 * @throws TypeError if the observation fields are missing or mistyped (see canonical.ts).
 */
export function observationEvidence(fields: WearableCallerFields, crypto: CryptoProvider): ObservationEvidence {
  const canonicalMessage = canonicalObservation(fields);
  const message = utf8Encode(canonicalMessage);
  const signature = decodeB64uField(fields.device_signature, 64);
  const publicKey = decodeHexField(fields.device_public_key, 32);
  const signatureValid =
    signature !== undefined && publicKey !== undefined && crypto.ed25519Verify(signature, message, publicKey);
  return { canonicalMessage, observationSha256: hexEncode(crypto.sha256(message)), signatureValid };
}

/**
 * Every derived field, from the caller fields.
 *
 * @param fields - Valid caller fields (a whole signed_body works too; derived members in it are
 *   ignored).
 * @param crypto - The crypto provider (SHA-256 and Ed25519 verification).
 * @returns The derived fields, `elements` in PROTOCOL order.
 * @throws TypeError if the observation fields are missing or mistyped.
 * @throws RangeError if `observed_at` or `gateway_received_at` is not a valid TS.
 */
export function deriveWearable(fields: WearableCallerFields, crypto: CryptoProvider): WearableDerivedFields {
  return deriveFromEvidence(fields, observationEvidence(fields, crypto));
}

/**
 * Every derived field, given the already computed observation evidence.
 *
 * @param fields - Valid caller fields.
 * @param evidence - From {@link observationEvidence} over the same fields.
 * @returns The derived fields.
 * @throws RangeError if `observed_at` or `gateway_received_at` is not a valid TS.
 */
export function deriveFromEvidence(fields: WearableCallerFields, evidence: ObservationEvidence): WearableDerivedFields {
  const signatureRelation: SignatureRelation = evidence.signatureValid ? 'valid' : 'invalid';
  const metricUnit = metricUnitRelation(fields.metric_type, fields.unit);
  const clockLag = clockLagMs(fields.observed_at, fields.gateway_received_at);
  const sequence = sequenceRelation(fields.sequence_no, fields.prior_sequence_no);
  const calibration = calibrationRelation(fields.calibration_ref, fields.calibration_trust_classification);
  const assignment = assignmentRelation(fields.assignment_trust_classification);
  const elements = provenanceElements({
    signature: signatureRelation,
    sequence,
    clockLagMs: clockLag,
    calibration,
    assignment,
  });
  return {
    verdict: wearableVerdict(),
    boundary: WEARABLE_BOUNDARY,
    observation_sha256: evidence.observationSha256,
    metric_unit_relation: metricUnit,
    signature_relation: signatureRelation,
    clock_lag_ms: clockLag,
    sequence_relation: sequence,
    calibration_relation: calibration,
    assignment_relation: assignment,
    elements,
    outcome: provenanceOutcome({ signature: signatureRelation, metricUnit, sequence, elements }),
  };
}

/**
 * The verdict: every flag false, always (spec rule 3).
 *
 * @returns A fresh verdict object.
 */
export function wearableVerdict(): WearableVerdict {
  return { subject_identity_proven: false, clinical_validity_proven: false, diagnosis_fitness_proven: false };
}

/**
 * `metric_unit_relation`: a known metric with a listed unit is `matched`, a known metric with
 * another unit `mismatch`, an unknown metric `indeterminate`.
 *
 * @param metricType - `metric_type`.
 * @param unit - `unit`.
 * @returns The relation.
 * @example metricUnitRelation('body_temperature', '[degF]') // 'matched'
 */
export function metricUnitRelation(metricType: string, unit: string): MetricUnitRelation {
  const units = METRIC_UNITS.get(metricType);
  if (units === undefined) return 'indeterminate';
  return units.includes(unit) ? 'matched' : 'mismatch';
}

/**
 * `clock_lag_ms`: gateway_received_at minus observed_at in whole milliseconds, each instant
 * truncated to milliseconds first. Negative when the device clock is ahead of the gateway.
 *
 * @param observedAt - `observed_at`, a TS.
 * @param gatewayReceivedAt - `gateway_received_at`, a TS.
 * @returns The lag in milliseconds.
 * @throws RangeError if either is not a valid TS.
 * @example clockLagMs('2026-01-01T00:00:00.0009Z', '2026-01-01T00:00:00.001Z') // 1
 */
export function clockLagMs(observedAt: string, gatewayReceivedAt: string): number {
  return timestampToMillis(gatewayReceivedAt) - timestampToMillis(observedAt);
}

/**
 * `sequence_relation`: without a prior number, `initial` for sequence 0 and `indeterminate`
 * otherwise; with prior p and sequence s, `contiguous` for s = p + 1, `gap` for s > p + 1 and
 * `out_of_order` for s <= p.
 *
 * @param sequenceNo - `sequence_no`.
 * @param priorSequenceNo - `prior_sequence_no`, when present.
 * @returns The relation.
 */
export function sequenceRelation(sequenceNo: number, priorSequenceNo?: number): SequenceRelation {
  if (priorSequenceNo === undefined) return sequenceNo === 0 ? 'initial' : 'indeterminate';
  if (sequenceNo === priorSequenceNo + 1) return 'contiguous';
  return sequenceNo > priorSequenceNo + 1 ? 'gap' : 'out_of_order';
}

/**
 * `calibration_relation`: `not_applicable` without a calibration reference; with one,
 * `resolved` when trusted, `untrusted` when untrusted, `indeterminate` when unknown or not
 * classified.
 *
 * @param calibrationRef - `calibration_ref`, when present.
 * @param classification - `calibration_trust_classification`, when present.
 * @returns The relation.
 */
export function calibrationRelation(
  calibrationRef: string | undefined,
  classification: TrustClassification | undefined,
): CalibrationRelation {
  if (calibrationRef === undefined) return 'not_applicable';
  if (classification === 'trusted') return 'resolved';
  if (classification === 'untrusted') return 'untrusted';
  return 'indeterminate';
}

/**
 * `assignment_relation`: `resolved` when trusted, `untrusted` when untrusted, `indeterminate`
 * when unknown (an unknown classification is never treated as trusted, spec rule 4).
 *
 * @param classification - `assignment_trust_classification`.
 * @returns The relation.
 */
export function assignmentRelation(classification: TrustClassification): AssignmentRelation {
  if (classification === 'trusted') return 'resolved';
  if (classification === 'untrusted') return 'untrusted';
  return 'indeterminate';
}

/** The relations {@link provenanceElements} reads. */
export interface ElementInputs {
  signature: SignatureRelation;
  sequence: SequenceRelation;
  clockLagMs: number;
  calibration: CalibrationRelation;
  assignment: AssignmentRelation;
}

/**
 * `elements`: the unresolved parts of the provenance, in PROTOCOL order.
 *
 * @param inputs - The relations and the clock lag.
 * @returns `signature_invalid`, `sequence_gap` (gap or out of order), `clock_unresolved` (lag
 *   below -2000 or above 300000 ms), `calibration_unresolved` (untrusted or indeterminate),
 *   `assignment_unresolved` (untrusted or indeterminate), each when its condition holds.
 */
export function provenanceElements(inputs: ElementInputs): ProvenanceElement[] {
  const elements: ProvenanceElement[] = [];
  if (inputs.signature === 'invalid') elements.push('signature_invalid');
  if (inputs.sequence === 'gap' || inputs.sequence === 'out_of_order') elements.push('sequence_gap');
  if (inputs.clockLagMs < CLOCK_LAG_MIN_MS || inputs.clockLagMs > CLOCK_LAG_MAX_MS) elements.push('clock_unresolved');
  if (inputs.calibration === 'untrusted' || inputs.calibration === 'indeterminate') {
    elements.push('calibration_unresolved');
  }
  if (inputs.assignment === 'untrusted' || inputs.assignment === 'indeterminate')
    elements.push('assignment_unresolved');
  return elements;
}

/** The relations {@link provenanceOutcome} reads. */
export interface OutcomeInputs {
  signature: SignatureRelation;
  metricUnit: MetricUnitRelation;
  sequence: SequenceRelation;
  elements: readonly ProvenanceElement[];
}

/**
 * `outcome`: inconsistent when the device signature is invalid, the unit mismatches or the
 * sequence is out of order; otherwise complete when no element is unresolved, the unit matched
 * and the sequence is initial or contiguous; otherwise partial.
 *
 * @param inputs - The relations and the elements.
 * @returns The outcome.
 */
export function provenanceOutcome(inputs: OutcomeInputs): ProvenanceOutcome {
  if (inputs.signature === 'invalid' || inputs.metricUnit === 'mismatch' || inputs.sequence === 'out_of_order') {
    return 'measurement_provenance_inconsistent';
  }
  if (
    inputs.elements.length === 0 &&
    inputs.metricUnit === 'matched' &&
    (inputs.sequence === 'initial' || inputs.sequence === 'contiguous')
  ) {
    return 'measurement_provenance_complete';
  }
  return 'measurement_provenance_partial';
}
