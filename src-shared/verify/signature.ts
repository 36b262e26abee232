/**
 * One signature check by key id, and Rule D1 (PROTOCOL section 0), for every format to share.
 *
 * Formats that name their signer by `key_id` (wearable, profiles, envelope, typed) all do the
 * same thing: resolve the key (pinned, did:key, advertised), make sure its algorithm is the one
 * the document uses, verify, and record one check. Doing it here keeps the outcomes identical:
 * no key is `unavailable` (INDETERMINATE), a key of another algorithm or a failing signature is
 * INVALID.
 */
import { b64uEncode, equalBytes, hexEncode, utf8Encode } from '../crypto';
import type { CryptoProvider } from '../crypto/provider';
import { jcs } from '../json';
import type { KeyAlgorithm, SignerRole, VerifyContext } from './context';
import { decodeB64uField, decodeHexField, isJsonObject, problem, quote, type JsonObject } from './fields';
import { describeKey, findEmbeddedKey, findKeyById, type ResolvedKey } from './keys';
import type { TrustResult } from './report';
import type { ReportBuilder } from './report-builder';

/** What {@link checkKeyedSignature} needs to know about one signature. */
export interface KeyedSignature {
  /** The check id to record, e.g. `signature` or `signature.service`. */
  checkId: string;
  /** The key id the document names. */
  keyId: string;
  /** The signature bytes. */
  signature: Uint8Array;
  /** The exact signed message (for Rule D1, the 32 raw digest bytes). */
  message: Uint8Array;
  /** JSON Pointer of the key id, for a missing or mismatched key. */
  keyIdPath: string;
  /** JSON Pointer of the signature, for a failing signature. */
  signaturePath: string;
  /** The algorithm the document uses. Default Ed25519. */
  algorithm?: KeyAlgorithm;
  /** How to name the signature in messages, e.g. `The service signature`. Default `The signature`. */
  label?: string;
  /** The role the signature is made in, judged against a pinned key's `roles`. Default `service`. */
  role?: SignerRole;
}

/**
 * Resolve a signer by key id and verify its signature, recording one check.
 *
 * @param builder - The report builder to record into.
 * @param ctx - The verification context.
 * @param input - The signature, message, key id and where they are.
 * @returns The resolved key (whatever the signature's outcome), or undefined when none was found.
 */
export function checkKeyedSignature(
  builder: ReportBuilder,
  ctx: VerifyContext,
  input: KeyedSignature,
): ResolvedKey | undefined {
  const algorithm = input.algorithm ?? 'Ed25519';
  const label = input.label ?? 'The signature';
  const key = findKeyById(input.keyId, ctx, input.role);
  if (key === undefined) {
    builder.unavailable(
      input.checkId,
      `${label} was not checked: no key was found for ${input.keyId} (pinned, did:key or advertised).`,
      problem('key_unavailable', input.keyIdPath, `No public key is known for ${quote(input.keyId)}.`),
    );
    return undefined;
  }
  if (key.algorithm !== algorithm) {
    builder.fail(
      'INVALID',
      input.checkId,
      `${label} cannot verify: key ${describeKey(key, 'not_signed')} is ${key.algorithm}, the document uses ${algorithm}.`,
      problem(
        'key_algorithm_mismatch',
        input.keyIdPath,
        `Key ${quote(input.keyId)} is ${key.algorithm}, not ${algorithm}.`,
      ),
    );
    return key;
  }
  const valid =
    algorithm === 'Ed25519'
      ? ctx.crypto.ed25519Verify(input.signature, input.message, key.public_key)
      : ctx.crypto.mldsa65Verify(input.signature, input.message, key.public_key);
  if (valid) {
    builder.passSigned(
      input.checkId,
      (outcome) => `${label} (${algorithm}) verifies under ${describeKey(key, outcome)}.`,
    );
  } else {
    builder.fail(
      'INVALID',
      input.checkId,
      `${label} (${algorithm}) does not verify under ${describeKey(key, 'not_signed')}.`,
      problem('signature_invalid', input.signaturePath, `${label} does not verify over the signed content.`),
    );
  }
  return key;
}

/** What {@link checkEmbeddedEd25519} needs to know about one signature. */
export interface EmbeddedEd25519Signature {
  /** The 32-byte public key the document carries. */
  publicKey: Uint8Array;
  /** The 64-byte signature. */
  signature: Uint8Array;
  /** The exact signed message. */
  message: Uint8Array;
  /** What the message is, for the check's detail, e.g. `the 32-byte digest`. */
  over: string;
  /** What the message is, for the error's message, e.g. `the canonical body digest`. */
  problemOver: string;
  /** How to name the key when it resolves to no key id, e.g. `the embedded public_key`. */
  keyName: string;
}

/**
 * Verify an Ed25519 signature under the key the document itself carries, recording the check
 * `signature` (a failing signature is INVALID at `/signature`) and setting the report's trust to
 * the key's: `unpinned` unless a pinned entry holds the same bytes.
 *
 * @param builder - The report builder to record into.
 * @param ctx - The verification context.
 * @param input - The key, signature and message, and the words the report uses for them.
 * @returns The resolved key.
 */
export function checkEmbeddedEd25519(
  builder: ReportBuilder,
  ctx: VerifyContext,
  input: EmbeddedEd25519Signature,
): ResolvedKey {
  const resolved = findEmbeddedKey(input.publicKey, 'Ed25519', ctx);
  const name = resolved.key_id ?? input.keyName;
  if (ctx.crypto.ed25519Verify(input.signature, input.message, input.publicKey)) {
    builder.pass('signature', `The Ed25519 signature over ${input.over} verifies under ${name}.`);
  } else {
    builder.fail(
      'INVALID',
      'signature',
      `The Ed25519 signature over ${input.over} does not verify under ${name}.`,
      problem('signature_invalid', '/signature', `The signature does not verify over ${input.problemOver}.`),
    );
  }
  builder.setTrust(resolved.trust);
  return resolved;
}

