/**
 * The crypto provider contract.
 *
 * Verifiers never import a crypto library: they are handed a provider. The main process passes
 * the node:crypto provider (OpenSSL, the fast path); browsers get the portable provider built on
 * @noble/*. Both must give identical answers on every published vector (Wycheproof Ed25519,
 * FIPS 204 ML-DSA-65, BLAKE3), which the tests check case by case.
 *
 * Every method is synchronous: OpenSSL and noble both are, and bulk verification runs on worker
 * threads rather than on promises.
 */
export interface CryptoProvider {
  /** A short name for reports and benchmarks, e.g. `node` or `portable`. */
  readonly name: string;

  /**
   * Strict Ed25519 verification (RFC 8032 with the checks of PROTOCOL section 0).
   *
   * Rejects S >= L and non-canonical encodings; never throws for a wrong-length or garbage
   * signature or key, it answers false. The full rule set (small-order keys refused, the
   * cofactorless equation) is in ./ed25519-strict, shared by both providers.
   */
  ed25519Verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  /**
   * Ed25519 signature with a 32-byte secret seed.
   * @throws RangeError when the seed is not 32 bytes
   */
  ed25519Sign(message: Uint8Array, secretSeed: Uint8Array): Uint8Array;
  /** The 32-byte Ed25519 public key of a 32-byte secret seed. */
  ed25519PublicKey(secretSeed: Uint8Array): Uint8Array;

  /** SHA-256 digest (32 bytes). */
  sha256(data: Uint8Array): Uint8Array;
  /** SHA-384 digest (48 bytes); the typed post-quantum attestation's long-life hash suite. */
  sha384(data: Uint8Array): Uint8Array;
  /** BLAKE3 hash, default 32-byte output. */
  blake3(data: Uint8Array): Uint8Array;

  /**
   * ML-DSA-65 verification (FIPS 204, pure mode, empty context). Never throws for bad input.
   */
  mldsa65Verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  /** ML-DSA-65 signature (FIPS 204, pure mode, empty context, hedged). */
  mldsa65Sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array;
  /** ML-DSA-65 key pair from a 32-byte seed (random when omitted). */
  mldsa65KeyGen(seed?: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array };

  /**
   * AES-256-GCM decryption with a 16-byte tag.
   * @throws AuthenticationError when the tag does not verify (wrong key or tampered data)
   * @throws RangeError when the key is not 32 bytes, the IV not 12 bytes or the tag not 16 bytes
   */
  aes256gcmDecrypt(
    key: Uint8Array,
    iv: Uint8Array,
    ciphertext: Uint8Array,
    tag: Uint8Array,
    aad?: Uint8Array,
  ): Uint8Array;
  /**
   * AES-256-GCM encryption; returns the ciphertext and the 16-byte tag.
   * @throws RangeError when the key is not 32 bytes or the IV not 12 bytes
   */
  aes256gcmEncrypt(
    key: Uint8Array,
    iv: Uint8Array,
    plaintext: Uint8Array,
    aad?: Uint8Array,
  ): { ciphertext: Uint8Array; tag: Uint8Array };

  /** Cryptographically secure random bytes. */
  randomBytes(length: number): Uint8Array;
}

/** AES-GCM tag verification failed: the key is wrong or the data was altered. */
export class AuthenticationError extends Error {
  constructor(message = 'AES-GCM authentication failed') {
    super(message);
    this.name = 'AuthenticationError';
  }
}
