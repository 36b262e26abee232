/**
 * Typed post-quantum envelope verification (PROTOCOL section 7, spec 2.5): 1.0.0-typed-pq.
 *
 * `{envelope: {object, version, sig_scheme, key_id, public_key?, aggregation, fragment_digests[],
 * digest, signature}, fragments: [...]}`. `h_i = SHA-256(JCS(fragments[i]))`;
 * `digest = SHA-256(h_1 || ... || h_n)` over the raw bytes (aggregation `linear`); the signature
 * is ML-DSA-65 (FIPS 204, pure, empty context) over the 32 raw digest bytes.
 *
 * Decisions:
 * - Shape: resources/schemas/typed-pq.schema.json. Unknown members are refused everywhere: the
 *   signature covers only the digest, so any other member would be unsigned text beside it.
 *   `object` and `version` are constants (another value is MALFORMED). At most
 *   {@link MAX_TYPED_PQ_FRAGMENTS} fragments, at least one; a fragment is any JSON value.
 * - `sig_scheme` other than exactly `ml-dsa-65` and `aggregation` other than exactly `linear` are
 *   UNSUPPORTED, never MALFORMED: the schema accepts any string there and this code decides. The
 *   signature and public key lengths depend on the scheme, so they are checked here too, for
 *   ml-dsa-65 only (3309 and 1952 bytes; other lengths are MALFORMED).
 * - The chain of bindings is checked link by link so a report says where it breaks: each
 *   fragment against `fragment_digests[i]` (check `fragment_digest.<i>`; a fragment without a
 *   listed digest or a digest without a fragment fails too), `digest` against SHA-256 of the
 *   listed fragment digests (check `digest`), and the signature over the stated `digest`. Any
 *   failing link is MISMATCH; all links passing is exactly the recomputation of PROTOCOL 7.
 *   Verifying the signature over the stated digest lets a report say "the issuer signed this
 *   digest, and the fragments no longer match it".
 * - Keys (one key resolution, PROTOCOL section 0): the key_id is resolved as for every format
 *   (pinned, did:key, advertised). When the envelope also embeds `public_key`, the two must be
 *   the same ML-DSA-65 key wherever the key_id resolved: otherwise the signature check fails
 *   (INVALID, `key_mismatch`), so the same document and the same keys give the same status
 *   whether the keys were pinned (`--trust`) or only given (`--keys`). A key_id that resolves
 *   nowhere leaves the embedded key, trusted only when a pinned entry holds its bytes. Only a
 *   pinned entry can make trust `trusted`; an embedded or advertised key is `unpinned`. No key
 *   at all is INDETERMINATE. A key of another algorithm is INVALID.
 */
import { concatBytes, equalBytes, hexEncode, utf8Encode } from '../../crypto';
import { jcs } from '../../json';
import type { JsonNode, JsonValue } from '../../json/types';
import { validate } from '../../schemas/typed-pq.generated';
import type { VerifyContext } from '../../verify/context';
import {
  decodeB64Field,
  decodeHexField,
  describeType,
  isJsonObject,
  type JsonObject,
  memberString,
  objectMember,
  problem,
  quote,
} from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import { describeKey, findEmbeddedKey, findKeyById, isKeyId, type ResolvedKey } from '../../verify/keys';
import type { Report, ReportError } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';
import { schemaErrorsToReport } from '../../verify/schema-errors';
import { unresolvedTrust } from '../../verify/signature';

/** `envelope.object`. */
export const TYPED_PQ_OBJECT = 'afir.attestation';
/** `envelope.version`. */
export const TYPED_PQ_VERSION = '1.0.0-typed-pq';
/** The one signature scheme executed. */
export const TYPED_PQ_SCHEME = 'ml-dsa-65';
/** The one aggregation mode executed. */
export const TYPED_PQ_AGGREGATION = 'linear';
/** The most fragments one envelope may carry; bounds the work a document can ask for. */
export const MAX_TYPED_PQ_FRAGMENTS = 1024;
/** ML-DSA-65 byte lengths (FIPS 204 table 2); the signature is 4412 base64 characters. */
export const TYPED_PQ_LENGTHS = Object.freeze({ signature: 3309, publicKey: 1952, digest: 32 });

/**
 * The check ids of a typed-pq report, in report order.
 *
 * @param count - The number of fragment links (the larger of the fragment and digest counts).
 * @returns `schema`, `sig_scheme`, `aggregation`, `fragment_digest.0` ... `fragment_digest.<count-1>`,
 *   `digest`, `signature`.
 * @throws RangeError if `count` is not a non-negative integer.
 */
