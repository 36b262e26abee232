/**
 * Wearable measurement receipt verification (spec 2.1 and 2.2, PROTOCOL section 2).
 *
 * Steps, each its own check:
 * 1. `schema`: the published JSON Schema (unknown members at any of the three levels, bounds,
 *    patterns, constants, exactly one of value / value_commitment_sha256, a calibration
 *    classification without a reference, verdict flags that are not false, a wrong boundary)
 *    plus calendar validity of the TS fields. Any problem is MALFORMED and stops verification.
 * 2. `payload_sha256` and `signature`: Rule D1 under the service key named by `key_id` (digest
 *    differs: MISMATCH; signature fails: INVALID; no key: INDETERMINATE). The report's trust is
 *    the service key's.
 * 3. `device_signature`: the Ed25519 device signature over the canonical message M, under the
 *    receipt's own `device_public_key`.
 * 4. `receipt_id` and `recorded_at`: consistency with `ts` (MISMATCH).
 * 5. `derived.<field>` for each derived field: recomputed from the receipt's caller fields and
 *    compared; each disagreement is its own MISMATCH with the expected and found values.
 *
 * Decisions:
 * - An invalid device signature makes the status INVALID, even when the receipt honestly says
 *   `signature_relation: "invalid"`. PROTOCOL section 1 defines INVALID as "a signature does not
 *   verify over consistent content", which is exactly this case, and the report builder keeps
 *   "a failing check raises the status" true for every format, so no consumer sees a PASS
 *   beside a failing check. The receipt's own honesty stays visible: `signature` (the service
 *   signature) and every `derived.*` check pass, `device_signature` fails, and a note says the
 *   receipt is authentic and consistent but records a measurement whose provenance is
 *   inconsistent. A receipt that wrongly claims `valid` is MISMATCH besides (precedence).
 * - Other unresolved provenance (a unit mismatch, a sequence gap, an untrusted calibration) is
 *   not a cryptographic failure: the receipt records it in `elements` and `outcome`, and a
 *   note restates the recorded outcome. Status describes the document, `outcome` the
 *   measurement.
 * - `recorded_at` must fall within the second `ts` names (ts = floor of recorded_at in Unix
 *   seconds): the issuer writes the same instant in both, and a service with a sub-second clock
 *   may write its milliseconds into recorded_at while ts keeps whole seconds.
 * - `receipt_id` is compared with `ts` and the recomputed observation hash (not the claimed
 *   `observation_sha256`), so altering the claimed hash fails `derived.observation_sha256` alone.
 * - The verdict flags and the boundary are constants of the schema, so a wrong one is MALFORMED
 *   (PROTOCOL section 2), not a derived-field MISMATCH.
 * - device_public_key is carried by the receipt itself: a valid device signature shows the
 *   observation was signed by that key, not which device holds it, and it never affects trust.
 */
import type { JsonNode } from '../../json/types';
import { type JsonObject, memberString, objectMember, problem } from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import type { Report } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';
import { checkRuleD1 } from '../../verify/signature';
import { timestampToMillis } from '../../verify/timestamp';
import { deriveFromEvidence, observationEvidence } from './derive';
import {
  WEARABLE_FORMAT,
  WEARABLE_RECEIPT_ID_PREFIX,
  WEARABLE_RECEIPT_TYPE,
  type WearableDerivedFields,
  type WearableReceipt,
} from './fields';
import { wearableShapeProblems } from './schema';
import { wearableReceiptId } from './sign';

/** The derived fields compared one by one (verdict and boundary are schema constants). */
export const WEARABLE_COMPARED_FIELDS = [
  'observation_sha256',
  'signature_relation',
  'metric_unit_relation',
  'clock_lag_ms',
  'sequence_relation',
  'calibration_relation',
  'assignment_relation',
  'elements',
  'outcome',
] as const satisfies readonly (keyof WearableDerivedFields)[];

/** The checks of a wearable report, in report order. */
export const WEARABLE_CHECKS = Object.freeze([
  'schema',
  'payload_sha256',
  'signature',
  'device_signature',
  'receipt_id',
  'recorded_at',
  ...WEARABLE_COMPARED_FIELDS.map((name) => `derived.${name}`),
] as const);

/** The note every wearable report carries. */
export const WEARABLE_SCOPE_NOTE =
  'A wearable receipt establishes signed measurement provenance only; it does not establish subject identity, clinical validity or fitness for diagnosis.';

/** The note on the device key. */
export const WEARABLE_DEVICE_KEY_NOTE =
  'The device public key is carried by the receipt itself: a valid device signature shows which key signed the observation, not which device holds it; trust describes the service key only.';

