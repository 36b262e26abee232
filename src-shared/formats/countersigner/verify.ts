/**
 * Countersigner record verification (PROTOCOL section 5): the records of the real producer,
 * srotzin/hive-countersigner.
 *
 * Three shapes, told apart by their members:
 * - the countersign answer (it has `countersigned`): `{countersigned: true, seq, signed_over,
 *   signed_over_canonical, countersignature, countersignature_scheme, countersigner_public_key_b64,
 *   log_root_after, independent, note}`;
 * - the inclusion answer (a top-level `seq`, no `countersigned`): `{seq, signed_over,
 *   signed_over_canonical, countersigner_public_key_b64, countersignature, audit_path, root}`;
 * - the verify request (neither): `{signed_over, countersignature, countersigner_public_key_b64?,
 *   signed_over_canonical?, audit_path?, root?, record?}`.
 *
 * `signed_over` is `{seq, record_digest, operator_signature_digest, operator_signature_scheme,
 * countersigner_time, prev_leaf, leaf}`; C is Python's compact sorted JSON text
 * (json/python-dumps.ts); hashes are tagged BLAKE3 (log.ts).
 *
 * Decisions (docs/protocol.md section 6):
 * - Member sets are closed, in `signed_over` too, except that a verify request's `signed_over`
 *   may carry the entry's own `countersignature` (the producer's /verify takes a whole log entry
 *   and drops that member): it is left out of the signed text and must equal the top-level one.
 * - `seq` is a plain integer from 1; hashes are 64 lowercase hex; `countersigner_time` any JSON
 *   number, rebuilt from its lexeme by Python's rules; keys and signatures strict padded base64.
 * - The countersignature is checked over the exact bytes of `signed_over_canonical`, and those
 *   must be C(signed_over) (MISMATCH otherwise); without the member it is checked over
 *   C(signed_over).
 * - The leaf is recomputed; a first entry's (`seq` 1) `prev_leaf` must be `h("", "genesis")`,
 *   a later one's cannot be checked without the previous entry (`unavailable`). The top-level
 *   `seq` must equal `signed_over.seq`. A countersign answer of `seq` 1 binds `log_root_after`
 *   to its leaf (a log of one entry); a later one carries no path (`unavailable`).
 * - A missing record or audit path leaves `record_digest` or `inclusion` `unavailable` without
 *   changing the status; a verify request without the key is INDETERMINATE (the producer falls
 *   back to its own key, which this verifier does not have).
 * - `countersignature_scheme` other than `Ed25519` is UNSUPPORTED.
 * - Trust is that of the embedded key: trusted only when a pinned entry holds the same bytes.
 */
import { utf8Encode } from '../../crypto';
import { pointerAppend } from '../../json';
import { pythonJsonDumps, pythonNumber } from '../../json/python-dumps';
import type { JsonNode, JsonObjectNode } from '../../json/types';
import {
  decodeB64Field,
  decodeHexField,
  isPlainNonNegativeInteger,
  memberNode,
  memberNodeProblems,
  objectMember,
  problem,
  quote,
} from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import { describeKey, findEmbeddedKey } from '../../verify/keys';
import type { Report, ReportError } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';
import { MAX_AUDIT_PATH_LENGTH, foldAuditPath, genesisLeaf, leafHash, taggedHash, type AuditStep } from './log';

/** The checks of a countersigner report, in report order. */
export const COUNTERSIGNER_CHECKS = Object.freeze([
  'schema',
  'signed_over_canonical',
  'seq',
  'leaf',
  'prev_leaf',
  'countersignature',
  'record_digest',
  'inclusion',
  'checkpoint_freshness',
  'log_consistency',
] as const);

/**
 * The checks whose input is an optional part of a countersigner document (the previous entry,
 * the record, the audit path): `unavailable` when it is absent, without changing the status.
 */
