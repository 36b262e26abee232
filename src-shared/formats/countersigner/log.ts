/**
 * The countersigner's hashes and log tree (PROTOCOL section 5).
 *
 * Every hash is tagged BLAKE3, `h(b, tag) = hex(BLAKE3(tag || 0x00 || b))`, with the ASCII tags
 * `record`, `opsig`, `leaf`, `node`, `genesis` and `empty`. The log is a Merkle tree over the
 * leaves as hex text: a node is `h(ascii(left_hex + right_hex), "node")`, an odd node at the end
 * of a level is promoted unchanged, and the empty log's root is `h("", "empty")`. An audit path
 * is a list of `[side, sibling_hex]` steps from the leaf up.
 */
import { concatBytes, hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';

/** The tags of the countersigner's hashes. */
export type CountersignerTag = 'record' | 'opsig' | 'leaf' | 'node' | 'genesis' | 'empty';

/** One step of an audit path: on which side the sibling sits, and the sibling's hex. */
export type AuditStep = readonly ['left' | 'right', string];

/** The longest audit path accepted: a log of 2^64 entries needs 64 steps. */
export const MAX_AUDIT_PATH_LENGTH = 64;

/**
 * A tagged BLAKE3 hash.
 *
 * @param crypto - The provider.
 * @param data - The bytes, or text hashed as UTF-8.
 * @param tag - The tag.
 * @returns `hex(BLAKE3(tag || 0x00 || data))`.
 */
export function taggedHash(crypto: CryptoProvider, data: Uint8Array | string, tag: CountersignerTag): string {
  const bytes = typeof data === 'string' ? utf8Encode(data) : data;
  return hexEncode(crypto.blake3(concatBytes(utf8Encode(tag), Uint8Array.of(0), bytes)));
}

/**
 * The first entry's `prev_leaf`: `h("", "genesis")`.
 *
 * @param crypto - The provider.
 * @returns The genesis leaf's hex.
 */
export function genesisLeaf(crypto: CryptoProvider): string {
  return taggedHash(crypto, '', 'genesis');
}

/** What a leaf commits to: the canonical spellings of its two numbers and its three hashes. */
export interface LeafParts {
  /** `seq` as Python writes it (an integer's digits). */
  seq: string;
  prev_leaf: string;
  record_digest: string;
  /** `countersigner_time` as Python writes it (a float's repr). */
  countersigner_time: string;
  operator_signature_digest: string;
}

/**
 * The leaf: `h(C({seq, prev, record_digest, countersigner_time, operator_signature_digest}),
 * "leaf")`, C being Python's compact sorted JSON text.
 *
 * @param crypto - The provider.
 * @param parts - The leaf's values; hashes must be lowercase hex (no escaping is needed).
 * @returns The leaf's hex.
 */
export function leafHash(crypto: CryptoProvider, parts: LeafParts): string {
  return taggedHash(crypto, leafText(parts), 'leaf');
}

/**
 * The text a leaf hashes: C({seq, prev, record_digest, countersigner_time,
 * operator_signature_digest}), members in code-point order.
 *
 * @param parts - The leaf's values.
 * @returns The text.
 */
export function leafText(parts: LeafParts): string {
  return (
    `{"countersigner_time":${parts.countersigner_time},` +
    `"operator_signature_digest":"${parts.operator_signature_digest}",` +
    `"prev":"${parts.prev_leaf}","record_digest":"${parts.record_digest}","seq":${parts.seq}}`
  );
}

/**
 * An interior node: `h(ascii(left + right), "node")`.
 *
 * @param crypto - The provider.
 * @param left - The left child's hex.
 * @param right - The right child's hex.
 * @returns The node's hex.
 */
export function nodeHash(crypto: CryptoProvider, left: string, right: string): string {
  return taggedHash(crypto, left + right, 'node');
}

/**
 * The root of a log.
 *
 * @param crypto - The provider.
 * @param leaves - The leaves' hex, in log order.
 * @returns The root's hex (`h("", "empty")` for no leaves).
 */
export function logRoot(crypto: CryptoProvider, leaves: readonly string[]): string {
  if (leaves.length === 0) return taggedHash(crypto, '', 'empty');
  let level = [...leaves];
  while (level.length > 1) level = nextLevel(crypto, level);
  return level[0] ?? '';
}

/**
 * The audit path of a leaf.
 *
 * @param crypto - The provider.
 * @param leaves - The leaves' hex, in log order.
 * @param index - The leaf's zero-based index (seq - 1).
 * @returns The steps from the leaf up.
 * @throws RangeError if the index is outside the log.
 */
export function auditPath(crypto: CryptoProvider, leaves: readonly string[], index: number): AuditStep[] {
  if (!Number.isSafeInteger(index) || index < 0 || index >= leaves.length) {
    throw new RangeError(`index must be between 0 and ${leaves.length - 1}`);
  }
  const path: AuditStep[] = [];
  let level = [...leaves];
  let position = index;
  while (level.length > 1) {
    const sibling = position % 2 === 0 ? position + 1 : position - 1;
    const siblingHash = level[sibling];
    if (siblingHash !== undefined) path.push([position % 2 === 0 ? 'right' : 'left', siblingHash]);
    level = nextLevel(crypto, level);
    position = Math.floor(position / 2);
  }
  return path;
}

/**
 * Fold an audit path from a leaf up.
 *
 * @param crypto - The provider.
 * @param leaf - The leaf's hex.
 * @param path - The steps.
 * @returns The root they give.
 */
export function foldAuditPath(crypto: CryptoProvider, leaf: string, path: readonly AuditStep[]): string {
  let current = leaf;
  for (const [side, sibling] of path) {
    current = side === 'right' ? nodeHash(crypto, current, sibling) : nodeHash(crypto, sibling, current);
  }
  return current;
}

function nextLevel(crypto: CryptoProvider, level: readonly string[]): string[] {
  const next: string[] = [];
  for (let index = 0; index < level.length; index += 2) {
    const left = level[index] ?? '';
    const right = level[index + 1];
    next.push(right === undefined ? left : nodeHash(crypto, left, right));
  }
  return next;
}