/**
 * The trust to report for a key id that resolved to nothing: not pinned, so `unpinned`.
 *
 * @param keyId - The key id the document names.
 * @returns The trust result.
 */
export function unresolvedTrust(keyId: string): TrustResult {
  return { status: 'unpinned', key_id: keyId, detail: `No key was found for ${keyId}; it is not pinned.` };
}

/** The two members Rule D1 adds to a document. */
export const RULE_D1_MEMBERS = ['payload_sha256', 'sig_b64u'] as const;

/**
 * Rule D1's payload P: JCS of the document without `payload_sha256` and `sig_b64u`.
 *
 * @param document - The document, signed or not.
 * @returns The JCS text.
 * @throws TypeError if the document is not a JSON object.
 */
export function ruleD1Payload(document: JsonObject): string {
  if (!isJsonObject(document)) throw new TypeError('A Rule D1 document must be a JSON object');
  const unsigned: JsonObject = {};
  for (const [name, member] of Object.entries(document)) {
    if (name === 'payload_sha256' || name === 'sig_b64u') continue;
    // A member named __proto__ stays an own data member, never the prototype.
    Object.defineProperty(unsigned, name, { value: member, writable: true, enumerable: true, configurable: true });
  }
  return jcs(unsigned);
}

/**
 * Sign a document under Rule D1: adds `payload_sha256` and `sig_b64u` (replacing old ones).
 *
 * @param document - The document without (or with stale) D1 members; its `key_id` is the caller's.
 * @param seed - The 32-byte Ed25519 secret seed.
 * @param crypto - The crypto provider.
 * @returns A new document with both members appended.
 * @throws TypeError if the document is not a JSON object.
 * @throws RangeError if the seed is not 32 bytes.
 */
export function signRuleD1(document: JsonObject, seed: Uint8Array, crypto: CryptoProvider): JsonObject {
  const digest = crypto.sha256(utf8Encode(ruleD1Payload(document)));
  const signature = crypto.ed25519Sign(digest, seed);
  const signed = JSON.parse(ruleD1Payload(document)) as JsonObject;
  signed['payload_sha256'] = hexEncode(digest);
  signed['sig_b64u'] = b64uEncode(signature);
  return signed;
}

/** Options for {@link checkRuleD1}. */
export interface RuleD1Options {
  /** JSON Pointer of the key id. Default `/key_id`. */
  keyIdPath?: string;
  /** Check id of the digest comparison. Default `payload_sha256`. */
  digestCheckId?: string;
  /** Check id of the signature. Default `signature`. */
  signatureCheckId?: string;
  /** The signer's role. Default `service`. */
  role?: SignerRole;
}

/**
 * Verify a Rule D1 document's digest and signature, record both checks and set the trust.
 *
 * A different digest is MISMATCH; with a matching digest a failing signature is INVALID; a key id
 * no source resolves is `unavailable` (INDETERMINATE). `payload_sha256` that is not HEX64 or
 * `sig_b64u` that is not 64 bytes of b64u is MALFORMED (normally the format's schema has refused
 * them already). The report's trust becomes the key's trust, or `unpinned` if none was found.
 *
 * @param builder - The report builder.
 * @param ctx - The verification context.
 * @param document - The whole document as plain values.
 * @param keyId - The signer's key id (already validated by the format's schema).
 * @param options - Pointers and check ids.
 * @returns The resolved key, or undefined.
 */
export function checkRuleD1(
  builder: ReportBuilder,
  ctx: VerifyContext,
  document: JsonObject,
  keyId: string,
  options: RuleD1Options = {},
): ResolvedKey | undefined {
  const digestCheckId = options.digestCheckId ?? 'payload_sha256';
  const signatureCheckId = options.signatureCheckId ?? 'signature';
  const claimed = decodeHexField(document['payload_sha256'], 32);
  const signature = decodeB64uField(document['sig_b64u'], 64);
  if (claimed === undefined || signature === undefined) {
    const problems = [];
    if (claimed === undefined) {
      problems.push(
        problem('invalid_digest', '/payload_sha256', '"payload_sha256" must be 64 lowercase hex characters.'),
      );
    }
    if (signature === undefined) {
      problems.push(
        problem('invalid_signature_encoding', '/sig_b64u', '"sig_b64u" must be 64 bytes as unpadded base64url.'),
      );
    }
    builder.fail('MALFORMED', digestCheckId, 'The Rule D1 members are malformed.', problems);
    return undefined;
  }
  const digest = ctx.crypto.sha256(utf8Encode(ruleD1Payload(document)));
  if (equalBytes(digest, claimed)) {
    builder.pass(
      digestCheckId,
      'payload_sha256 equals SHA-256 of the JCS document without payload_sha256 and sig_b64u.',
    );
  } else {
    builder.fail(
      'MISMATCH',
      digestCheckId,
      'payload_sha256 differs from the recomputed digest: the signed content was changed.',
      problem(
        'digest_mismatch',
        '/payload_sha256',
        `The document's SHA-256 is ${hexEncode(digest)}, not payload_sha256.`,
      ),
    );
  }
  const key = checkKeyedSignature(builder, ctx, {
    checkId: signatureCheckId,
    keyId,
    signature,
    message: digest,
    keyIdPath: options.keyIdPath ?? '/key_id',
    signaturePath: '/sig_b64u',
    ...(options.role !== undefined ? { role: options.role } : {}),
  });
  builder.setTrust(key?.trust ?? unresolvedTrust(keyId));
  return key;
}