export const COUNTERSIGNER_OPTIONAL_INPUTS: readonly string[] = Object.freeze([
  'prev_leaf',
  'record_digest',
  'inclusion',
]);

/** The longest audit path accepted. */
export const MAX_PATH_LENGTH = MAX_AUDIT_PATH_LENGTH;

/** The note every countersigner report carries (PROTOCOL section 5). */
export const COUNTERSIGNER_NOTE =
  'The countersigner is operated by the service, not independent (the producer says independent: false itself): ' +
  'these checks show signature validity and consistency with the supplied values only, not checkpoint freshness ' +
  'or log consistency.';

/** The shapes of countersigner documents. */
export type CountersignerShape = 'countersign' | 'inclusion' | 'verify';

const SIGNED_OVER_MEMBERS = [
  'seq',
  'record_digest',
  'operator_signature_digest',
  'operator_signature_scheme',
  'countersigner_time',
  'prev_leaf',
  'leaf',
];
const SIGNED_OVER_HASHES = ['record_digest', 'operator_signature_digest', 'prev_leaf', 'leaf'];
/** Members whose presence beside `signed_over` marks a countersigner document. */
const MARKS = ['countersignature', 'countersigner_public_key_b64', 'countersigned'];

const SHAPE_MEMBERS: Readonly<Record<CountersignerShape, { required: string[]; optional: string[] }>> = {
  countersign: {
    required: [
      'countersigned',
      'seq',
      'signed_over',
      'signed_over_canonical',
      'countersignature',
      'countersignature_scheme',
      'countersigner_public_key_b64',
      'log_root_after',
      'independent',
      'note',
    ],
    optional: [],
  },
  inclusion: {
    required: [
      'seq',
      'signed_over',
      'signed_over_canonical',
      'countersigner_public_key_b64',
      'countersignature',
      'audit_path',
      'root',
    ],
    optional: [],
  },
  verify: {
    required: ['signed_over', 'countersignature'],
    optional: ['countersigner_public_key_b64', 'signed_over_canonical', 'audit_path', 'root', 'record'],
  },
};

const SHAPE_NAMES: Readonly<Record<CountersignerShape, string>> = {
  countersign: 'countersign answer',
  inclusion: 'inclusion answer',
  verify: 'verify request',
};

/**
 * Whether a document is the countersigner's briefing receipt (its `briefing.py`): a countersign
 * answer nested under `countersignature`, beside the `signed_body` it records and the operator's
 * ML-DSA-65 `operator_signature`. None of the three shapes PROTOCOL 5 accepts, so it is reported
 * UNSUPPORTED with its name (PROTOCOL 14), never MALFORMED and never PASS.
 *
 * @param node - Any parsed document.
 * @returns True when `countersignature` is an object holding an object `signed_over`, beside
 *   `signed_body`.
 */
export function isBriefingReceipt(node: JsonNode): boolean {
  const nested = objectMember(node, 'countersignature');
  return (
    nested?.type === 'object' &&
    objectMember(nested, 'signed_over')?.type === 'object' &&
    objectMember(node, 'signed_body') !== undefined
  );
}

function briefingReport(): Report {
  return new ReportBuilder('unknown', ['format'])
    .unsupported(
      'format',
      'A briefing receipt of the countersigner (srotzin/hive-countersigner, briefing.py): a countersign answer nested under countersignature beside signed_body and an ML-DSA-65 operator_signature. It is not one of the countersigner shapes this verifier checks, so nothing of it was verified.',
      problem('unsupported_format', '/countersignature', 'Unsupported format: countersigner briefing receipt.'),
    )
    .build();
}

/**
 * Recognize a countersigner document by its content: a `signed_over` object carrying the
 * countersigner's `leaf` or `record_digest`, beside a `countersignature`, a
 * `countersigner_public_key_b64` or `countersigned`.
 *
 * @param node - Any parsed document.
 * @returns `countersigner` or undefined.
 */
