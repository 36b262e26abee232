/**
 * svc-receipt-v1 envelope signer: makes valid envelopes from seeds, for tests, samples and
 * benchmarks.
 */
import { b64uEncode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { isJsonObject, type JsonObject } from '../../verify/fields';
import { isKeyId } from '../../verify/keys';
import { ENVELOPE_ROLES, envelopeDigest, withoutSignatures, type EnvelopeRole } from './verify';

/** One role's signing key: its key id and 32-byte Ed25519 secret seed. */
export interface EnvelopeSigner {
  key_id: string;
  seed: Uint8Array;
}

/**
 * Sign an envelope for the given roles.
 *
 * Any `signatures` member of the input is replaced. Roles without a signer are left out (the
 * verifier then reports them `unavailable`).
 *
 * @param envelope - The envelope fields (`v` should be `svc-receipt-v1`).
 * @param signers - A key id and seed per role.
 * @param crypto - The crypto provider.
 * @returns A new envelope with `signatures`.
 * @throws TypeError if the envelope is not an object or a signer's key id is malformed.
 * @throws RangeError if a seed is not 32 bytes.
 */
export function signEnvelope(
  envelope: JsonObject,
  signers: Partial<Record<EnvelopeRole, EnvelopeSigner>>,
  crypto: CryptoProvider,
): JsonObject {
  if (!isJsonObject(envelope)) throw new TypeError('An envelope must be a JSON object');
  const digest = envelopeDigest(envelope, crypto.sha256);
  const signatures: JsonObject = {};
  for (const role of ENVELOPE_ROLES) {
    const signer = signers[role];
    if (signer === undefined) continue;
    if (!isKeyId(signer.key_id)) throw new TypeError(`The ${role} key id is not a key id: ${String(signer.key_id)}`);
    signatures[role] = { key_id: signer.key_id, sig_b64u: b64uEncode(crypto.ed25519Sign(digest, signer.seed)) };
  }
  const signed = withoutSignatures(envelope);
  signed['signatures'] = signatures;
  return signed;
}
