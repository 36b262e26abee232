/**
 * The wearable measurement receipt's fields and constants (spec 2.1 and 2.2, PROTOCOL section 2).
 *
 * Fields fall into three groups, and the issuer and verifier both rely on the split:
 * - caller fields: what the gateway sends to be recorded (the observation, its commitments and
 *   the trust classifications);
 * - service fields: constants and the issuance instant (`receipt_type`, `schema`,
 *   `recorded_at`), set by the service;
 * - derived fields: computed from the caller fields alone (derive.ts), so a verifier recomputes
 *   each of them, and a caller may never supply one.
 */

/** The report format of a wearable receipt. */
export const WEARABLE_FORMAT = 'wearable/r2.0.0';
/** `signed_body.receipt_type`. */
export const WEARABLE_RECEIPT_TYPE = 'ppr.wearable';
/** `signed_body.schema`. */
export const WEARABLE_SCHEMA_VERSION = 'r2.0.0';
/** The prefix of every wearable `receipt_id`. */
export const WEARABLE_RECEIPT_ID_PREFIX = 'r_ppr.wearable_';

/**
 * `signed_body.boundary`: spec rule 8's four fragments joined by single spaces, copied exactly
 * (the lowercase start is the spec's).
 */
export const WEARABLE_BOUNDARY = [
  'the service receipt. It binds a nonce, a subject assignment commitment, a device commitment, firmware,',
  'one metric observation, sequence and clock evidence, and optional calibration evidence into a canonical message,',
  'then verifies the Ed25519 device signature and derives the listed provenance relations.',
  'It verifies signed measurement provenance relations and does not establish subject identity, clinical validity, or fitness for diagnosis.',
].join(' ');

/** A trust classification the caller gives for the subject assignment or the calibration. */
export type TrustClassification = 'trusted' | 'untrusted' | 'unknown';
/** How `unit` relates to `metric_type` in the UCUM registry (derive.ts). */
export type MetricUnitRelation = 'matched' | 'mismatch' | 'indeterminate';
/** Whether the device signature verifies over the canonical message. */
export type SignatureRelation = 'valid' | 'invalid';
/** How `sequence_no` follows `prior_sequence_no`. */
export type SequenceRelation = 'initial' | 'contiguous' | 'gap' | 'out_of_order' | 'indeterminate';
/** What the calibration reference and its classification establish. */
export type CalibrationRelation = 'resolved' | 'untrusted' | 'indeterminate' | 'not_applicable';
/** What the subject assignment classification establishes. */
export type AssignmentRelation = 'resolved' | 'untrusted' | 'indeterminate';
/** One unresolved part of the provenance, listed in `elements`. */
export type ProvenanceElement =
  'signature_invalid' | 'sequence_gap' | 'clock_unresolved' | 'calibration_unresolved' | 'assignment_unresolved';
/** The overall provenance result the receipt records. */
export type ProvenanceOutcome =
  'measurement_provenance_complete' | 'measurement_provenance_partial' | 'measurement_provenance_inconsistent';

/** The fields of the canonical observation message, without the device signature. */
export interface WearableObservation {
  observation_nonce: string;
  subject_assignment_sha256: string;
  device_id_commitment_sha256: string;
  firmware_sha256: string;
  device_model: string;
  metric_type: string;
  unit: string;
  /** Exactly one of `value` and `value_commitment_sha256`. */
  value?: number | string | boolean;
  value_commitment_sha256?: string;
  observed_at: string;
  sequence_no: number;
  prior_sequence_no?: number;
  calibration_ref?: string;
}

/** Every caller field of spec 2.2: what the issue route accepts, and nothing else. */
export interface WearableCallerFields extends WearableObservation {
  record_id: string;
  evidence_digest_sha256: string;
  assignment_trust_classification: TrustClassification;
  device_public_key: string;
  gateway_received_at: string;
  device_signature: string;
  calibration_trust_classification?: TrustClassification;
}

/** The verdict flags: always false (spec rule 3). */
export interface WearableVerdict {
  subject_identity_proven: false;
  clinical_validity_proven: false;
  diagnosis_fitness_proven: false;
}

/** Every field the service computes from the caller fields. */
export interface WearableDerivedFields {
  verdict: WearableVerdict;
  boundary: string;
  observation_sha256: string;
  metric_unit_relation: MetricUnitRelation;
  signature_relation: SignatureRelation;
  clock_lag_ms: number;
  sequence_relation: SequenceRelation;
  calibration_relation: CalibrationRelation;
  assignment_relation: AssignmentRelation;
  elements: ProvenanceElement[];
  outcome: ProvenanceOutcome;
}

/** `signed_body`: caller, service and derived fields together. */
export interface WearableSignedBody extends WearableCallerFields, WearableDerivedFields {
  receipt_type: typeof WEARABLE_RECEIPT_TYPE;
  schema: typeof WEARABLE_SCHEMA_VERSION;
  recorded_at: string;
}

/** A whole wearable receipt (spec 2.1). */
export interface WearableReceipt {
  receipt_id: string;
  payload_sha256: string;
  sig_b64u: string;
  key_id: string;
  algorithm: 'Ed25519';
  ts: number;
  signed_body: WearableSignedBody;
}

/** Names of the caller fields, in spec 2.2 order. */
export const WEARABLE_CALLER_FIELDS = [
  'record_id',
  'evidence_digest_sha256',
  'subject_assignment_sha256',
  'assignment_trust_classification',
  'device_id_commitment_sha256',
  'device_model',
  'firmware_sha256',
  'device_public_key',
  'observation_nonce',
  'metric_type',
  'unit',
  'value',
  'value_commitment_sha256',
  'observed_at',
  'sequence_no',
  'prior_sequence_no',
  'gateway_received_at',
  'device_signature',
  'calibration_ref',
  'calibration_trust_classification',
] as const satisfies readonly (keyof WearableCallerFields)[];

/** Names of the derived fields, in spec 2.2 order (verdict and boundary first). */
export const WEARABLE_DERIVED_FIELDS = [
  'verdict',
  'boundary',
  'observation_sha256',
  'metric_unit_relation',
  'signature_relation',
  'clock_lag_ms',
  'sequence_relation',
  'calibration_relation',
  'assignment_relation',
  'elements',
  'outcome',
] as const satisfies readonly (keyof WearableDerivedFields)[];

/** Names of the signed_body fields the service sets itself. */
export const WEARABLE_SERVICE_FIELDS = ['receipt_type', 'schema', 'recorded_at'] as const;