export function detectCountersigner(node: JsonNode): 'countersigner' | 'unknown' | undefined {
  if (isBriefingReceipt(node)) return 'unknown';
  const signedOver = objectMember(node, 'signed_over');
  if (signedOver?.type !== 'object') return undefined;
  if (objectMember(signedOver, 'leaf') === undefined && objectMember(signedOver, 'record_digest') === undefined) {
    return undefined;
  }
  return MARKS.some((name) => objectMember(node, name) !== undefined) ? 'countersigner' : undefined;
}

/**
 * The shape of a countersigner document.
 *
 * @param node - The document's object node.
 * @returns `countersign` when it has `countersigned`, else `inclusion` when it has a top-level
 *   `seq`, else `verify`.
 */
export function countersignerShape(node: JsonObjectNode): CountersignerShape {
  if (memberNode(node, 'countersigned') !== undefined) return 'countersign';
  return memberNode(node, 'seq') !== undefined ? 'inclusion' : 'verify';
}

/**
 * The text the countersignature covers when the document does not give it: C(signed_over),
 * without a `countersignature` member a whole log entry carries.
 *
 * @param signedOver - The `signed_over` object node.
 * @returns Python's compact sorted JSON text of it.
 * @throws TypeError or RangeError for a tree with no canonical text (non-finite number).
 */
export function rebuildSignedOverCanonical(signedOver: JsonObjectNode): string {
  return pythonJsonDumps({
    type: 'object',
    members: signedOver.members.filter(([name]) => name !== 'countersignature'),
  });
}

/** The validated parts of a countersigner document. */
interface Parsed {
  shape: CountersignerShape;
  signedOver: JsonObjectNode;
  canonical: string | undefined;
  signature: Uint8Array;
  signatureText: string;
  /** The `countersignature` member of a whole log entry, if any. */
  innerSignature: string | undefined;
  publicKey: Uint8Array | undefined;
  scheme: string | undefined;
  topSeq: string | undefined;
  seq: string;
  time: string;
  hashes: Record<string, string>;
  auditPath: AuditStep[] | undefined;
  root: { value: string; path: string } | undefined;
  record: JsonNode | undefined;
  independent: boolean | undefined;
}

/**
 * Verify a countersigner document.
 *
 * @param input - The parsed document and context.
 * @returns The report; format `countersigner`.
 */
