/**
 * A bought API key sealed to its buyer's did:key (docs/protocol.md, "Delivery of bought keys").
 *
 * When a payment's contact is an Ed25519 did:key, the service seals the key with HPKE (RFC 9180,
 * mode_base, DHKEM(X25519, HKDF-SHA256) / HKDF-SHA256 / ChaCha20Poly1305) to the X25519 key that
 * the birational map gives for the DID's Ed25519 key, and serves the envelope at the pickup
 * route by transaction hash. Only the holder of the DID's Ed25519 seed can open it.
 *
 * The envelope binds its context twice: the HPKE `info` is the format name, so no other use of
 * the same recipient key can be confused with it, and the `aad` is the transaction hash, so an
 * envelope moved to another transaction fails to open.
 */
import { ed25519 } from '@noble/curves/ed25519.js';

import {
  b64uDecode,
  b64uEncode,
  didKeyFromEd25519,
  ed25519FromDidKey,
  ed25519IsStrictPublicKey,
  hpkeOpen,
  hpkeSeal,
  utf8Decode,
  utf8Encode,
  x25519FromEd25519Public,
  x25519FromEd25519Seed,
} from '../crypto';

/** The envelope's `format`, and the HPKE `info` bytes (its UTF-8). */
export const SEALED_KEY_FORMAT = 'evroom.sealed-apikey/1';

/** The suite's words as the envelope names them (RFC 9180 section 7's names). */
export const SEALED_KEY_SUITE = {
  kem: 'DHKEM(X25519, HKDF-SHA256)',
  kdf: 'HKDF-SHA256',
  aead: 'ChaCha20Poly1305',
} as const;

/** A transaction hash as the ledger writes it: `0x` and 64 lowercase hex digits. */
const TX_HASH_PATTERN = /^0x[0-9a-f]{64}$/;
/** An API key is printable ASCII without spaces; the longest prefix plus 32 characters is far below this. */
const API_KEY_PATTERN = /^[\x21-\x7e]{1,128}$/;
const MAX_API_KEY_LENGTH = 128;
/** enc is one X25519 public key. */
const ENC_LENGTH = 32;
/** ChaCha20Poly1305's tag. */
const TAG_LENGTH = 16;
/** Base64url of at most 128 key bytes + the tag: refuse anything longer before decoding it. */
const MAX_CIPHERTEXT_TEXT = Math.ceil(((MAX_API_KEY_LENGTH + TAG_LENGTH) * 4) / 3);
const ENVELOPE_MEMBERS = ['format', 'tx_hash', 'recipient', 'suite', 'enc', 'ciphertext'] as const;
const SUITE_MEMBERS = ['kem', 'kdf', 'aead'] as const;

/** The sealed key as the pickup route serves it (JSON). */
export interface SealedKeyEnvelope {
  format: typeof SEALED_KEY_FORMAT;
  /** The payment transaction: `0x` and 64 lowercase hex; also the HPKE aad (its ASCII bytes). */
  tx_hash: string;
  /** The buyer's Ed25519 did:key, `did:key:z6Mk...`. */
  recipient: string;
  suite: { kem: typeof SEALED_KEY_SUITE.kem; kdf: typeof SEALED_KEY_SUITE.kdf; aead: typeof SEALED_KEY_SUITE.aead };
  /** HPKE enc (the ephemeral X25519 public key, 32 bytes), unpadded base64url. */
  enc: string;
  /** HPKE ciphertext of the key's UTF-8 with its 16-byte tag, unpadded base64url. */
  ciphertext: string;
}

/**
 * Seals an API key to the X25519 form of a did:key's Ed25519 key.
 *
 * @param recipientDid - the buyer's Ed25519 did:key (`did:key:z6Mk...`)
 * @param apiKey - the key to deliver (printable ASCII, at most 128 characters)
 * @param txHash - the payment transaction, `0x` + 64 lowercase hex
 * @returns the envelope; a fresh ephemeral key each time, so two seals of one key differ
 * @throws TypeError when an argument is not a string
 * @throws RangeError when the DID is not an Ed25519 did:key of a curve point, the key is not
 *   printable ASCII, or the hash is not `0x` + 64 lowercase hex (the message never holds the key)
 * @example sealApiKey('did:key:z6Mk...', key, '0xab...') // {format: 'evroom.sealed-apikey/1', ...}
 */
