/**
 * Countersigner record verification (PROTOCOL section 5, spec 2.5).
 *
 * Document: `{signed_over, signed_over_canonical, countersignature,
 * countersigner_public_key_b64, root, leaf_index, tree_size, path}`.
 *
 * Decisions:
 * - `signed_over` is HEX64 = hex(BLAKE3(UTF-8 of signed_over_canonical)); a different digest is
 *   MISMATCH. `countersignature` is padded b64 of a 64-byte Ed25519 signature over the UTF-8 of
 *   signed_over_canonical (not over the digest); `countersigner_public_key_b64` is padded b64
 *   of 32 bytes.
 * - The Merkle leaf is BLAKE3(0x00 || the 32 raw digest bytes that signed_over spells in hex),
 *   as RFC 9162 hashes an entry's bytes; the hex text is only its transport form. Nodes are
 *   BLAKE3(0x01 || left || right).
 * - `root` and every `path` element are HEX64 (32-byte BLAKE3 hashes, lowercase hex, as
 *   signed_over is); `leaf_index` and `tree_size` are plain non-negative integers with
 *   leaf_index < tree_size (otherwise MALFORMED). A path of the wrong length for leaf_index and
 *   tree_size, or a fold that does not give `root`, is MISMATCH.
 * - The member set is closed (unknown members are MALFORMED).
 * - The report always lists `checkpoint_freshness` and `log_consistency` as `unchecked` and
 *   notes that the countersigner is operated by the service: these checks show signature
 *   validity and consistency with the supplied root only.
 * - Trust is that of the embedded countersigner key (trusted only when pinned by its bytes).
 */
import { rfc9162LeafHash, rfc9162RootFromInclusionPath, equalBytes, hexEncode, utf8Encode } from '../../crypto';
import type { JsonNode, JsonValue } from '../../json/types';
import {
  decodeB64Field,
  decodeHexField,
  describeType,
  isJsonObject,
  isPlainNonNegativeInteger,
  memberNode,
  memberProblems,
  objectMember,
  problem,
} from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import { describeKey, findEmbeddedKey } from '../../verify/keys';
import type { Report, ReportError } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';

/** The checks of a countersigner report, in report order. */
export const COUNTERSIGNER_CHECKS = Object.freeze([
  'schema',
  'signed_over',
  'countersignature',
  'inclusion',
  'checkpoint_freshness',
  'log_consistency',
] as const);

/** The longest inclusion path accepted: a tree of 2^64 leaves needs 64 hashes. */
export const MAX_PATH_LENGTH = 64;

/** The note every countersigner report carries (spec 2.5). */
export const COUNTERSIGNER_NOTE =
  'The countersigner is operated by the service, not independent: these checks show signature validity ' +
  'and consistency with the supplied root only, not checkpoint freshness or log consistency.';

const MEMBERS = [
  'signed_over',
  'signed_over_canonical',
  'countersignature',
  'countersigner_public_key_b64',
  'root',
  'leaf_index',
  'tree_size',
  'path',
];

/**
 * Recognize a countersigner record: an object with `signed_over` and `countersignature`.
 *
 * @param node - Any parsed document.
 * @returns `countersigner` or undefined.
 */
export function detectCountersigner(node: JsonNode): 'countersigner' | undefined {
  return objectMember(node, 'signed_over') !== undefined && objectMember(node, 'countersignature') !== undefined
    ? 'countersigner'
    : undefined;
}

/**
 * Verify a countersigner record.
 *
 * @param input - The parsed document and context.
 * @returns The report; format `countersigner`.
 */