export function verifyCountersigner(input: FormatInput): Report {
  if (input.format === 'unknown') return briefingReport();
  const builder = new ReportBuilder('countersigner', COUNTERSIGNER_CHECKS);
  builder.note(COUNTERSIGNER_NOTE);
  builder.unchecked(
    'checkpoint_freshness',
    'Not checked: no signed checkpoint is available offline to show the root is current.',
  );
  builder.unchecked('log_consistency', 'Not checked: no consistency proof between log states is supplied.');
  const { tree, ctx } = input;
  const problems: ReportError[] = [];
  const parsed = tree.type === 'object' ? parse(tree, problems) : undefined;
  if (tree.type !== 'object') {
    problems.push(problem('invalid_type', '', 'A countersigner document is a JSON object.'));
  }
  if (parsed === undefined || problems.length > 0) {
    builder.fail('MALFORMED', 'schema', 'The document does not fit a countersigner shape.', problems);
    return builder.build();
  }
  const { crypto } = ctx;
  builder.pass('schema', `A well-formed ${SHAPE_NAMES[parsed.shape]} of the countersigner.`);
  if (parsed.independent === true) {
    builder.note(
      'The document says independent: true; that member is not signed and this verifier does not rely on it.',
    );
  }

  // The text: as given (checked to be C(signed_over)), or rebuilt.
  const rebuilt = rebuildSignedOverCanonical(parsed.signedOver);
  if (parsed.canonical === undefined) {
    builder.unchecked(
      'signed_over_canonical',
      "The document carries no signed_over_canonical; the signed text was rebuilt from signed_over by the producer's rules.",
    );
  } else if (parsed.canonical === rebuilt) {
    builder.pass('signed_over_canonical', 'signed_over_canonical is the canonical text of signed_over.');
  } else {
    builder.fail(
      'MISMATCH',
      'signed_over_canonical',
      'signed_over_canonical is not the canonical text of the signed_over beside it.',
      problem(
        'canonical_mismatch',
        '/signed_over_canonical',
        `signed_over_canonical differs from the canonical text of signed_over (${quote(firstDifference(parsed.canonical, rebuilt))}).`,
      ),
    );
  }

  if (parsed.topSeq === undefined) {
    builder.unchecked('seq', 'A verify request carries no top-level seq.');
  } else if (parsed.topSeq === parsed.seq) {
    builder.pass('seq', `The top-level seq equals signed_over.seq (${parsed.seq}).`);
  } else {
    builder.fail(
      'MISMATCH',
      'seq',
      'The top-level seq differs from signed_over.seq.',
      problem('seq_mismatch', '/seq', `seq ${parsed.topSeq} differs from signed_over.seq ${parsed.seq}.`),
    );
  }

  const hashes = parsed.hashes;
  const leaf = leafHash(crypto, {
    seq: parsed.seq,
    prev_leaf: hashes['prev_leaf'] ?? '',
    record_digest: hashes['record_digest'] ?? '',
    countersigner_time: parsed.time,
    operator_signature_digest: hashes['operator_signature_digest'] ?? '',
  });
  if (leaf === hashes['leaf']) {
    builder.pass(
      'leaf',
      'signed_over.leaf is the leaf hash of seq, prev_leaf, record_digest, time and operator digest.',
    );
  } else {
    builder.fail(
      'MISMATCH',
      'leaf',
      'signed_over.leaf is not the leaf hash of the values beside it.',
      problem('leaf_mismatch', '/signed_over/leaf', `The leaf recomputed from signed_over is ${leaf}.`),
    );
  }

  if (parsed.seq !== '1') {
    builder.notSupplied(
      'prev_leaf',
      `Entry ${parsed.seq} chains to the previous entry's leaf, which is not part of this document (the log has it).`,
    );
  } else if (hashes['prev_leaf'] === genesisLeaf(crypto)) {
    builder.pass('prev_leaf', 'The first entry chains to the genesis leaf h("", "genesis").');
  } else {
    builder.fail(
      'MISMATCH',
      'prev_leaf',
      'The first entry does not chain to the genesis leaf.',
      problem(
        'prev_leaf_mismatch',
        '/signed_over/prev_leaf',
        `Entry 1's prev_leaf must be the genesis leaf ${genesisLeaf(crypto)}.`,
      ),
    );
  }

  checkSignature(builder, parsed, rebuilt, ctx);

  if (parsed.record === undefined) {
    builder.notSupplied(
      'record_digest',
      'No record was supplied; record_digest binds a record this document does not carry.',
    );
  } else {
    const digest = taggedHash(crypto, pythonJsonDumps(parsed.record), 'record');
    if (digest === hashes['record_digest']) {
      builder.pass('record_digest', 'The supplied record hashes to signed_over.record_digest.');
    } else {
      builder.fail(
        'MISMATCH',
        'record_digest',
        'The supplied record does not hash to signed_over.record_digest.',
        problem('digest_mismatch', '/record', `The record hashes to ${digest}, not to signed_over.record_digest.`),
      );
    }
  }

  checkInclusion(builder, parsed, ctx.crypto);
  return builder.build();
}

