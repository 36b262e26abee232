/**
 * The crypto layer's public surface: import from here, not from the individual modules.
 *
 * Everything is isomorphic. The node:crypto provider lives in src-main/core and implements the
 * same CryptoProvider contract.
 */
export { AuthenticationError } from './provider';
export type { CryptoProvider } from './provider';
export { AES256GCM_LENGTHS, MLDSA65_LENGTHS, assertAesArguments, createPortableProvider } from './portable-provider';
export {
  ED25519_LENGTHS,
  ed25519IsCanonicalScalar,
  ed25519SignatureHasCanonicalS,
  ed25519IsStrictPublicKey,
  ed25519VerifyStrict,
} from './ed25519-strict';
export { assertBytes, assertIndex, assertString, describeType, isBytes } from './assert';
export {
  b64Decode,
  b64Encode,
  b64uDecode,
  b64uEncode,
  base58btcDecode,
  base58btcEncode,
  compareBytes,
  concatBytes,
  bytesKey,
  equalBytes,
  hexDecode,
  hexEncode,
  isHex64,
  lowerHexDecode,
  utf8Decode,
  utf8Encode,
  utf8Length,
} from './encoding';
export { didKeyFromEd25519, ed25519FromDidKey } from './did-key';
export {
  FINGERPRINT_BYTES,
  FINGERPRINT_KEY_ID_PREFIX,
  FINGERPRINT_PATTERN,
  fingerprintKeyId,
  keyFingerprint,
} from './fingerprint';
export { anchorFold, anchorTree, anchorTreeLevels, merkleLevels, merkleParents } from './merkle';
export type { AnchorTreeLevels, HashFunction, MerkleLevels, MerklePairOrder } from './merkle';
export { sha256Batch, sha256PairWords, sha256Prefix32Words, sha256Words, sha256WordsToBytes } from './sha256-batch';
export {
  TlogMemory,
  tlogCompletedNodes,
  tlogConsistencyProof,
  tlogInclusionProof,
  tlogLeafHash,
  tlogNodeHash,
  tlogRangeHash,
  tlogRoot,
  tlogVerifyConsistency,
  tlogVerifyInclusion,
} from './tlog';
export type { TlogNodeSource } from './tlog';
export {
  NOTE_COSIGNATURE_ED25519,
  NOTE_ED25519,
  NOTE_MAX_BYTES,
  NOTE_MAX_SIGNATURES,
  NoteError,
  cosignatureMessage,
  formatCheckpoint,
  formatNote,
  formatVkey,
  noteKeyId,
  parseCheckpoint,
  parseNote,
  parseVkey,
  signCosignatureLine,
  signNoteLine,
  verifyNote,
} from './signed-note';
export type { Checkpoint, Note, NoteErrorCode, NoteSignature, NoteVerifierKey } from './signed-note';
export { HPKE_SUITE, hpkeOpen, hpkeSeal, x25519FromEd25519Public, x25519FromEd25519Seed } from './hpke';
export type { HpkeSealed, HpkeSealOptions } from './hpke';