export function verifyCountersigner(input: FormatInput): Report {
  const builder = new ReportBuilder('countersigner', COUNTERSIGNER_CHECKS);
  builder.note(COUNTERSIGNER_NOTE);
  builder.unchecked(
    'checkpoint_freshness',
    'Not checked: no signed checkpoint is available offline to show the root is current.',
  );
  builder.unchecked('log_consistency', 'Not checked: no consistency proof between log states is supplied.');
  const { tree, value, ctx } = input;
  if (tree.type !== 'object' || !isJsonObject(value)) {
    builder.fail(
      'MALFORMED',
      'schema',
      'A countersigner record is a JSON object.',
      problem('invalid_type', '', `Expected an object, got ${describeType(value)}.`),
    );
    return builder.build();
  }

  const problems: ReportError[] = memberProblems(value, '', MEMBERS);
  const signedOver = decodeHexField(value['signed_over'], 32);
  if (Object.hasOwn(value, 'signed_over') && signedOver === undefined) {
    problems.push(
      problem(
        'invalid_digest',
        '/signed_over',
        '"signed_over" must be a BLAKE3 digest as 64 lowercase hex characters.',
      ),
    );
  }
  const canonical = value['signed_over_canonical'];
  if (Object.hasOwn(value, 'signed_over_canonical') && typeof canonical !== 'string') {
    problems.push(
      problem(
        'invalid_type',
        '/signed_over_canonical',
        `"signed_over_canonical" must be a string, got ${describeType(canonical)}.`,
      ),
    );
  }
  const signature = decodeB64Field(value['countersignature'], 64);
  if (Object.hasOwn(value, 'countersignature') && signature === undefined) {
    problems.push(
      problem(
        'invalid_signature_encoding',
        '/countersignature',
        '"countersignature" must be 64 bytes as padded base64.',
      ),
    );
  }
  const publicKey = decodeB64Field(value['countersigner_public_key_b64'], 32);
  if (Object.hasOwn(value, 'countersigner_public_key_b64') && publicKey === undefined) {
    problems.push(
      problem(
        'invalid_public_key',
        '/countersigner_public_key_b64',
        '"countersigner_public_key_b64" must be 32 bytes as padded base64.',
      ),
    );
  }
  const root = decodeHexField(value['root'], 32);
  if (Object.hasOwn(value, 'root') && root === undefined) {
    problems.push(problem('invalid_digest', '/root', '"root" must be a 32-byte hash as 64 lowercase hex characters.'));
  }
  for (const name of ['leaf_index', 'tree_size']) {
    if (Object.hasOwn(value, name) && !isPlainNonNegativeInteger(memberNode(tree, name))) {
      problems.push(
        problem(
          'invalid_integer',
          `/${name}`,
          `"${name}" must be a non-negative integer written without sign, fraction or exponent.`,
        ),
      );
    }
  }
  const leafIndex = value['leaf_index'];
  const treeSize = value['tree_size'];
  if (typeof leafIndex === 'number' && typeof treeSize === 'number' && leafIndex >= treeSize) {
    problems.push(
      problem(
        'invalid_leaf_index',
        '/leaf_index',
        `"leaf_index" ${leafIndex} is not inside a tree of ${treeSize} leaves.`,
      ),
    );
  }
  const path = readPath(value['path'], problems);
  if (
    problems.length > 0 ||
    signedOver === undefined ||
    typeof canonical !== 'string' ||
    signature === undefined ||
    publicKey === undefined ||
    root === undefined ||
    typeof leafIndex !== 'number' ||
    typeof treeSize !== 'number' ||
    path === undefined
  ) {
    builder.fail('MALFORMED', 'schema', 'The document does not fit the countersigner record schema.', problems);
    return builder.build();
  }
  builder.pass('schema', 'All countersigner members are present and well-formed.');

  const message = utf8Encode(canonical);
  const digest = ctx.crypto.blake3(message);
  if (equalBytes(digest, signedOver)) {
    builder.pass('signed_over', 'signed_over equals BLAKE3(signed_over_canonical).');
  } else {
    builder.fail(
      'MISMATCH',
      'signed_over',
      'signed_over differs from BLAKE3(signed_over_canonical).',
      problem(
        'digest_mismatch',
        '/signed_over',
        `signed_over does not match the BLAKE3 digest of signed_over_canonical (${hexEncode(digest)}).`,
      ),
    );
  }

  const key = findEmbeddedKey(publicKey, 'Ed25519', ctx);
  builder.setTrust(key.trust);
  if (ctx.crypto.ed25519Verify(signature, message, publicKey)) {
    builder.pass(
      'countersignature',
      `Ed25519 countersignature over signed_over_canonical verifies under ${describeKey(key)}.`,
    );
  } else {
    builder.fail(
      'INVALID',
      'countersignature',
      `The Ed25519 countersignature does not verify under ${describeKey(key)}.`,
      problem(
        'signature_invalid',
        '/countersignature',
        'The countersignature does not verify over signed_over_canonical.',
      ),
    );
  }

  checkInclusion(builder, ctx.crypto.blake3, signedOver, leafIndex, treeSize, path, root);
  return builder.build();
}

function readPath(value: JsonValue | undefined, problems: ReportError[]): Uint8Array[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    problems.push(problem('invalid_type', '/path', `"path" must be an array of hashes, got ${describeType(value)}.`));
    return undefined;
  }
  if (value.length > MAX_PATH_LENGTH) {
    problems.push(
      problem('path_too_long', '/path', `"path" has ${value.length} hashes; at most ${MAX_PATH_LENGTH} are possible.`),
    );
    return undefined;
  }
  const hashes: Uint8Array[] = [];
  value.forEach((item, index) => {
    const hash = decodeHexField(item, 32);
    if (hash === undefined) {
      problems.push(
        problem(
          'invalid_digest',
          `/path/${index}`,
          'Each path element must be a 32-byte hash as 64 lowercase hex characters.',
        ),
      );
    } else {
      hashes.push(hash);
    }
  });
  return hashes.length === value.length ? hashes : undefined;
}

function checkInclusion(
  builder: ReportBuilder,
  blake3: (data: Uint8Array) => Uint8Array,
  signedOver: Uint8Array,
  leafIndex: number,
  treeSize: number,
  path: Uint8Array[],
  root: Uint8Array,
): void {
  const leaf = rfc9162LeafHash(blake3, signedOver);
  let computed: Uint8Array;
  try {
    computed = rfc9162RootFromInclusionPath(blake3, leaf, leafIndex, treeSize, path);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    builder.fail(
      'MISMATCH',
      'inclusion',
      'The inclusion path cannot be folded for this leaf index and tree size.',
      problem(
        'inclusion_path_invalid',
        '/path',
        `The path has ${path.length} hashes, which does not fit leaf ${leafIndex} of a tree of ${treeSize}.`,
      ),
    );
    return;
  }
  if (equalBytes(computed, root)) {
    builder.pass(
      'inclusion',
      `The RFC 9162 BLAKE3 inclusion path folds leaf ${leafIndex} of ${treeSize} to the supplied root.`,
    );
  } else {
    builder.fail(
      'MISMATCH',
      'inclusion',
      'The inclusion path folds to a different root.',
      problem('merkle_root_mismatch', '/root', `The path folds to ${hexEncode(computed)}, not to the supplied root.`),
    );
  }
}