function checkSignature(builder: ReportBuilder, parsed: Parsed, rebuilt: string, ctx: FormatInput['ctx']): void {
  if (parsed.scheme !== undefined && parsed.scheme !== 'Ed25519') {
    builder.unsupported(
      'countersignature',
      `countersignature_scheme ${quote(parsed.scheme)} is not executed; the countersigner signs with Ed25519.`,
      problem('unsupported_algorithm', '/countersignature_scheme', `Unsupported scheme ${quote(parsed.scheme)}.`),
    );
    return;
  }
  if (parsed.publicKey === undefined) {
    builder.unavailable(
      'countersignature',
      'The request names no countersigner_public_key_b64; the producer would use its own key, which is not available here.',
      problem('key_unavailable', '/countersigner_public_key_b64', 'No countersigner public key was supplied.'),
    );
    return;
  }
  const key = findEmbeddedKey(parsed.publicKey, 'Ed25519', ctx);
  builder.setTrust(key.trust);
  const message = utf8Encode(parsed.canonical ?? rebuilt);
  if (parsed.innerSignature !== undefined && parsed.innerSignature !== parsed.signatureText) {
    builder.fail(
      'MISMATCH',
      'countersignature',
      'The log entry in signed_over carries another countersignature than the request.',
      problem(
        'countersignature_mismatch',
        '/signed_over/countersignature',
        'signed_over.countersignature differs from the top-level countersignature.',
      ),
    );
  }
  if (ctx.crypto.ed25519Verify(parsed.signature, message, parsed.publicKey)) {
    builder.passSigned(
      'countersignature',
      (outcome) =>
        `The Ed25519 countersignature over ${parsed.canonical === undefined ? 'the canonical text of signed_over' : 'signed_over_canonical'} verifies under ${describeKey(key, outcome)}.`,
    );
  } else {
    builder.fail(
      'INVALID',
      'countersignature',
      `The Ed25519 countersignature does not verify under ${describeKey(key, 'not_signed')}.`,
      problem('signature_invalid', '/countersignature', 'The countersignature does not verify over the signed text.'),
    );
  }
}

function checkInclusion(builder: ReportBuilder, parsed: Parsed, crypto: FormatInput['ctx']['crypto']): void {
  const leaf = parsed.hashes['leaf'] ?? '';
  let path = parsed.auditPath;
  const root = parsed.root;
  if (parsed.shape === 'countersign' && root !== undefined) {
    if (parsed.seq !== '1') {
      builder.notSupplied(
        'inclusion',
        `The countersign answer carries no audit path to log_root_after; the countersigner's /log/inclusion?seq=${parsed.seq} gives one.`,
      );
      return;
    }
    path = [];
  }
  if (path === undefined || root === undefined) {
    builder.notSupplied('inclusion', 'No audit_path and root were supplied, so inclusion in the log is not shown.');
    return;
  }
  const computed = foldAuditPath(crypto, leaf, path);
  const what = parsed.shape === 'countersign' ? 'log_root_after (a log of one entry: its root is the leaf)' : 'root';
  if (computed === root.value) {
    builder.pass('inclusion', `The audit path of ${path.length} steps folds signed_over.leaf to ${what}.`);
  } else {
    builder.fail(
      'MISMATCH',
      'inclusion',
      `The audit path folds signed_over.leaf to another value than ${what}.`,
      problem('merkle_root_mismatch', root.path, `The path folds to ${computed}.`),
    );
  }
}

function firstDifference(given: string, expected: string): string {
  let index = 0;
  while (index < given.length && given[index] === expected[index]) index++;
  return `at character ${index}: ${given.slice(Math.max(0, index - 8), index + 24)}`;
}