export function typedPqChecks(count: number): string[] {
  if (!Number.isSafeInteger(count) || count < 0)
    throw new RangeError('The fragment count must be a non-negative integer');
  return [
    'schema',
    'sig_scheme',
    'aggregation',
    ...Array.from({ length: count }, (_, index) => `fragment_digest.${index}`),
    'digest',
    'signature',
  ];
}

/**
 * Recognize a typed-pq document: an object with `envelope` and `fragments`, or whose `envelope`
 * names `afir.attestation` or version `1.0.0-typed-pq` (so an envelope that lost its fragments is
 * reported as a MALFORMED typed-pq document, not an unknown one).
 *
 * @param node - Any parsed document.
 * @returns `typed-pq` or undefined.
 */
export function detectTypedPq(node: JsonNode): 'typed-pq' | undefined {
  const envelope = objectMember(node, 'envelope');
  if (envelope === undefined) return undefined;
  if (objectMember(node, 'fragments') !== undefined) return 'typed-pq';
  if (memberString(envelope, 'object') === TYPED_PQ_OBJECT || memberString(envelope, 'version') === TYPED_PQ_VERSION) {
    return 'typed-pq';
  }
  return undefined;
}

/**
 * A fragment's digest: SHA-256 of the UTF-8 of JCS(fragment).
 *
 * @param fragment - Any JSON value.
 * @param sha256 - The SHA-256 function (a provider's).
 * @returns 32 bytes.
 * @throws TypeError if the fragment is not JSON.
 */
export function fragmentDigest(fragment: JsonValue, sha256: (data: Uint8Array) => Uint8Array): Uint8Array {
  return sha256(utf8Encode(jcs(fragment)));
}

/**
 * Linear aggregation: SHA-256 of the fragment digests concatenated in order, over raw bytes.
 *
 * @param digests - The 32-byte fragment digests, in fragment order.
 * @param sha256 - The SHA-256 function.
 * @returns The 32-byte envelope digest (the signed message).
 * @throws TypeError if a digest is not a Uint8Array.
 * @throws RangeError if a digest is not 32 bytes.
 */
export function linearDigest(digests: readonly Uint8Array[], sha256: (data: Uint8Array) => Uint8Array): Uint8Array {
  if (!Array.isArray(digests)) throw new TypeError('linearDigest needs an array of digests');
  for (const digest of digests) {
    if (!(digest instanceof Uint8Array)) throw new TypeError('Every fragment digest must be a Uint8Array');
    if (digest.length !== TYPED_PQ_LENGTHS.digest) throw new RangeError('Every fragment digest must be 32 bytes');
  }
  return sha256(concatBytes(...digests));
}

/**
 * Verify a typed-pq document.
 *
 * @param input - The parsed document and context.
 * @returns The report; format `typed-pq`.
 */
export function verifyTypedPq(input: FormatInput): Report {
  const { value, ctx } = input;
  const builder = new ReportBuilder('typed-pq', typedPqChecks(linkCount(value)));
  if (!isJsonObject(value)) {
    builder.fail(
      'MALFORMED',
      'schema',
      'A typed-pq document is a JSON object.',
      problem('invalid_type', '', `Expected an object, got ${describeType(value)}.`),
    );
    return builder.build();
  }
  const problems = validate(value) ? [] : schemaErrorsToReport(validate.errors);
  const parts = problems.length === 0 ? readParts(value, problems) : undefined;
  if (parts === undefined || problems.length > 0) {
    builder.fail('MALFORMED', 'schema', 'The document does not fit the typed-pq envelope schema.', problems);
    return builder.build();
  }
  builder.pass('schema', 'The document fits the typed-pq envelope schema (typed-pq).');

  const schemeSupported = parts.scheme === TYPED_PQ_SCHEME;
  if (schemeSupported) builder.pass('sig_scheme', 'sig_scheme is ml-dsa-65 (FIPS 204, pure, empty context).');
  else {
    builder.unsupported(
      'sig_scheme',
      `sig_scheme ${quote(parts.scheme)} is not supported; only ml-dsa-65 is verified.`,
      problem('unsupported_scheme', '/envelope/sig_scheme', `Unsupported sig_scheme ${quote(parts.scheme)}.`),
    );
  }
  const aggregationSupported = parts.aggregation === TYPED_PQ_AGGREGATION;
  if (aggregationSupported) builder.pass('aggregation', 'aggregation is linear: digest = SHA-256(h_1 || ... || h_n).');
  else {
    builder.unsupported(
      'aggregation',
      `aggregation ${quote(parts.aggregation)} is not supported; only linear is verified.`,
      problem(
        'unsupported_aggregation',
        '/envelope/aggregation',
        `Unsupported aggregation ${quote(parts.aggregation)}.`,
      ),
    );
  }

  if (aggregationSupported) checkBindings(builder, ctx, parts);
  else {
    const reason = `Not checked: aggregation ${quote(parts.aggregation)} is not supported.`;
    for (let index = 0; index < Math.max(parts.fragments.length, parts.listed.length); index += 1) {
      builder.unchecked(`fragment_digest.${index}`, reason);
    }
    builder.unsupported('digest', reason);
  }

  if (!schemeSupported || !aggregationSupported) {
    // Trust stays not_applicable: no signature was evaluated (as for classical receipts).
    builder.unsupported('signature', 'Not executed: the envelope uses a scheme or aggregation we do not verify.');
    return builder.build();
  }
  checkSignature(builder, ctx, parts);
  return builder.build();
}