export function sealApiKey(recipientDid: string, apiKey: string, txHash: string): SealedKeyEnvelope {
  if (typeof recipientDid !== 'string') throw new TypeError('sealApiKey: recipientDid must be a string');
  if (typeof apiKey !== 'string') throw new TypeError('sealApiKey: apiKey must be a string');
  if (typeof txHash !== 'string') throw new TypeError('sealApiKey: txHash must be a string');
  if (!TX_HASH_PATTERN.test(txHash)) {
    throw new RangeError('sealApiKey: txHash must be "0x" and 64 lowercase hex digits');
  }
  if (!API_KEY_PATTERN.test(apiKey)) {
    throw new RangeError('sealApiKey: apiKey must be 1 to 128 printable ASCII characters without spaces');
  }
  const recipientPublic = recipientX25519(recipientDid, 'sealApiKey');
  const { enc, ciphertext } = hpkeSeal(
    recipientPublic,
    utf8Encode(apiKey),
    utf8Encode(SEALED_KEY_FORMAT),
    utf8Encode(txHash),
  );
  return {
    format: SEALED_KEY_FORMAT,
    tx_hash: txHash,
    recipient: recipientDid,
    suite: { ...SEALED_KEY_SUITE },
    enc: b64uEncode(enc),
    ciphertext: b64uEncode(ciphertext),
  };
}

/**
 * Checks that a value is a well-formed {@link SealedKeyEnvelope}, without opening it.
 *
 * @param envelope - anything (parsed JSON from the pickup route)
 * @returns the envelope, typed
 * @throws Error naming the first problem: not an object, a missing or unknown member, another
 *   format or suite, a transaction hash or recipient of the wrong shape, enc or ciphertext not
 *   canonical base64url or of an impossible length
 */
export function parseSealedKeyEnvelope(envelope: unknown): SealedKeyEnvelope {
  const object = plainObject(envelope, 'the sealed key envelope');
  exactMembers(object, ENVELOPE_MEMBERS, 'the sealed key envelope');
  const { format, tx_hash: txHash, recipient, suite, enc, ciphertext } = object;
  if (format !== SEALED_KEY_FORMAT) {
    throw new Error(`sealed key envelope: format must be "${SEALED_KEY_FORMAT}", got ${shown(format)}`);
  }
  if (typeof txHash !== 'string' || !TX_HASH_PATTERN.test(txHash)) {
    throw new Error(`sealed key envelope: tx_hash must be "0x" and 64 lowercase hex digits, got ${shown(txHash)}`);
  }
  if (typeof recipient !== 'string') {
    throw new Error(`sealed key envelope: recipient must be a did:key string, got ${shown(recipient)}`);
  }
  try {
    ed25519FromDidKey(recipient);
  } catch (error) {
    throw new Error(`sealed key envelope: recipient is not an Ed25519 did:key (${reasonOf(error)})`);
  }
  const suiteObject = plainObject(suite, 'the envelope\'s "suite"');
  exactMembers(suiteObject, SUITE_MEMBERS, 'the envelope\'s "suite"');
  for (const member of SUITE_MEMBERS) {
    if (suiteObject[member] !== SEALED_KEY_SUITE[member]) {
      throw new Error(
        `sealed key envelope: suite.${member} must be "${SEALED_KEY_SUITE[member]}", got ${shown(suiteObject[member])}`,
      );
    }
  }
  const encBytes = base64urlMember(enc, 'enc', 64);
  if (encBytes.length !== ENC_LENGTH) {
    throw new Error(`sealed key envelope: enc must decode to ${ENC_LENGTH} bytes, got ${encBytes.length}`);
  }
  const ciphertextBytes = base64urlMember(ciphertext, 'ciphertext', MAX_CIPHERTEXT_TEXT);
  if (ciphertextBytes.length <= TAG_LENGTH) {
    throw new Error(`sealed key envelope: ciphertext must be longer than the ${TAG_LENGTH}-byte tag`);
  }
  return {
    format: SEALED_KEY_FORMAT,
    tx_hash: txHash,
    recipient,
    suite: { ...SEALED_KEY_SUITE },
    enc: enc as string,
    ciphertext: ciphertext as string,
  };
}