function parse(tree: JsonObjectNode, problems: ReportError[]): Parsed | undefined {
  const shape = countersignerShape(tree);
  const { required, optional } = SHAPE_MEMBERS[shape];
  problems.push(...memberNodeProblems(tree, '', required, optional));

  const str = (name: string): string | undefined => {
    const node = memberNode(tree, name);
    if (node === undefined) return undefined;
    if (node.type !== 'string') {
      problems.push(problem('invalid_type', pointerAppend('', name), `"${name}" must be a string.`));
      return undefined;
    }
    return node.value;
  };
  const hex = (node: JsonNode | undefined, path: string, name: string): string | undefined => {
    if (node === undefined) return undefined;
    if (node.type !== 'string' || decodeHexField(node.value, 32) === undefined) {
      problems.push(problem('invalid_digest', path, `"${name}" must be a BLAKE3 hash as 64 lowercase hex characters.`));
      return undefined;
    }
    return node.value;
  };

  const countersigned = memberNode(tree, 'countersigned');
  if (countersigned !== undefined && !(countersigned.type === 'boolean' && countersigned.value)) {
    problems.push(problem('invalid_value', '/countersigned', '"countersigned" must be true.'));
  }
  const independentNode = memberNode(tree, 'independent');
  if (independentNode !== undefined && independentNode.type !== 'boolean') {
    problems.push(problem('invalid_type', '/independent', '"independent" must be true or false.'));
  }
  str('note');
  const topSeqNode = memberNode(tree, 'seq');
  const topSeq = positiveInteger(topSeqNode, '/seq', problems);
  const canonical = str('signed_over_canonical');
  const scheme = str('countersignature_scheme');

  const signatureText = str('countersignature');
  const signature = signatureText === undefined ? undefined : decodeB64Field(signatureText, 64);
  if (signatureText !== undefined && signature === undefined) {
    problems.push(
      problem(
        'invalid_signature_encoding',
        '/countersignature',
        '"countersignature" must be 64 bytes as padded base64.',
      ),
    );
  }
  const keyText = str('countersigner_public_key_b64');
  const publicKey = keyText === undefined ? undefined : decodeB64Field(keyText, 32);
  if (keyText !== undefined && publicKey === undefined) {
    problems.push(
      problem(
        'invalid_public_key',
        '/countersigner_public_key_b64',
        '"countersigner_public_key_b64" must be 32 bytes as padded base64.',
      ),
    );
  }

  const rootName = shape === 'countersign' ? 'log_root_after' : 'root';
  const rootValue = hex(memberNode(tree, rootName), `/${rootName}`, rootName);
  const auditPath = readAuditPath(memberNode(tree, 'audit_path'), problems);
  if (
    shape === 'verify' &&
    (memberNode(tree, 'audit_path') === undefined) !== (memberNode(tree, 'root') === undefined)
  ) {
    const missing = memberNode(tree, 'root') === undefined ? 'root' : 'audit_path';
    problems.push(
      problem('missing_property', `/${missing}`, 'audit_path and root go together: give both, or neither.'),
    );
  }
  const record = memberNode(tree, 'record');
  if (record !== undefined && record.type !== 'object') {
    problems.push(problem('invalid_type', '/record', '"record" must be the countersigned record, a JSON object.'));
  }

  const signedOver = memberNode(tree, 'signed_over');
  let seq: string | undefined;
  let time: string | undefined;
  let innerSignature: string | undefined;
  const hashes: Record<string, string> = {};
  if (signedOver !== undefined && signedOver.type !== 'object') {
    problems.push(problem('invalid_type', '/signed_over', '"signed_over" must be an object.'));
  } else if (signedOver !== undefined) {
    problems.push(
      ...memberNodeProblems(
        signedOver,
        '/signed_over',
        SIGNED_OVER_MEMBERS,
        shape === 'verify' ? ['countersignature'] : [],
      ),
    );
    seq = positiveInteger(memberNode(signedOver, 'seq'), '/signed_over/seq', problems);
    for (const name of SIGNED_OVER_HASHES) {
      const value = hex(memberNode(signedOver, name), `/signed_over/${name}`, name);
      if (value !== undefined) hashes[name] = value;
    }
    const schemeNode = memberNode(signedOver, 'operator_signature_scheme');
    if (schemeNode !== undefined && schemeNode.type !== 'string') {
      problems.push(
        problem(
          'invalid_type',
          '/signed_over/operator_signature_scheme',
          '"operator_signature_scheme" must be a string.',
        ),
      );
    }
    const timeNode = memberNode(signedOver, 'countersigner_time');
    if (timeNode !== undefined) {
      if (timeNode.type === 'number') time = pythonNumberOrUndefined(timeNode.lexeme);
      if (time === undefined) {
        problems.push(
          problem(
            'invalid_type',
            '/signed_over/countersigner_time',
            '"countersigner_time" must be a finite number (seconds).',
          ),
        );
      }
    }
    const inner = memberNode(signedOver, 'countersignature');
    if (inner !== undefined) {
      if (inner.type === 'string') innerSignature = inner.value;
      else
        problems.push(problem('invalid_type', '/signed_over/countersignature', '"countersignature" must be a string.'));
    }
    if (!canonicalizable(signedOver)) {
      problems.push(problem('invalid_value', '/signed_over', 'signed_over has no canonical text.'));
    }
  }
  if (record?.type === 'object' && !canonicalizable(record)) {
    problems.push(problem('invalid_value', '/record', 'The record has no canonical text.'));
  }
  if (
    problems.length > 0 ||
    signedOver?.type !== 'object' ||
    signature === undefined ||
    seq === undefined ||
    time === undefined
  ) {
    return undefined;
  }
  return {
    shape,
    signedOver,
    canonical,
    signature,
    signatureText: signatureText ?? '',
    innerSignature,
    publicKey,
    scheme,
    topSeq,
    seq,
    time,
    hashes,
    auditPath,
    root: rootValue === undefined ? undefined : { value: rootValue, path: `/${rootName}` },
    record,
    independent: independentNode?.type === 'boolean' ? independentNode.value : undefined,
  };
}