interface EnvelopeParts {
  scheme: string;
  aggregation: string;
  keyId: string;
  publicKey: Uint8Array | undefined;
  listed: Uint8Array[];
  digest: Uint8Array;
  signature: Uint8Array;
  fragments: JsonValue[];
}

/** The number of fragment links to plan checks for, when the document shows it cheaply. */
function linkCount(value: JsonValue): number {
  if (!isJsonObject(value)) return 0;
  const envelope = value['envelope'];
  const listed = isJsonObject(envelope) ? envelope['fragment_digests'] : undefined;
  const fragments = value['fragments'];
  const count = Math.max(Array.isArray(listed) ? listed.length : 0, Array.isArray(fragments) ? fragments.length : 0);
  // A document over the limit is MALFORMED by schema; do not plan a check per item for it.
  return count <= MAX_TYPED_PQ_FRAGMENTS ? count : 0;
}

/** Decode the members the schema has already shaped, adding what only code can check. */
function readParts(document: JsonObject, problems: ReportError[]): EnvelopeParts | undefined {
  const envelope = document['envelope'] as JsonObject;
  const scheme = envelope['sig_scheme'] as string;
  const keyId = envelope['key_id'];
  if (!isKeyId(keyId)) {
    problems.push(
      problem(
        'invalid_key_id',
        '/envelope/key_id',
        '"key_id" must be did:svc:<id>, did:web:<host>[:path] or a decodable did:key.',
      ),
    );
  }
  // Lengths depend on the scheme; for a scheme we do not execute only the base64 form is checked.
  const known = scheme === TYPED_PQ_SCHEME;
  const signature = decodeB64Field(envelope['signature'], known ? TYPED_PQ_LENGTHS.signature : undefined);
  if (signature === undefined) {
    problems.push(
      problem(
        'invalid_signature_encoding',
        '/envelope/signature',
        known
          ? '"signature" must be an ML-DSA-65 signature: 3309 bytes as 4412 characters of base64.'
          : '"signature" must be canonical padded base64.',
      ),
    );
  }
  let publicKey: Uint8Array | undefined;
  if (Object.hasOwn(envelope, 'public_key')) {
    publicKey = decodeB64Field(envelope['public_key'], known ? TYPED_PQ_LENGTHS.publicKey : undefined);
    if (publicKey === undefined) {
      problems.push(
        problem(
          'invalid_public_key',
          '/envelope/public_key',
          known
            ? '"public_key" must be an ML-DSA-65 public key: 1952 bytes as padded base64.'
            : '"public_key" must be canonical padded base64.',
        ),
      );
    }
  }
  const digest = decodeHexField(envelope['digest'], 32);
  const listed = (envelope['fragment_digests'] as string[]).map((text) => decodeHexField(text, 32));
  const fragments = document['fragments'] as JsonValue[];
  if (problems.length > 0 || !isKeyId(keyId) || signature === undefined || digest === undefined) return undefined;
  if (listed.some((entry) => entry === undefined)) return undefined;
  return {
    scheme,
    aggregation: envelope['aggregation'] as string,
    keyId,
    publicKey,
    listed: listed as Uint8Array[],
    digest,
    signature,
    fragments,
  };
}

