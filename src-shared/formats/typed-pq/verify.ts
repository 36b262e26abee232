/**
 * Typed post-quantum attestation verification (PROTOCOL section 7): the typed signer's
 * `afir.attestation`.
 *
 * A document is `{envelope, fragments}`, `{envelope, fragments_canon}`, or the signer's sign answer
 * (`{ok, algorithm, spec, real, envelope, fragments_canon, timing_us, ...}`). `H` is SHA-256, or
 * SHA-384 when `envelope.hash_suite` is `sha-384`. `d_i = H(JCS({fragment_id, fragment_type,
 * text_hash, index}))`; the attested fragments' digests, sorted as hex, aggregate into `agg_root`
 * (linear `H(d_1 || ... || d_n)`, merkle a pairwise tree whose odd last node pairs with itself);
 * `payload_digest = H(H(JCS(base)) || agg_root || policy_digest [|| H(JCS(temporal))])` over raw
 * bytes, with `base = {object, version, sig_scheme, public_key}`; ML-DSA-65 (FIPS 204, pure, empty
 * context) signs the raw payload digest bytes.
 *
 * Decisions (docs/protocol.md section 12 says them for users):
 * - Versions: `1.0.0-typed-pq` (the signer's base key) and `2.0.0-qpuf` (its QPuF key: the same
 *   bytes, plus an unsigned `trust` block) are verified. Any other version of `afir.attestation`
 *   is UNSUPPORTED naming it, before the schema: never MALFORMED, never PASS. So are another
 *   `sig_scheme`, `hash_suite` or `agg_mode`.
 * - The producer's byte rules where PROTOCOL is loose: the linear root of no attested fragment is
 *   `H` of zero bytes; the merkle root of none is the empty string, bound as a slot of zero bytes.
 * - Each envelope fragment is matched to its input by `fragment_id` (ids unique on both sides).
 *   Its recomputed `d_i` must equal `canon_digest` whether or not it is attested (a difference is
 *   MISMATCH even where the producer's verifier, which recomputes only attested fragments, says
 *   valid); an attested fragment without an input is MISMATCH; an unattested one is `unchecked`
 *   (the signature does not cover it) and so is one that matches. An input not in the envelope is
 *   MISMATCH. `agg_root` is recomputed from the envelope's attested `canon_digest`s, so a report
 *   says whether a fragment or the root changed.
 * - Unsigned members that contradict signed content are MISMATCH (`merkle_root` not `agg_root`,
 *   `fragment_count` or `attested` not the counts of `fragments`, a fragment's `fragment_type`
 *   not its input's, a digest of the wrong length for the suite). What the signature does not
 *   cover is listed `unchecked`: the policy (bound only as its digest), `temporal`'s claims,
 *   `issued_at`, `policy_id`, the QPuF `trust` block and the sign answer's own members.
 * - A fragment whose `text_hash` is the digest of empty text gets a note: the signer hashed no
 *   text (a caller that sent `value` instead of `text`, as hive-mcp-spire's mints do), so
 *   nothing the caller meant to attest is bound.
 * - A bare envelope (no fragment inputs) is verified as far as it goes; its attested fragments'
 *   contents are `unavailable`, so the status is INDETERMINATE at best.
 * - The key is inline (`public_key`, no key id): a pinned entry holding the same ML-DSA-65 bytes
 *   makes trust `trusted`; otherwise `unpinned`.
 * - Other objects of the same signer (`sigr.bill.receipt`, `sigr.bond.terms`, ...; anything
 *   `sigr.`, `afir.` or `hive.` with `sig_scheme` and `envelope_signature`) are reported as format
 *   `unknown`, UNSUPPORTED, error `unsupported_format` naming the object. `sigr.chain.receipt` is
 *   not recognized here: it has a format of its own.
 */