function positiveInteger(node: JsonNode | undefined, path: string, problems: ReportError[]): string | undefined {
  if (node === undefined) return undefined;
  if (node.type !== 'number' || !isPlainNonNegativeInteger(node) || node.lexeme === '0') {
    problems.push(
      problem('invalid_integer', path, 'A seq is an integer from 1, written without sign, fraction or exponent.'),
    );
    return undefined;
  }
  return node.lexeme;
}

function pythonNumberOrUndefined(lexeme: string): string | undefined {
  try {
    return pythonNumber(lexeme);
  } catch {
    return undefined;
  }
}

function canonicalizable(node: JsonNode): boolean {
  try {
    pythonJsonDumps(node);
    return true;
  } catch {
    return false;
  }
}

function readAuditPath(node: JsonNode | undefined, problems: ReportError[]): AuditStep[] | undefined {
  if (node === undefined) return undefined;
  if (node.type !== 'array') {
    problems.push(problem('invalid_type', '/audit_path', '"audit_path" must be an array of [side, hash] steps.'));
    return undefined;
  }
  if (node.items.length > MAX_AUDIT_PATH_LENGTH) {
    problems.push(
      problem(
        'path_too_long',
        '/audit_path',
        `"audit_path" has ${node.items.length} steps; at most ${MAX_AUDIT_PATH_LENGTH} are possible.`,
      ),
    );
    return undefined;
  }
  const steps: AuditStep[] = [];
  node.items.forEach((item, index) => {
    const side = item.type === 'array' && item.items.length === 2 ? item.items[0] : undefined;
    const sibling = item.type === 'array' && item.items.length === 2 ? item.items[1] : undefined;
    if (
      side?.type !== 'string' ||
      (side.value !== 'left' && side.value !== 'right') ||
      sibling?.type !== 'string' ||
      decodeHexField(sibling.value, 32) === undefined
    ) {
      problems.push(
        problem(
          'invalid_path_step',
          `/audit_path/${index}`,
          'Each audit_path step is ["left" or "right", a hash as 64 lowercase hex characters].',
        ),
      );
      return;
    }
    steps.push([side.value, sibling.value]);
  });
  return steps.length === node.items.length ? steps : undefined;
}