/**
 * Opens a sealed API key with the recipient's Ed25519 seed.
 *
 * The envelope is checked strictly first ({@link parseSealedKeyEnvelope}); then the seed's
 * did:key must be the envelope's recipient; then HPKE must open it with the envelope's
 * transaction hash as aad.
 *
 * @param envelope - the pickup route's JSON, parsed (untrusted)
 * @param ed25519Seed - the 32-byte Ed25519 secret key (seed) of the recipient did:key
 * @returns the API key
 * @throws TypeError when the seed is not a Uint8Array
 * @throws RangeError when the seed is not 32 bytes
 * @throws Error with the reason: a malformed envelope, sealed to another DID, or it does not open
 *   (altered, or not sealed to this key)
 * @example const apiKey = openSealedApiKey(await response.json(), seed)
 */
export function openSealedApiKey(envelope: unknown, ed25519Seed: Uint8Array): string {
  if (!(ed25519Seed instanceof Uint8Array)) throw new TypeError('openSealedApiKey: ed25519Seed must be a Uint8Array');
  if (ed25519Seed.length !== 32) {
    throw new RangeError(`openSealedApiKey: ed25519Seed must be 32 bytes, got ${ed25519Seed.length}`);
  }
  const parsed = parseSealedKeyEnvelope(envelope);
  const ownDid = didKeyFromEd25519(ed25519.getPublicKey(ed25519Seed));
  if (ownDid !== parsed.recipient) {
    throw new Error(`sealed key envelope: sealed to ${parsed.recipient}, not to this key (${ownDid})`);
  }
  const secret = x25519FromEd25519Seed(ed25519Seed);
  let plaintext: Uint8Array;
  try {
    plaintext = hpkeOpen(
      secret,
      b64uDecode(parsed.enc),
      b64uDecode(parsed.ciphertext),
      utf8Encode(SEALED_KEY_FORMAT),
      utf8Encode(parsed.tx_hash),
    );
  } catch {
    throw new Error(
      `sealed key envelope: cannot open the key of ${parsed.tx_hash} (the envelope was altered or not sealed to this key)`,
    );
  } finally {
    secret.fill(0);
  }
  let apiKey: string;
  try {
    apiKey = utf8Decode(plaintext);
  } catch {
    throw new Error('sealed key envelope: the opened key is not UTF-8');
  }
  if (!API_KEY_PATTERN.test(apiKey)) throw new Error('sealed key envelope: the opened key is not an API key');
  return apiKey;
}

/** The X25519 public key for a did:key's Ed25519 key, with the DID's problem in the message. */
function recipientX25519(did: string, caller: string): Uint8Array {
  let edPublic: Uint8Array;
  try {
    edPublic = ed25519FromDidKey(did);
  } catch (error) {
    throw new RangeError(`${caller}: recipientDid is not an Ed25519 did:key (${reasonOf(error)})`);
  }
  // A non-canonical or small-order key would map to an X25519 key whose shared secrets an
  // attacker can predict: refuse it by name rather than by a failure deep in HPKE.
  if (!ed25519IsStrictPublicKey(edPublic)) {
    throw new RangeError(`${caller}: recipientDid's key is not a canonical Ed25519 point of large order`);
  }
  return x25519FromEd25519Public(edPublic);
}

function plainObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`sealed key envelope: ${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

function exactMembers(object: Record<string, unknown>, members: readonly string[], what: string): void {
  for (const name of Object.keys(object)) {
    if (!members.includes(name)) throw new Error(`sealed key envelope: ${what} has an unknown member ${shown(name)}`);
  }
  for (const name of members) {
    if (!Object.hasOwn(object, name)) throw new Error(`sealed key envelope: ${what} lacks "${name}"`);
  }
}

function base64urlMember(value: unknown, name: string, maxLength: number): Uint8Array {
  if (typeof value !== 'string') throw new Error(`sealed key envelope: ${name} must be a base64url string`);
  if (value.length > maxLength)
    throw new Error(`sealed key envelope: ${name} is too long (${value.length} characters)`);
  try {
    return b64uDecode(value);
  } catch (error) {
    throw new Error(`sealed key envelope: ${name} is not canonical unpadded base64url (${reasonOf(error)})`);
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Untrusted text for a message, JSON-quoted and shortened. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}
