/**
 * Opening a key sealed to the buyer's did:key (docs/payments.md): the buyer's own private key
 * file (`evroom keys new --alg ed25519`) opens the envelope the pickup route answers.
 */
import { didKeyFromEd25519 } from '../../src-shared/crypto/did-key';
import { openSealedApiKey, parseSealedKeyEnvelope } from '../../src-shared/payments/sealed-key';
import type { JsonValue } from '../../src-shared/json/types';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { PrivateKeyFileError, readPrivateKeyFile } from '../core/private-key-file';
import { OperationError } from './errors';

/**
 * Opens a sealed API key with a private key file.
 *
 * @param envelope - The pickup route's answer (untrusted).
 * @param keyFile - The buyer's Ed25519 private key file (mode 600).
 * @param txHash - The payment the buyer asked for: the envelope must be for it.
 * @returns the key and the did:key it was sealed to
 * @throws OperationError (invalid_input) for an unusable key file, an envelope for another
 *   transaction or DID, or one that does not open; never with the key or the seed in it
 */
export async function openSealedKeyWithKeyFile(
  envelope: JsonValue,
  keyFile: string,
  txHash: string,
): Promise<{ key: string; recipient: string }> {
  let parsed;
  try {
    parsed = parseSealedKeyEnvelope(envelope);
  } catch (error) {
    throw new OperationError(
      'invalid_input',
      'sealed_key_invalid',
      `The service's answer is not a sealed key: ${(error as Error).message}.`,
    );
  }
  if (parsed.tx_hash !== txHash.toLowerCase())
    throw new OperationError(
      'invalid_input',
      'sealed_key_invalid',
      `The service answered the sealed key of ${parsed.tx_hash}, not of ${txHash.toLowerCase()}.`,
    );
  let key;
  try {
    ({ key } = readPrivateKeyFile(keyFile, createNodeCryptoProvider()));
  } catch (error) {
    if (error instanceof PrivateKeyFileError)
      throw new OperationError(
        'invalid_input',
        'key_file_invalid',
        `The key file ${keyFile} cannot be used: ${error.message}`,
      );
    throw error;
  }
  try {
    if (key.algorithm !== 'Ed25519')
      throw new OperationError(
        'invalid_input',
        'key_file_invalid',
        `The key file ${keyFile} holds an ${key.algorithm} key; a sealed key opens with the Ed25519 key of its did:key.`,
      );
    const did = didKeyFromEd25519(key.public_key);
    if (did !== parsed.recipient)
      throw new OperationError(
        'invalid_input',
        'wrong_recipient',
        `The key of ${parsed.tx_hash} is sealed to ${parsed.recipient}; the key file ${keyFile} is ${did}.`,
      );
    try {
      return { key: openSealedApiKey(parsed, key.seed), recipient: parsed.recipient };
    } catch (error) {
      throw new OperationError('invalid_input', 'sealed_key_invalid', `${(error as Error).message}.`);
    }
  } finally {
    key.seed.fill(0);
  }
}