/**
 * Recognize a wearable receipt: an object whose `signed_body.receipt_type` is `ppr.wearable`,
 * or whose `receipt_id` starts with `r_ppr.wearable_`.
 *
 * Either marker suffices, so a receipt that lost one of them is reported as a MALFORMED wearable
 * receipt rather than an unknown document.
 *
 * @param node - Any parsed document.
 * @returns `wearable/r2.0.0` or undefined.
 */
export function detectWearable(node: JsonNode): 'wearable/r2.0.0' | undefined {
  if (memberString(objectMember(node, 'signed_body'), 'receipt_type') === WEARABLE_RECEIPT_TYPE) return WEARABLE_FORMAT;
  const receiptId = memberString(node, 'receipt_id');
  return receiptId?.startsWith(WEARABLE_RECEIPT_ID_PREFIX) === true ? WEARABLE_FORMAT : undefined;
}

/**
 * Verify a wearable receipt.
 *
 * @param input - The parsed document and context.
 * @returns The report; format `wearable/r2.0.0`, trust of the service key.
 */
export function verifyWearable(input: FormatInput): Report {
  const builder = new ReportBuilder(WEARABLE_FORMAT, WEARABLE_CHECKS);
  builder.note(WEARABLE_SCOPE_NOTE);
  const { value, ctx } = input;
  const problems = wearableShapeProblems(value);
  if (problems.length > 0) {
    builder.fail('MALFORMED', 'schema', 'The document does not fit the wearable/r2.0.0 schema.', problems);
    return builder.build();
  }
  builder.pass(
    'schema',
    'Every member fits the wearable/r2.0.0 schema: no unknown member, bounds and patterns kept, real calendar dates, the verdict flags false and the boundary text exact.',
  );
  const receipt = value as unknown as WearableReceipt;
  const body = receipt.signed_body;

  checkRuleD1(builder, ctx, value as JsonObject, receipt.key_id);

  const evidence = observationEvidence(body, ctx.crypto);
  if (evidence.signatureValid) {
    builder.pass(
      'device_signature',
      'The device signature (Ed25519) verifies over the canonical observation message under device_public_key.',
    );
  } else {
    builder.fail(
      'INVALID',
      'device_signature',
      'The device signature does not verify over the canonical observation message under device_public_key.',
      problem(
        'device_signature_invalid',
        '/signed_body/device_signature',
        'The device signature does not verify over the canonical observation message.',
      ),
    );
    builder.note(
      body.signature_relation === 'invalid'
        ? 'The receipt records an observation whose device signature does not verify (signature_relation invalid): the measurement provenance is inconsistent, whatever the service signature shows.'
        : 'The device signature does not verify, yet the receipt claims signature_relation valid.',
    );
  }

  const expectedId = wearableReceiptId(receipt.ts, evidence.observationSha256);
  if (receipt.receipt_id === expectedId) {
    builder.pass('receipt_id', 'receipt_id is r_ppr.wearable_<ts>_<first 12 hex of the observation hash>.');
  } else {
    builder.fail(
      'MISMATCH',
      'receipt_id',
      `receipt_id disagrees with ts and the observation hash: expected ${JSON.stringify(expectedId)}, found ${JSON.stringify(receipt.receipt_id)}.`,
      problem('receipt_id_mismatch', '/receipt_id', `Expected ${JSON.stringify(expectedId)}.`),
    );
  }

  const recordedSecond = Math.floor(timestampToMillis(body.recorded_at) / 1000);
  if (recordedSecond === receipt.ts) {
    builder.pass('recorded_at', 'recorded_at falls within the second ts names.');
  } else {
    builder.fail(
      'MISMATCH',
      'recorded_at',
      `recorded_at is Unix second ${String(recordedSecond)}, but ts is ${String(receipt.ts)}: they must name the same instant.`,
      problem(
        'recorded_at_mismatch',
        '/signed_body/recorded_at',
        `recorded_at must fall within Unix second ${String(receipt.ts)} (ts).`,
      ),
    );
  }

  const derived = deriveFromEvidence(body, evidence);
  for (const name of WEARABLE_COMPARED_FIELDS) {
    const expected = JSON.stringify(derived[name]);
    const found = JSON.stringify(body[name]);
    if (expected === found) {
      builder.pass(`derived.${name}`, `${name} ${found} agrees with the value recomputed from the receipt's fields.`);
    } else {
      builder.fail(
        'MISMATCH',
        `derived.${name}`,
        `${name} disagrees with the receipt's own fields: expected ${expected}, found ${found}.`,
        problem('derived_mismatch', `/signed_body/${name}`, `${name} must be ${expected} (recomputed), not ${found}.`),
      );
    }
  }

  builder.note(WEARABLE_DEVICE_KEY_NOTE);
  const elements = body.elements.length > 0 ? ` (unresolved: ${body.elements.join(', ')})` : '';
  builder.note(`The receipt records the outcome ${body.outcome}${elements}.`);
  return builder.build();
}