import { MLDSA65_LENGTHS, concatBytes, equalBytes, hexDecode, hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { jcs } from '../../json';
import type { JsonNode } from '../../json/types';
import { validate } from '../../schemas/typed-pq.generated';
import type { VerifyContext } from '../../verify/context';
import {
  decodeB64Field,
  describeType,
  isJsonObject,
  type JsonObject,
  memberString,
  objectMember,
  problem,
  quote,
} from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import { describeKey, findEmbeddedKey } from '../../verify/keys';
import type { Report } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';
import { schemaErrorsToReport } from '../../verify/schema-errors';

/** `envelope.object`. */
export const TYPED_PQ_OBJECT = 'afir.attestation';
/** The version the typed signer's base key writes (and `evroom sign typed-pq`). */
export const TYPED_PQ_VERSION = '1.0.0-typed-pq';
/** Every version verified: the base key's and the QPuF key's (same bytes). */
export const TYPED_PQ_VERSIONS: readonly string[] = Object.freeze([TYPED_PQ_VERSION, '2.0.0-qpuf']);
/** The one signature scheme executed. */
export const TYPED_PQ_SCHEME = 'ml-dsa-65';
/** The aggregation modes executed. */
export const TYPED_PQ_AGG_MODES = Object.freeze(['linear', 'merkle'] as const);
/** The hash suites executed; absent means `sha-256`. */
export const TYPED_PQ_HASH_SUITES = Object.freeze(['sha-256', 'sha-384'] as const);
/** The most fragments one envelope may carry; bounds the work a document can ask for. */
export const MAX_TYPED_PQ_FRAGMENTS = 1024;

/** An aggregation mode. */
export type TypedPqAggMode = (typeof TYPED_PQ_AGG_MODES)[number];
/** A hash suite. */
export type TypedPqHashSuite = (typeof TYPED_PQ_HASH_SUITES)[number];

/** One fragment input: what `d_i` is computed over. */
export interface TypedPqFragmentInput {
  fragment_id: string;
  fragment_type: string;
  text_hash: string;
  index: number;
}

/** A hash function of a suite, with its digest length. */
export interface TypedPqHash {
  (data: Uint8Array): Uint8Array;
  /** 32 or 48. */
  readonly length: number;
}

/**
 * The hash suite an envelope names, read as the typed signer's verifier reads it: absent means
 * `sha-256`, and the name is lowercased before it is matched (its signer writes it lowercase).
 *
 * @param envelope - The envelope.
 * @returns The lowercased name (one of {@link TYPED_PQ_HASH_SUITES} or another), or undefined
 *   when `hash_suite` is not a string.
 */
export function typedPqSuiteName(envelope: JsonObject): string | undefined {
  const named = Object.hasOwn(envelope, 'hash_suite') ? envelope['hash_suite'] : 'sha-256';
  return typeof named === 'string' ? named.toLowerCase() : undefined;
}

/**
 * The hash function of a suite.
 *
 * @param suite - `sha-256` or `sha-384`.
 * @param crypto - The crypto provider.
 * @returns The function, its `length` the digest length in bytes.
 * @throws RangeError for another suite.
 */
export function typedPqHash(suite: TypedPqHashSuite, crypto: CryptoProvider): TypedPqHash {
  if (suite !== 'sha-256' && suite !== 'sha-384')
    throw new RangeError(`Unknown hash suite ${JSON.stringify(String(suite))}`);
  const hash =
    suite === 'sha-256' ? (data: Uint8Array) => crypto.sha256(data) : (data: Uint8Array) => crypto.sha384(data);
  // A function's own `length` is read-only; define it as the digest length.
  Object.defineProperty(hash, 'length', { value: suite === 'sha-256' ? 32 : 48 });
  return hash as TypedPqHash;
}

/**
 * A fragment's digest `d_i = H(JCS({fragment_id, fragment_type, text_hash, index}))`.
 *
 * @param input - The fragment input (other members are not hashed).
 * @param hash - The suite's hash.
 * @returns The digest.
 */
export function fragmentCanonDigest(input: TypedPqFragmentInput, hash: TypedPqHash): Uint8Array {
  const canon = {
    fragment_id: input.fragment_id,
    fragment_type: input.fragment_type,
    text_hash: input.text_hash,
    index: input.index,
  };
  return hash(utf8Encode(jcs(canon)));
}

/**
 * The aggregation root over the attested digests (the caller's order is ignored: they are sorted).
 *
 * @param digests - The attested fragments' digests.
 * @param mode - `linear` or `merkle`.
 * @param hash - The suite's hash.
 * @returns The root; for merkle over no digest, zero bytes (the producer's empty root).
 * @throws RangeError if a digest is not of the suite's length.
 */
export function aggregateRoot(digests: readonly Uint8Array[], mode: TypedPqAggMode, hash: TypedPqHash): Uint8Array {
  for (const digest of digests) {
    if (!(digest instanceof Uint8Array) || digest.length !== hash.length) {
      throw new RangeError(`Every fragment digest must be ${hash.length} bytes`);
    }
  }
  const sorted = digests.map(hexEncode).sort();
  if (mode === 'linear') return hash(hexDecode(sorted.join('')));
  if (sorted.length === 0) return new Uint8Array(0);
  let nodes = sorted.map(hexDecode);
  while (nodes.length > 1) {
    const next: Uint8Array[] = [];
    for (let index = 0; index < nodes.length; index += 2) {
      const left = nodes[index] as Uint8Array;
      next.push(hash(concatBytes(left, nodes[index + 1] ?? left)));
    }
    nodes = next;
  }
  return nodes[0] as Uint8Array;
}

/**
 * The signed payload digest: `H(H(JCS(base)) || root || policy_digest [|| H(JCS(temporal))])`.
 *
 * @param base - `{object, version, sig_scheme, public_key}` as the envelope states them.
 * @param root - The aggregation root; empty is bound as zero bytes.
 * @param policyDigest - The policy digest bytes.
 * @param temporal - The temporal object, when the envelope has one.
 * @param hash - The suite's hash.
 * @returns The payload digest.
 */
export function payloadDigest(
  base: { object: string; version: string; sig_scheme: string; public_key: string },
  root: Uint8Array,
  policyDigest: Uint8Array,
  temporal: JsonObject | undefined,
  hash: TypedPqHash,
): Uint8Array {
  const baseDigest = hash(
    utf8Encode(
      jcs({ object: base.object, version: base.version, sig_scheme: base.sig_scheme, public_key: base.public_key }),
    ),
  );
  const slots = [baseDigest, root.length === 0 ? new Uint8Array(hash.length) : root, policyDigest];
  if (temporal !== undefined) slots.push(hash(utf8Encode(jcs(temporal))));
  return hash(concatBytes(...slots));
}

/**
 * The policy digest the typed signer binds: `H(JCS({absence_bound, sign_types sorted}))`.
 *
 * @param signTypes - The fragment types the policy attests.
 * @param absenceBound - The policy's absence bound (the signer writes 0).
 * @param hash - The suite's hash.
 * @returns The digest.
 */
export function policyDigest(signTypes: readonly string[], absenceBound: number, hash: TypedPqHash): Uint8Array {
  return hash(utf8Encode(jcs({ absence_bound: absenceBound, sign_types: [...signTypes].sort() })));
}

const SIGNER_OBJECT = /^(?:sigr|afir|hive)\.[a-z0-9_.-]{1,64}$/;
/** Formats of their own, recognized elsewhere (PROTOCOL section 14). */
const OWN_FORMAT_OBJECTS = new Set(['sigr.chain.receipt']);

/** The envelope node of a document: `envelope`, or the document itself when it is a bare envelope. */
function envelopeNode(node: JsonNode): JsonNode | undefined {
  const envelope = objectMember(node, 'envelope');
  if (envelope !== undefined) return envelope;
  return memberString(node, 'object') === undefined ? undefined : node;
}

/**
 * Recognize a typed-pq document by `envelope.object` (or a bare envelope's `object`), never by
 * the presence of `envelope` alone.
 *
 * @param node - Any parsed document.
 * @returns `typed-pq` for `afir.attestation`; `unknown` for another object of the typed signer
 *   (verified as UNSUPPORTED); otherwise undefined.
 */
export function detectTypedPq(node: JsonNode): 'typed-pq' | 'unknown' | undefined {
  const envelope = envelopeNode(node);
  const object = memberString(envelope, 'object');
  if (object === undefined) return undefined;
  if (object === TYPED_PQ_OBJECT) return 'typed-pq';
  return otherSignerObject(envelope, object) ? 'unknown' : undefined;
}

function otherSignerObject(envelope: JsonNode | undefined, object: string): boolean {
  return (
    SIGNER_OBJECT.test(object) &&
    !OWN_FORMAT_OBJECTS.has(object) &&
    memberString(envelope, 'sig_scheme') !== undefined &&
    memberString(envelope, 'envelope_signature') !== undefined
  );
}

interface Parts {
  envelope: JsonObject;
  inputs: TypedPqFragmentInput[] | undefined;
  inputsName: string;
  fragments: { fragment_id: string; fragment_type: string; canon_digest: string; attested: boolean }[];
  /** The document's members beside `envelope` and its inputs (a sign answer's). */
  extras: string[];
}

/**
 * The check ids of a typed-pq report for a document, in report order.
 *
 * @param fragmentCount - The envelope's fragment count.
 * @param temporal - Whether the envelope carries `temporal`.
 * @returns `schema`, `version`, `sig_scheme`, `hash_suite`, `agg_mode`, `fragments`,
 *   `fragment.0` ..., `counts`, `agg_root`, `merkle_root`, `policy`, [`temporal`],
 *   `payload_digest`, `signature`, `unsigned`.
 * @throws RangeError if `fragmentCount` is not a non-negative integer.
 */
export function typedPqChecks(fragmentCount: number, temporal = false): string[] {
  if (!Number.isSafeInteger(fragmentCount) || fragmentCount < 0) {
    throw new RangeError('The fragment count must be a non-negative integer');
  }
  return [
    'schema',
    'version',
    'sig_scheme',
    'hash_suite',
    'agg_mode',
    'fragments',
    ...Array.from({ length: fragmentCount }, (_, index) => `fragment.${index}`),
    'counts',
    'agg_root',
    'merkle_root',
    'policy',
    ...(temporal ? ['temporal'] : []),
    'payload_digest',
    'signature',
    'unsigned',
  ];
}

/**
 * Verify a typed-pq document (or report another object of the typed signer as UNSUPPORTED).
 *
 * @param input - The parsed document and context.
 * @returns The report; format `typed-pq`, or `unknown` for another signer object.
 */
export function verifyTypedPq(input: FormatInput): Report {
  const { value, ctx } = input;
  if (!isJsonObject(value)) {
    return new ReportBuilder('typed-pq', ['schema'])
      .fail(
        'MALFORMED',
        'schema',
        'A typed-pq document is a JSON object.',
        problem('invalid_type', '', `Expected an object, got ${describeType(value)}.`),
      )
      .build();
  }
  const bare = !isJsonObject(value['envelope']);
  const envelope = (bare ? value : value['envelope']) as JsonObject;
  const object = envelope['object'];
  if (object !== TYPED_PQ_OBJECT) return otherObjectReport(String(object), bare);

  const fragmentCount = Array.isArray(envelope['fragments']) ? envelope['fragments'].length : 0;
  const builder = new ReportBuilder(
    'typed-pq',
    typedPqChecks(fragmentCount <= MAX_TYPED_PQ_FRAGMENTS ? fragmentCount : 0, isJsonObject(envelope['temporal'])),
  );
  const version = envelope['version'];
  if (typeof version === 'string' && !TYPED_PQ_VERSIONS.includes(version)) {
    builder.unsupported(
      'version',
      `afir.attestation version ${quote(version)} is not supported; verified: ${TYPED_PQ_VERSIONS.join(', ')}.`,
      problem(
        'unsupported_version',
        bare ? '/version' : '/envelope/version',
        `afir.attestation version ${quote(version)} is not one this verifier checks.`,
      ),
    );
    return builder.build('Not checked: the version is not supported.');
  }
  const parts = readParts(value, bare, builder);
  if (parts === undefined) return builder.build();
  builder.pass('version', `version ${quote(version as string)}.`);
  const supported = checkAlgorithms(builder, parts.envelope, bare);
  if (supported === undefined) {
    return builder.build('Not checked: the envelope uses a scheme, suite or aggregation we do not verify.');
  }
  const hash = typedPqHash(supported.suite, ctx.crypto);
  const binding = checkBindings(builder, parts, supported.mode, hash, bare);
  if (binding === undefined) return builder.build();
  checkSignature(builder, ctx, binding, bare);
  listUnsigned(builder, parts, bare);
  return builder.build();
}

function otherObjectReport(object: string, bare: boolean): Report {
  return new ReportBuilder('unknown', ['format'])
    .unsupported(
      'format',
      `${quote(object)} is another object of the typed signer (srotzin/hive-typed-signer); this verifier checks only afir.attestation, so nothing of it was verified.`,
      problem(
        'unsupported_format',
        bare ? '/object' : '/envelope/object',
        `Unsupported format: typed signer object ${quote(object)}.`,
      ),
    )
    .build();
}

function pointer(bare: boolean, path: string): string {
  return bare ? path : `/envelope${path}`;
}

/** Schema, then what only code can check of the shape. */
function readParts(document: JsonObject, bare: boolean, builder: ReportBuilder): Parts | undefined {
  const shaped = bare ? { envelope: document } : document;
  if (!validate(shaped)) {
    builder.fail(
      'MALFORMED',
      'schema',
      'The document does not fit the typed-pq attestation schema.',
      schemaErrorsToReport(validate.errors).map((error) =>
        bare ? { ...error, path: error.path.replace(/^\/envelope/, '') } : error,
      ),
    );
    return undefined;
  }
  const envelope = bare ? document : (document['envelope'] as JsonObject);
  const problems = [];
  if (!bare && Object.hasOwn(document, 'fragments') && Object.hasOwn(document, 'fragments_canon')) {
    problems.push(
      problem(
        'ambiguous_fragments',
        '/fragments_canon',
        'Give the fragment inputs once: "fragments" or "fragments_canon", not both.',
      ),
    );
  }
  const fragments = envelope['fragments'] as Parts['fragments'];
  const seen = new Set<string>();
  fragments.forEach((fragment, index) => {
    if (seen.has(fragment.fragment_id)) {
      problems.push(
        problem(
          'duplicate_fragment_id',
          pointer(bare, `/fragments/${index}/fragment_id`),
          `fragment_id ${quote(fragment.fragment_id)} appears twice in the envelope.`,
        ),
      );
    }
    seen.add(fragment.fragment_id);
  });
  const inputsName = Object.hasOwn(document, 'fragments_canon') && !bare ? 'fragments_canon' : 'fragments';
  const inputs = bare ? undefined : (document[inputsName] as TypedPqFragmentInput[] | undefined);
  const inputIds = new Set<string>();
  inputs?.forEach((item, index) => {
    if (inputIds.has(item.fragment_id)) {
      problems.push(
        problem(
          'duplicate_fragment_id',
          `/${inputsName}/${index}/fragment_id`,
          `fragment_id ${quote(item.fragment_id)} appears twice in ${inputsName}.`,
        ),
      );
    }
    inputIds.add(item.fragment_id);
  });
  if (problems.length > 0) {
    builder.fail('MALFORMED', 'schema', 'The document fits the schema but repeats or doubles fragments.', problems);
    return undefined;
  }
  builder.pass(
    'schema',
    bare
      ? 'A bare afir.attestation envelope that fits the typed-pq schema; no fragment inputs came with it.'
      : `The document fits the typed-pq attestation schema (envelope and ${inputsName}).`,
  );
  const extras = bare ? [] : Object.keys(document).filter((name) => !['envelope', inputsName].includes(name));
  return { envelope, inputs, inputsName, fragments, extras };
}

function checkAlgorithms(
  builder: ReportBuilder,
  envelope: JsonObject,
  bare: boolean,
): { suite: TypedPqHashSuite; mode: TypedPqAggMode } | undefined {
  let ok = true;
  const scheme = envelope['sig_scheme'] as string;
  if (scheme === TYPED_PQ_SCHEME)
    builder.pass('sig_scheme', 'sig_scheme is ml-dsa-65 (FIPS 204, pure, empty context).');
  else {
    ok = false;
    builder.unsupported(
      'sig_scheme',
      `sig_scheme ${quote(scheme)} is not supported; only ml-dsa-65 is verified.`,
      problem('unsupported_scheme', pointer(bare, '/sig_scheme'), `Unsupported sig_scheme ${quote(scheme)}.`),
    );
  }
  // The schema made hash_suite a string when present.
  const named = Object.hasOwn(envelope, 'hash_suite') ? (envelope['hash_suite'] as string) : undefined;
  const suite = typedPqSuiteName(envelope) ?? '';
  const knownSuite = (TYPED_PQ_HASH_SUITES as readonly string[]).includes(suite);
  if (knownSuite) {
    builder.pass(
      'hash_suite',
      named === undefined
        ? 'No hash_suite: SHA-256, the default.'
        : named === suite
          ? `hash_suite ${suite}.`
          : `hash_suite ${quote(named)}: ${suite} (the name is read case-insensitively, as the typed signer reads it).`,
    );
  } else {
    ok = false;
    builder.unsupported(
      'hash_suite',
      `hash_suite ${quote(named ?? '')} is not supported; verified: ${TYPED_PQ_HASH_SUITES.join(', ')}.`,
      problem('unsupported_hash_suite', pointer(bare, '/hash_suite'), `Unsupported hash_suite ${quote(named ?? '')}.`),
    );
  }
  const mode = envelope['agg_mode'] as string;
  const knownMode = (TYPED_PQ_AGG_MODES as readonly string[]).includes(mode);
  if (knownMode) builder.pass('agg_mode', `agg_mode ${mode}.`);
  else {
    ok = false;
    builder.unsupported(
      'agg_mode',
      `agg_mode ${quote(mode)} is not supported; verified: linear, merkle. (agg_mode is not signed: the typed signer's own verifier reads any other value as linear.)`,
      problem('unsupported_aggregation', pointer(bare, '/agg_mode'), `Unsupported agg_mode ${quote(mode)}.`),
    );
  }
  return ok ? { suite: suite as TypedPqHashSuite, mode: mode as TypedPqAggMode } : undefined;
}

interface Binding {
  envelope: JsonObject;
  payload: Uint8Array;
  signature: Uint8Array;
  publicKey: Uint8Array;
}

function checkBindings(
  builder: ReportBuilder,
  parts: Parts,
  mode: TypedPqAggMode,
  hash: TypedPqHash,
  bare: boolean,
): Binding | undefined {
  const { envelope, fragments, inputs, inputsName } = parts;
  const publicKey = decodeB64Field(envelope['public_key'], MLDSA65_LENGTHS.publicKey);
  const signature = decodeB64Field(envelope['envelope_signature'], MLDSA65_LENGTHS.signature);
  const encodingProblems = [];
  if (publicKey === undefined) {
    encodingProblems.push(
      problem(
        'invalid_public_key',
        pointer(bare, '/public_key'),
        '"public_key" must be an ML-DSA-65 public key: 1952 bytes as standard base64.',
      ),
    );
  }
  if (signature === undefined) {
    encodingProblems.push(
      problem(
        'invalid_signature_encoding',
        pointer(bare, '/envelope_signature'),
        '"envelope_signature" must be an ML-DSA-65 signature: 3309 bytes as 4412 characters of standard base64.',
      ),
    );
  }
  if (publicKey === undefined || signature === undefined) {
    builder.fail('MALFORMED', 'schema', 'The key or signature is not ML-DSA-65 sized base64.', encodingProblems);
    return undefined;
  }

  // Every digest must have the suite's length: another length means the suite was changed.
  const width = hash.length * 2;
  const wrongWidth: string[] = [];
  const digestMembers = ['policy_digest', 'payload_digest', 'agg_root', 'merkle_root'] as const;
  for (const name of digestMembers) {
    const text = envelope[name] as string;
    if (text.length !== width && !(text === '' && name !== 'policy_digest' && name !== 'payload_digest')) {
      wrongWidth.push(name);
    }
  }
  fragments.forEach((fragment, index) => {
    if (fragment.canon_digest.length !== width) wrongWidth.push(`fragments/${index}/canon_digest`);
  });
  inputs?.forEach((item, index) => {
    if (item.text_hash.length !== width) wrongWidth.push(`${inputsName}/${index}/text_hash`);
  });
  if (wrongWidth.length > 0) {
    builder.fail(
      'MISMATCH',
      'hash_suite',
      `Digests of another length than the suite's ${hash.length} bytes: the hash_suite and the digests disagree.`,
      wrongWidth.map((name) =>
        problem(
          'digest_length_mismatch',
          name.startsWith(inputsName) ? `/${name}` : pointer(bare, `/${name}`),
          `${name} is not ${width} hex characters, the ${hash.length}-byte digests of the stated suite.`,
        ),
      ),
    );
    return undefined;
  }

  checkFragments(builder, parts, hash, bare);

  const attestedCount = fragments.filter((fragment) => fragment.attested).length;
  const counts: string[] = [];
  if (envelope['fragment_count'] !== fragments.length) {
    counts.push(`fragment_count says ${String(envelope['fragment_count'])}, the envelope lists ${fragments.length}`);
  }
  if (envelope['attested'] !== attestedCount) {
    counts.push(`attested says ${String(envelope['attested'])}, ${attestedCount} fragments are marked attested`);
  }
  if (counts.length === 0) {
    builder.pass('counts', `fragment_count ${fragments.length} and attested ${attestedCount} match the fragment list.`);
  } else {
    builder.fail(
      'MISMATCH',
      'counts',
      `The unsigned counts contradict the fragment list: ${counts.join('; ')}.`,
      problem(
        'count_mismatch',
        pointer(bare, envelope['fragment_count'] !== fragments.length ? '/fragment_count' : '/attested'),
        `${counts.join('; ')}.`,
      ),
    );
  }

  const root = aggregateRoot(
    fragments.filter((fragment) => fragment.attested).map((fragment) => hexDecode(fragment.canon_digest)),
    mode,
    hash,
  );
  const rootHex = hexEncode(root);
  const noneDetail = attestedCount === 0 ? ' (no fragment is attested)' : '';
  if (rootHex === envelope['agg_root']) {
    builder.pass(
      'agg_root',
      `agg_root is the ${mode} root of the ${attestedCount} attested canon_digests, sorted${noneDetail}.`,
    );
  } else {
    builder.fail(
      'MISMATCH',
      'agg_root',
      `agg_root differs from the ${mode} root of the attested canon_digests${noneDetail}.`,
      problem(
        'agg_root_mismatch',
        pointer(bare, '/agg_root'),
        `The attested canon_digests aggregate to ${quote(rootHex)}, not agg_root.`,
      ),
    );
  }
  if (envelope['merkle_root'] === envelope['agg_root']) {
    builder.pass('merkle_root', 'merkle_root (kept for wire compatibility) equals agg_root.');
  } else {
    builder.fail(
      'MISMATCH',
      'merkle_root',
      'merkle_root differs from agg_root; the two are one value under two names.',
      problem('merkle_root_mismatch', pointer(bare, '/merkle_root'), 'merkle_root is not agg_root.'),
    );
  }
  builder.unchecked(
    'policy',
    `The policy is bound only as policy_digest; the policy itself (its sign_types and absence_bound) is not in the document, so which fragment types had to be attested is not checked. policy_id ${quote(String(envelope['policy_id']))} is not signed.`,
  );
  const temporal = isJsonObject(envelope['temporal']) ? envelope['temporal'] : undefined;
  if (temporal !== undefined) {
    builder.unchecked(
      'temporal',
      'temporal is bound into payload_digest as its fourth slot, but its claims (time source, soft commitment, finality references) are not checked.',
    );
  }

  const expected = payloadDigest(
    {
      object: envelope['object'] as string,
      version: envelope['version'] as string,
      sig_scheme: envelope['sig_scheme'] as string,
      public_key: envelope['public_key'] as string,
    },
    hexDecode(envelope['agg_root'] as string),
    hexDecode(envelope['policy_digest'] as string),
    temporal,
    hash,
  );
  const stated = hexDecode(envelope['payload_digest'] as string);
  const slots =
    temporal === undefined ? 'base || agg_root || policy_digest' : 'base || agg_root || policy_digest || temporal';
  if (equalBytes(expected, stated)) {
    builder.pass('payload_digest', `payload_digest is H(${slots}).`);
  } else {
    builder.fail(
      'MISMATCH',
      'payload_digest',
      `payload_digest differs from H(${slots}): a bound member was changed.`,
      problem(
        'payload_digest_mismatch',
        pointer(bare, '/payload_digest'),
        `H(${slots}) is ${quote(hexEncode(expected))}, not payload_digest.`,
      ),
    );
  }
  return { envelope, payload: stated, signature, publicKey };
}

function checkFragments(builder: ReportBuilder, parts: Parts, hash: TypedPqHash, bare: boolean): void {
  const { fragments, inputs, inputsName } = parts;
  const emptyText = hexEncode(hash(new Uint8Array(0)));
  if (inputs === undefined) {
    builder.unavailable(
      'fragments',
      'No fragment inputs came with the envelope: no fragment digest could be recomputed.',
      problem(
        'fragments_unavailable',
        '',
        'A bare afir.attestation envelope: give {envelope, fragments} to check the fragments.',
      ),
    );
  } else {
    const listed = new Set(fragments.map((fragment) => fragment.fragment_id));
    const strays = inputs.map((item, index) => ({ item, index })).filter(({ item }) => !listed.has(item.fragment_id));
    if (strays.length === 0) {
      builder.pass(
        'fragments',
        `Every one of the ${inputs.length} inputs in ${inputsName} is a fragment of the envelope.`,
      );
    } else {
      builder.fail(
        'MISMATCH',
        'fragments',
        `${strays.length} of the inputs in ${inputsName} are not fragments of the envelope.`,
        strays.map(({ item, index }) =>
          problem(
            'fragment_not_in_envelope',
            `/${inputsName}/${index}`,
            `Input ${quote(item.fragment_id)} is not listed in envelope.fragments.`,
          ),
        ),
      );
    }
  }
  const byId = new Map((inputs ?? []).map((item, index) => [item.fragment_id, { item, index }]));
  fragments.forEach((fragment, index) => {
    const checkId = `fragment.${index}`;
    const name = quote(fragment.fragment_id);
    const found = byId.get(fragment.fragment_id);
    if (found === undefined) {
      if (!fragment.attested) {
        builder.unchecked(
          checkId,
          `Fragment ${name} is not attested and has no input: the signature does not cover it.`,
        );
      } else if (inputs === undefined) {
        builder.unavailable(
          checkId,
          `Fragment ${name} is attested, but its input is not here: its canon_digest is taken as stated.`,
        );
      } else {
        builder.fail(
          'MISMATCH',
          checkId,
          `Attested fragment ${name} has no input in ${inputsName}: its content cannot be what was signed.`,
          problem(
            'fragment_input_missing',
            pointer(bare, `/fragments/${index}`),
            `No input in ${inputsName} has fragment_id ${name}.`,
          ),
        );
      }
      return;
    }
    const { item, index: inputIndex } = found;
    const digest = hexEncode(fragmentCanonDigest(item, hash));
    if (item.fragment_type !== fragment.fragment_type) {
      builder.fail(
        'MISMATCH',
        checkId,
        `Fragment ${name} is typed ${quote(fragment.fragment_type)} in the envelope but ${quote(item.fragment_type)} in its input.`,
        problem(
          'fragment_type_mismatch',
          pointer(bare, `/fragments/${index}/fragment_type`),
          `The envelope's fragment_type is not the input's.`,
        ),
      );
      return;
    }
    if (digest !== fragment.canon_digest) {
      builder.fail(
        'MISMATCH',
        checkId,
        `Fragment ${name}${fragment.attested ? '' : ' (not attested)'}: its input hashes to another digest than canon_digest; the fragment was changed.`,
        problem(
          'fragment_digest_mismatch',
          `/${inputsName}/${inputIndex}`,
          `Input ${name} hashes to ${quote(digest)}, not the envelope's canon_digest.`,
        ),
      );
      return;
    }
    const empty = item.text_hash === emptyText;
    if (empty) {
      builder.note(
        `Fragment ${name}: text_hash is the digest of empty text. The signer hashed no text for it, so whatever the caller meant to attest (for example a SPIRE mint's values) is not bound by this attestation.`,
      );
    }
    const emptyDetail = empty ? ' Its text_hash is the digest of empty text: no content of it is bound.' : '';
    if (fragment.attested) {
      builder.pass(
        checkId,
        `Fragment ${name} (${fragment.fragment_type}, attested): its input hashes to canon_digest.${emptyDetail}`,
      );
    } else {
      builder.unchecked(
        checkId,
        `Fragment ${name} (${fragment.fragment_type}) is not attested: its input matches canon_digest, but the signature does not cover it.${emptyDetail}`,
      );
    }
  });
}

function checkSignature(builder: ReportBuilder, ctx: VerifyContext, binding: Binding, bare: boolean): void {
  const key = findEmbeddedKey(binding.publicKey, 'ML-DSA-65', ctx);
  if (ctx.crypto.mldsa65Verify(binding.signature, binding.payload, binding.publicKey)) {
    builder.passSigned(
      'signature',
      (outcome) =>
        `The ML-DSA-65 signature over the payload_digest bytes verifies under the inline public_key: ${describeKey(key, outcome)}.`,
    );
    // Trust is judged only for a signature over consistent content (PROTOCOL section 1): on a
    // MISMATCH the one rule of verify.ts turns this into `unattributed` (the inline key did not
    // sign what is here).
    builder.setTrust(key.trust);
  } else {
    builder.fail(
      'INVALID',
      'signature',
      'The ML-DSA-65 signature over the payload_digest bytes does not verify under the inline public_key.',
      problem(
        'signature_invalid',
        pointer(bare, '/envelope_signature'),
        'The signature does not verify over payload_digest.',
      ),
    );
    // The document embeds this key but it did not sign: verify.ts makes this `unattributed`.
    builder.setTrust(key.trust);
  }
}

const CHECKED_MEMBERS = new Set([
  'object',
  'version',
  'sig_scheme',
  'public_key',
  'hash_suite',
  'agg_root',
  'policy_digest',
  'payload_digest',
  'envelope_signature',
  'fragments',
  'temporal',
  'agg_mode',
  'merkle_root',
  'fragment_count',
  'attested',
]);

function listUnsigned(builder: ReportBuilder, parts: Parts, bare: boolean): void {
  const unsigned = Object.keys(parts.envelope).filter((name) => !CHECKED_MEMBERS.has(name));
  const where = bare ? '' : 'envelope.';
  const pieces = [
    ...(unsigned.length === 0
      ? []
      : [`${unsigned.map((name) => where + name).join(', ')} ${unsigned.length === 1 ? 'is' : 'are'} not signed`]),
    `${where}agg_mode, ${where}merkle_root, ${where}fragment_count and ${where}attested are not signed (they are checked against signed content)`,
  ];
  if (parts.extras.length > 0) pieces.push(`the sign answer's ${parts.extras.join(', ')} are not signed`);
  builder.unchecked('unsigned', `${pieces.join('; ')}.`);
  if (isJsonObject(parts.envelope['trust'])) {
    builder.note(
      `The envelope's trust block (${String(parts.envelope['trust']['object'] ?? 'no object')}: entropy source, device binding, signing backend) is not signed; its claims are unchecked.`,
    );
  }
  if (Object.hasOwn(parts.envelope, 'issued_at')) {
    builder.note('issued_at is not signed: the instant the attestation states for itself is unchecked.');
  }
}
