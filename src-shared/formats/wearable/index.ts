/**
 * Wearable measurement receipts (PROTOCOL section 2): recognition, verification, issuance,
 * derivation and the worked example.
 */
import type { FormatModule } from '../../verify/format-module';
import { detectWearable, verifyWearable } from './verify';
import { wearableFacts } from './facts';
import { wearableIssuer } from './issue';
import { wearableSamples } from './samples';
import { wearableSignedContent } from './signed-content';

export {
  WEARABLE_CHECKS,
  WEARABLE_COMPARED_FIELDS,
  WEARABLE_DEVICE_KEY_NOTE,
  WEARABLE_SCOPE_NOTE,
  detectWearable,
  verifyWearable,
} from './verify';
export {
  WEARABLE_KEY_ID_PATTERN,
  WEARABLE_MAX_TS,
  WEARABLE_MIN_TS,
  WearableInputError,
  issueWearable,
  signObservation,
  wearableReceiptId,
} from './sign';
export type { IssueWearableOptions } from './sign';
export { OBSERVATION_DOMAIN, canonicalObservation, observationObject } from './canonical';
export {
  CLOCK_LAG_MAX_MS,
  CLOCK_LAG_MIN_MS,
  METRIC_UNITS,
  assignmentRelation,
  calibrationRelation,
  clockLagMs,
  deriveFromEvidence,
  deriveWearable,
  metricUnitRelation,
  observationEvidence,
  provenanceElements,
  provenanceOutcome,
  sequenceRelation,
  wearableVerdict,
} from './derive';
export type { ElementInputs, ObservationEvidence, OutcomeInputs } from './derive';
export { WEARABLE_SCHEMA_ID, WEARABLE_TIMESTAMP_FIELDS, wearableShapeProblems } from './schema';
export {
  WEARABLE_BOUNDARY,
  WEARABLE_CALLER_FIELDS,
  WEARABLE_DERIVED_FIELDS,
  WEARABLE_FORMAT,
  WEARABLE_RECEIPT_ID_PREFIX,
  WEARABLE_RECEIPT_TYPE,
  WEARABLE_SCHEMA_VERSION,
  WEARABLE_SERVICE_FIELDS,
} from './fields';
export type {
  AssignmentRelation,
  CalibrationRelation,
  MetricUnitRelation,
  ProvenanceElement,
  ProvenanceOutcome,
  SequenceRelation,
  SignatureRelation,
  TrustClassification,
  WearableCallerFields,
  WearableDerivedFields,
  WearableObservation,
  WearableReceipt,
  WearableSignedBody,
  WearableVerdict,
} from './fields';
export {
  WEARABLE_EXAMPLE_DEVICE_SEED_BYTE,
  WEARABLE_EXAMPLE_KEY_ID,
  WEARABLE_EXAMPLE_SERVICE_SEED_BYTE,
  WEARABLE_EXAMPLE_TS,
  wearableExampleDeviceSeed,
  wearableExampleObservation,
  wearableExampleServiceSeed,
  wearableWorkedExample,
} from './example';
export type { WearableWorkedExample } from './example';
export { issueWearableDocument, wearableIssuer } from './issue';
export { wearableFacts } from './facts';
export { wearableSamples } from './samples';
export { wearableSignedContent } from './signed-content';

/** The wearable format's entry in the format registry. */
export const wearableFormat: FormatModule = {
  name: 'wearable/r2.0.0',
  owns: (format) => format === 'wearable/r2.0.0',
  detect: detectWearable,
  verify: verifyWearable,
  signedContent: wearableSignedContent,
  facts: wearableFacts,
  issuers: [wearableIssuer],
  samples: wearableSamples,
};
