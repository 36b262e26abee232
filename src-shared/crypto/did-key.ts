/**
 * did:key identifiers for Ed25519 public keys (PROTOCOL section 0, key ids).
 *
 * `did:key:z<base58btc(0xed 0x01 || 32-byte key)>`: multibase prefix `z` (base58btc) over the
 * multicodec varint 0xed01 (ed25519-pub) and the raw key. Such ids always start `did:key:z6Mk`.
 */
import { assertBytes, assertString } from './assert';
import { base58btcDecode, base58btcEncode } from './encoding';

const DID_KEY_PREFIX = 'did:key:';
/** Multibase code for base58btc. */
const MULTIBASE_BASE58BTC = 'z';
/** The unsigned varint of multicodec 0xed (ed25519-pub): 0xed 0x01. */
const ED25519_MULTICODEC = Uint8Array.of(0xed, 0x01);
const ED25519_PUBLIC_KEY_LENGTH = 32;
/** 34 bytes in base58 take at most 47 characters; anything longer cannot be an Ed25519 key. */
const MAX_IDENTIFIER_LENGTH = 48;

/**
 * The did:key of an Ed25519 public key.
 *
 * @param publicKey - 32-byte Ed25519 public key
 * @returns `did:key:z6Mk...`
 * @throws TypeError when `publicKey` is not a Uint8Array
 * @throws RangeError when it is not 32 bytes
 * @example didKeyFromEd25519(publicKey) // 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp'
 */
export function didKeyFromEd25519(publicKey: Uint8Array): string {
  assertBytes(publicKey, 'didKeyFromEd25519: publicKey', ED25519_PUBLIC_KEY_LENGTH);
  const multicodec = new Uint8Array(ED25519_MULTICODEC.length + ED25519_PUBLIC_KEY_LENGTH);
  multicodec.set(ED25519_MULTICODEC, 0);
  multicodec.set(publicKey, ED25519_MULTICODEC.length);
  return DID_KEY_PREFIX + MULTIBASE_BASE58BTC + base58btcEncode(multicodec);
}

/**
 * The Ed25519 public key inside a did:key.
 *
 * Only a bare DID is accepted (no `#fragment`, query or path), with the base58btc multibase
 * prefix and the ed25519-pub multicodec. The key bytes are not checked to be a curve point;
 * signature verification refuses such keys.
 *
 * @param did - `did:key:z6Mk...`
 * @returns the 32-byte public key
 * @throws TypeError when `did` is not a string
 * @throws RangeError when `did` is not an Ed25519 did:key, with the reason
 */
export function ed25519FromDidKey(did: string): Uint8Array {
  assertString(did, 'ed25519FromDidKey: did');
  if (!did.startsWith(DID_KEY_PREFIX)) {
    throw new RangeError(`ed25519FromDidKey: ${quote(did)} is not a did:key (it must start with "did:key:")`);
  }
  const identifier = did.slice(DID_KEY_PREFIX.length);
  if (!identifier.startsWith(MULTIBASE_BASE58BTC)) {
    throw new RangeError(`ed25519FromDidKey: ${quote(did)} is not base58btc multibase (expected "did:key:z...")`);
  }
  if (identifier.length > MAX_IDENTIFIER_LENGTH) {
    throw new RangeError(`ed25519FromDidKey: ${quote(did)} is too long for an Ed25519 did:key`);
  }
  let decoded: Uint8Array;
  try {
    decoded = base58btcDecode(identifier.slice(MULTIBASE_BASE58BTC.length));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new RangeError(`ed25519FromDidKey: ${quote(did)} is not valid base58btc (${reason})`);
  }
  if (decoded[0] !== ED25519_MULTICODEC[0] || decoded[1] !== ED25519_MULTICODEC[1]) {
    throw new RangeError(`ed25519FromDidKey: ${quote(did)} is not an Ed25519 key (multicodec is not 0xed01)`);
  }
  if (decoded.length !== ED25519_MULTICODEC.length + ED25519_PUBLIC_KEY_LENGTH) {
    throw new RangeError(
      `ed25519FromDidKey: ${quote(did)} holds ${decoded.length - ED25519_MULTICODEC.length} key bytes, expected 32`,
    );
  }
  return decoded.slice(ED25519_MULTICODEC.length);
}

/** Quotes untrusted text for an error message, shortened so a huge input cannot flood logs. */
function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}
