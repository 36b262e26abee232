/**
 * Issuing a wearable receipt from caller fields (`evroom sign wearable`): the device's key signs
 * the observation, the issuer's key issues the receipt as the service.
 */
import { hexEncode } from '../../crypto';
import type { JsonObject } from '../../verify/fields';
import type { FormatIssuer, IssueInput, IssuedDocument } from '../../verify/format-module';
import { IssueInputError } from '../../verify/issue-error';
import { copyObject, fieldsObject, issuerKey, publicEntry } from '../../verify/issue-fields';
import { formatJsonDocument } from '../../verify/json-document';
import { timestampToMillis } from '../../verify/timestamp';
import type { WearableCallerFields } from './fields';
import { issueWearable, signObservation, WearableInputError } from './sign';

/**
 * Issue a wearable receipt from the caller fields of spec 2.2.
 *
 * With the device's key the observation is signed here (device_public_key is filled in);
 * without it the fields must carry a device_signature made on the device.
 *
 * @param input - The fields, the issuer (service) key and optionally the `device` role's key.
 * @returns The receipt and the service key that verifies it.
 * @throws IssueInputError (`device_signature_missing`, `device_signature_given`,
 *   `device_key_mismatch`, `issued_at_not_whole_second`, or the first refused field's code with
 *   every refused field in the message).
 */
export function issueWearableDocument(input: IssueInput): IssuedDocument {
  const { key, keyId } = issuerKey(input);
  const fields = copyObject(fieldsObject(input));
  const device = input.roles['device'];
  if (device === undefined) {
    if (!Object.hasOwn(fields, 'device_signature')) {
      throw new IssueInputError(
        'device_signature_missing',
        '/device_signature',
        "the device's key is required to sign the observation (or a device_signature made on the device)",
      );
    }
  } else {
    if (Object.hasOwn(fields, 'device_signature')) {
      throw new IssueInputError(
        'device_signature_given',
        '/device_signature',
        "leave it out when the device's key signs the observation",
      );
    }
    const devicePublicKey = hexEncode(device.public_key);
    if (!Object.hasOwn(fields, 'device_public_key')) fields['device_public_key'] = devicePublicKey;
    else if (fields['device_public_key'] !== devicePublicKey) {
      throw new IssueInputError(
        'device_key_mismatch',
        '/device_public_key',
        "it is not the public key of the device's key",
      );
    }
  }
  const ts = input.issuedAt === undefined ? Math.floor(input.now.getTime() / 1000) : wholeSecond(input.issuedAt);
  try {
    if (device !== undefined) {
      // Check the caller fields first, so a bad field is reported by its path rather than as a
      // failure to build the observation message.
      fields['device_signature'] = 'A'.repeat(86);
      issueWearable(fields, key.seed, keyId, input.crypto, { ts });
      fields['device_signature'] = signObservation(
        fields as unknown as WearableCallerFields,
        device.seed,
        input.crypto,
      );
    }
    const receipt = issueWearable(fields, key.seed, keyId, input.crypto, { ts });
    return { text: formatJsonDocument(receipt as unknown as JsonObject), keys: [publicEntry(key, keyId)], secrets: [] };
  } catch (error) {
    if (error instanceof WearableInputError)
      throw new IssueInputError(error.details[0]?.code ?? 'invalid_fields', '', error.message);
    throw error;
  }
}

function wholeSecond(issuedAt: string): number {
  const millis = timestampToMillis(issuedAt);
  if (millis % 1000 !== 0) {
    throw new IssueInputError(
      'issued_at_not_whole_second',
      '',
      'the issuing instant must be a whole second for a wearable receipt (its ts is Unix seconds)',
    );
  }
  return millis / 1000;
}

/** `evroom sign wearable`. */
export const wearableIssuer: FormatIssuer = {
  name: 'wearable',
  help: [
    'the caller fields of spec 2.2 without device_signature; --device-key signs',
    'the observation (device_public_key is filled in), --key issues the receipt',
  ],
  keyAlgorithm: 'Ed25519',
  keyId: true,
  roles: [{ name: 'device', help: "wearable: the device's private key file" }],
  secret: false,
  issuedAt: true,
  exactNumbers: true,
  wraps: false,
  issue: issueWearableDocument,
};
