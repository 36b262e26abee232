/**
 * Sealing: wraps a document in a sealed envelope (AES-256-GCM), for tests, samples and
 * benchmarks, and for issuers that seal receipts.
 */
import { b64uEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import type { SecretEntry } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import { SEALED_ENC } from './verify';

/** Options for {@link sealDocument}. */
export interface SealOptions {
  /** Additional authenticated data, written as `aad`. */
  aad?: Uint8Array;
  /** The 12-byte IV; random by default. Never reuse an IV with the same key. */
  iv?: Uint8Array;
}

/**
 * Seal a document with a named secret.
 *
 * @param plaintext - The document to seal: its JSON text or bytes.
 * @param secret - The secret's id and 32-byte key.
 * @param crypto - The crypto provider.
 * @param options - AAD and a fixed IV.
 * @returns The sealed document as plain values.
 * @throws TypeError if `plaintext` is neither a string nor bytes.
 * @throws RangeError if the key is not 32 bytes or the IV not 12 bytes.
 */
export function sealDocument(
  plaintext: string | Uint8Array,
  secret: SecretEntry,
  crypto: CryptoProvider,
  options: SealOptions = {},
): JsonObject {
  const bytes = typeof plaintext === 'string' ? utf8Encode(plaintext) : plaintext;
  if (!(bytes instanceof Uint8Array)) throw new TypeError('The plaintext must be a string or a Uint8Array');
  const iv = options.iv ?? crypto.randomBytes(12);
  if (iv.length !== 12) throw new RangeError('The IV must be 12 bytes');
  const { ciphertext, tag } = crypto.aes256gcmEncrypt(secret.key, iv, bytes, options.aad);
  const document: JsonObject = {
    sealed: true,
    enc: SEALED_ENC,
    key_id: secret.key_id,
    iv: b64uEncode(iv),
    ciphertext: b64uEncode(ciphertext),
    tag: b64uEncode(tag),
  };
  if (options.aad !== undefined) document['aad'] = b64uEncode(options.aad);
  return document;
}