function checkBindings(builder: ReportBuilder, ctx: VerifyContext, parts: EnvelopeParts): void {
  const links = Math.max(parts.fragments.length, parts.listed.length);
  for (let index = 0; index < links; index += 1) {
    const checkId = `fragment_digest.${index}`;
    const path = `/envelope/fragment_digests/${index}`;
    const fragment = parts.fragments[index];
    const listed = parts.listed[index];
    if (fragment === undefined) {
      builder.fail(
        'MISMATCH',
        checkId,
        `fragment_digests lists ${parts.listed.length} digests for ${parts.fragments.length} fragments.`,
        problem(
          'fragment_count_mismatch',
          path,
          `Digest ${index} has no fragment: a fragment was removed or a digest added.`,
        ),
      );
      continue;
    }
    const computed = fragmentDigest(fragment, ctx.crypto.sha256);
    if (listed === undefined) {
      builder.fail(
        'MISMATCH',
        checkId,
        `fragments holds ${parts.fragments.length} fragments for ${parts.listed.length} listed digests.`,
        problem(
          'fragment_count_mismatch',
          `/fragments/${index}`,
          `Fragment ${index} has no listed digest: a fragment was added.`,
        ),
      );
    } else if (equalBytes(computed, listed)) {
      builder.pass(checkId, `fragment_digests[${index}] equals SHA-256(JCS(fragments[${index}])).`);
    } else {
      builder.fail(
        'MISMATCH',
        checkId,
        `fragment_digests[${index}] differs from SHA-256(JCS(fragments[${index}])): the fragment was changed.`,
        problem(
          'fragment_digest_mismatch',
          path,
          `Fragment ${index} hashes to ${hexEncode(computed)}, not the listed digest.`,
        ),
      );
    }
  }
  const aggregated = linearDigest(parts.listed, ctx.crypto.sha256);
  if (equalBytes(aggregated, parts.digest)) {
    builder.pass('digest', 'digest equals SHA-256 of the listed fragment digests concatenated (linear).');
  } else {
    builder.fail(
      'MISMATCH',
      'digest',
      'digest differs from SHA-256 of the listed fragment digests: the list or the digest was changed.',
      problem(
        'digest_mismatch',
        '/envelope/digest',
        `The listed fragment digests aggregate to ${hexEncode(aggregated)}, not digest.`,
      ),
    );
  }
}

function checkSignature(builder: ReportBuilder, ctx: VerifyContext, parts: EnvelopeParts): void {
  const { key, conflict } = resolveKey(parts.keyId, parts.publicKey, ctx);
  if (key === undefined) {
    builder.unavailable(
      'signature',
      `The signature was not checked: the envelope embeds no public key and none was found for ${parts.keyId}.`,
      problem('key_unavailable', '/envelope/key_id', `No public key is known for ${quote(parts.keyId)}.`),
    );
    builder.setTrust(unresolvedTrust(parts.keyId));
    return;
  }
  builder.setTrust(key.trust);
  if (conflict) {
    // One key resolution (PROTOCOL section 0): the document names a key and embeds another; no
    // signature can stand for both, whichever source supplied the named one.
    builder.fail(
      'INVALID',
      'signature',
      `The embedded public_key is not the key ${parts.keyId} names (${describeKey(key)}, ${key.algorithm}); a document whose embedded key disagrees with its key_id never verifies.`,
      problem(
        'key_mismatch',
        '/envelope/public_key',
        `The embedded public_key differs from the ${key.source} key for ${quote(parts.keyId)}.`,
      ),
    );
    return;
  }
  if (key.algorithm !== 'ML-DSA-65') {
    builder.fail(
      'INVALID',
      'signature',
      `The signature cannot verify: key ${describeKey(key)} is ${key.algorithm}, the envelope uses ML-DSA-65.`,
      problem(
        'key_algorithm_mismatch',
        '/envelope/key_id',
        `Key ${quote(parts.keyId)} is ${key.algorithm}, not ML-DSA-65.`,
      ),
    );
    return;
  }
  if (ctx.crypto.mldsa65Verify(parts.signature, parts.digest, key.public_key)) {
    builder.pass('signature', `The ML-DSA-65 signature over the 32 digest bytes verifies under ${describeKey(key)}.`);
  } else {
    builder.fail(
      'INVALID',
      'signature',
      `The ML-DSA-65 signature over the 32 digest bytes does not verify under ${describeKey(key)}.`,
      problem('signature_invalid', '/envelope/signature', 'The signature does not verify over the envelope digest.'),
    );
  }
}

/**
 * Pick the verifying key (see the module's decisions). `conflict` when the key_id resolves (from
 * any source: pinned, did:key or advertised) to another key than the embedded one.
 */
function resolveKey(
  keyId: string,
  embedded: Uint8Array | undefined,
  ctx: VerifyContext,
): { key: ResolvedKey | undefined; conflict: boolean } {
  const byId = findKeyById(keyId, ctx);
  if (embedded === undefined) return { key: byId, conflict: false };
  if (byId !== undefined && (byId.algorithm !== 'ML-DSA-65' || !equalBytes(byId.public_key, embedded))) {
    return { key: byId, conflict: true };
  }
  if (byId?.source === 'pinned') return { key: byId, conflict: false };
  // The embedded key, trusted when a pinned entry holds its bytes under any id.
  const key = findEmbeddedKey(embedded, 'ML-DSA-65', ctx);
  if (key.source === 'document') {
    key.key_id = keyId;
    key.trust = { ...key.trust, key_id: keyId };
  }
  return { key, conflict: false };
}
