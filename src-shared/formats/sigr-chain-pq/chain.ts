/**
 * The SiGR chain's digests (PROTOCOL section 14): hash suites, the step commitment, the sorted
 * pairwise Merkle root, and the bind of the base members with the causal root that is signed.
 * Shared by the verifier, the signer and the signed-content view, so all three hash the same
 * bytes.
 */
import { concatBytes, hexDecode, hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { jcs } from '../../json';
import type { JsonObject } from '../../verify/fields';

/** `envelope.object` of a SiGR chain receipt. */
export const SIGR_CHAIN_OBJECT = 'sigr.chain.receipt';
/** `object` of each step. */
export const SIGR_STEP_OBJECT = 'sigr.chain.step';
/** The one `envelope.version` executed. */
export const SIGR_CHAIN_VERSION = '1.0.0-typed-pq';
/** The one signature scheme executed. */
export const SIGR_CHAIN_SCHEME = 'ml-dsa-65';
/** The producer's step kinds: a closed set (its signer writes `reason` for any other kind). */
export const SIGR_STEP_KINDS: readonly string[] = Object.freeze([
  'plan',
  'reason',
  'tool_call',
  'retrieval',
  'inference',
  'merge',
  'final',
]);
/** The most steps one receipt may carry, and the most parents one step may name. */
export const MAX_SIGR_STEPS = 1024;

/** A hash suite of the typed signer. */
export interface SigrSuite {
  /** `sha-256` or `sha-384`. */
  name: 'sha-256' | 'sha-384';
  /** Digest length in bytes (32 or 48). */
  length: number;
  hash(data: Uint8Array): Uint8Array;
}

/**
 * The hash suite a receipt names.
 *
 * `hash_suite` absent means `sha-256`; the producer's verifier reads the name case-insensitively,
 * and so does this one.
 *
 * @param name - `envelope.hash_suite`, or undefined when absent.
 * @param crypto - The provider whose hash functions the suite uses.
 * @returns The suite, or undefined for a suite this verifier does not execute.
 */
export function sigrSuite(name: string | undefined, crypto: CryptoProvider): SigrSuite | undefined {
  const lower = (name ?? 'sha-256').toLowerCase();
  if (lower === 'sha-256') return { name: 'sha-256', length: 32, hash: (data) => crypto.sha256(data) };
  if (lower === 'sha-384') return { name: 'sha-384', length: 48, hash: (data) => crypto.sha384(data) };
  return undefined;
}

/** The members of a step that its commitment covers. */
export interface SigrStepRecord {
  object: string;
  step_id: string;
  kind: string;
  seq: number;
  parents: readonly string[];
  io_digest: string;
  parent_commit_root: string;
}

/**
 * The committed record of a step: the step without `commit_digest`, its parents sorted (UTF-16
 * code unit order, as JavaScript sorts strings), duplicates kept.
 *
 * @param step - The step's members.
 * @returns The record, as plain values in a fixed member set.
 */
export function committedRecord(step: SigrStepRecord): JsonObject {
  return {
    object: step.object,
    step_id: step.step_id,
    kind: step.kind,
    seq: step.seq,
    parents: [...step.parents].sort(),
    io_digest: step.io_digest,
    parent_commit_root: step.parent_commit_root,
  };
}

/**
 * A step's commit digest: `H(JCS(committed record))`, hex.
 *
 * @param step - The step's members.
 * @param suite - The receipt's hash suite.
 * @returns Lowercase hex of the suite's length.
 */
export function stepCommitDigest(step: SigrStepRecord, suite: SigrSuite): string {
  return hexEncode(suite.hash(utf8Encode(jcs(committedRecord(step)))));
}

/**
 * The producer's Merkle root: the hex digests sorted ascending as strings, then pairs hashed as
 * `H(a || b)` over the raw bytes, an odd last node paired with itself, until one is left. One
 * leaf is its own root; no leaf gives the zero digest (a step without parents).
 *
 * @param digests - Hex digests of the suite's length, in any order.
 * @param suite - The hash suite.
 * @returns The root, lowercase hex.
 * @throws RangeError if a digest is not hex of the suite's length.
 */
export function sigrMerkleRoot(digests: readonly string[], suite: SigrSuite): string {
  if (digests.length === 0) return '0'.repeat(suite.length * 2);
  let nodes = [...digests].sort().map((digest) => {
    const bytes = hexDecode(digest);
    if (bytes.length !== suite.length) throw new RangeError(`A ${suite.name} digest is ${suite.length} bytes`);
    return bytes;
  });
  while (nodes.length > 1) {
    const next: Uint8Array[] = [];
    for (let index = 0; index < nodes.length; index += 2) {
      const left = nodes[index] as Uint8Array;
      next.push(suite.hash(concatBytes(left, nodes[index + 1] ?? left)));
    }
    nodes = next;
  }
  return hexEncode(nodes[0] as Uint8Array);
}

/** The receipt members the signature binds directly (the base). */
export interface SigrBase {
  object: string;
  version: string;
  sig_scheme: string;
  /** Standard base64 of the ML-DSA-65 public key, as written. */
  public_key: string;
  run_id: string;
  agent_ref: string;
  step_count: number;
  causal_root: string;
}

/**
 * JCS of the base members (a fixed set: the envelope's other members are not in it).
 *
 * @param base - The base members.
 * @returns The canonical text.
 */
export function baseCanonical(base: SigrBase): string {
  return jcs({
    object: base.object,
    version: base.version,
    sig_scheme: base.sig_scheme,
    public_key: base.public_key,
    run_id: base.run_id,
    agent_ref: base.agent_ref,
    step_count: base.step_count,
    causal_root: base.causal_root,
  });
}

/**
 * The bytes whose hash is the signed payload: `H(JCS(base)) || causal_root`, raw.
 *
 * @param base - The base members; `causal_root` hex of the suite's length.
 * @param suite - The hash suite.
 * @returns 2 × the suite's length bytes.
 * @throws RangeError if the causal root is not of the suite's length.
 */
export function payloadPreimage(base: SigrBase, suite: SigrSuite): Uint8Array {
  const root = hexDecode(base.causal_root);
  if (root.length !== suite.length) throw new RangeError(`The causal root is ${suite.length} bytes in ${suite.name}`);
  return concatBytes(suite.hash(utf8Encode(baseCanonical(base))), root);
}

/**
 * The payload digest: `H(H(JCS(base)) || causal_root)`, the message ML-DSA-65 signs.
 *
 * @param base - The base members.
 * @param suite - The hash suite.
 * @returns The raw digest (the suite's length).
 */
export function payloadDigest(base: SigrBase, suite: SigrSuite): Uint8Array {
  return suite.hash(payloadPreimage(base, suite));
}

/**
 * A step's `io_digest`: `H(JCS({input_digest, output_digest}))`, hex.
 *
 * @param inputDigest - Hex digest of the step's input (the producer's: `H(JCS(input))`).
 * @param outputDigest - Hex digest of the step's output.
 * @param suite - The hash suite.
 * @returns Lowercase hex of the suite's length.
 */
export function ioDigest(inputDigest: string, outputDigest: string, suite: SigrSuite): string {
  return hexEncode(suite.hash(utf8Encode(jcs({ input_digest: inputDigest, output_digest: outputDigest }))));
}
