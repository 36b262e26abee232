/**
 * Key resolution and trust (PROTOCOL sections 0 and 1).
 *
 * A verifier finds a public key, in order: pinned keys (the trust store) by key_id; a did:key,
 * decoded offline; keys that came with the input (advertised). Documents that embed a raw key
 * (classical, countersigner, typed PQ) carry the key themselves, and a pinned entry with the same
 * public key bytes makes it trusted.
 *
 * Trust is judged only for pinned entries: `trusted` inside the entry's validity window and not
 * revoked, `revoked` when the store marks it revoked, `expired` outside the window (before
 * `not_before` as well as after `not_after`). Every other key is `unpinned`.
 *
 * A revoked or expired pinned key is still used to check the signature: the report's status is
 * the cryptographic result only, and its trust says revoked or expired (PROTOCOL section 1 keeps
 * the two apart, so a UI can say "this signature is genuine, and the key was revoked").
 *
 * A key's trust is judged here whatever the signature's outcome; the report's trust is made
 * `unattributed` for a MISMATCH or INVALID report (verify.ts, PROTOCOL section 1), and
 * {@link describeKey} writes trust words only for a key that signed what is here.
 */
import { bytesKey, didKeyFromEd25519, ed25519FromDidKey, equalBytes, keyFingerprint } from '../crypto';
import type { CryptoProvider } from '../crypto/provider';
import type { KeyAlgorithm, KeyEntry, SignerRole, VerifyContext } from './context';
import type { TrustResult } from './report';
import { timestampToMillis } from './timestamp';

/** Where a resolved key came from. */
export type KeySource = 'pinned' | 'did:key' | 'advertised' | 'document';

/** A public key found for a signature, with where it came from and the trust it confers. */
export interface ResolvedKey {
  /** The key id, when the key has one (embedded keys match a pinned entry's id only if pinned). */
  key_id?: string;
  algorithm: KeyAlgorithm;
  public_key: Uint8Array;
  source: KeySource;
  /** The pinned or advertised entry the key came from. */
  entry?: KeyEntry;
  trust: TrustResult;
}

/** Public key length in bytes of each algorithm. */
export const PUBLIC_KEY_LENGTH: Readonly<Record<KeyAlgorithm, number>> = {
  Ed25519: 32,
  'ML-DSA-65': 1952,
};

/** The algorithms a key entry may name. */
export const KEY_ALGORITHMS: readonly KeyAlgorithm[] = ['Ed25519', 'ML-DSA-65'];

/** The longest key id accepted (PROTOCOL section 0), DID or opaque. */
export const MAX_KEY_ID_LENGTH = 256;

/** What a key id may be, in one sentence for error messages. */
export const KEY_ID_RULE =
  'A key id is a DID (did:<method>:<method-specific-id>, W3C DID syntax; a did:key must encode an Ed25519 key) ' +
  `or an opaque id of printable ASCII characters without spaces, 1 to ${MAX_KEY_ID_LENGTH} characters in all.`;

/** W3C DID syntax (DID Core 3.1): `did:` method-name `:` method-specific-id. */
const DID_SYNTAX = 'did:[a-z0-9]+:(?:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*:)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+';
const DID_PATTERN = new RegExp(`^${DID_SYNTAX}$`);

/**
 * The shape of a key id (PROTOCOL section 0), also the `pattern` of every published schema's key
 * id other than the wearable receipt's: a DID in W3C syntax, or an opaque id of printable ASCII
 * (`!` to `~`, so no space and no control character) that does not begin with `did:` in any case
 * (a DID-looking id must be a DID). The length, 1 to {@link MAX_KEY_ID_LENGTH}, and that a did:key
 * decodes are checked by {@link keyIdProblem}, not by this pattern.
 */
export const KEY_ID_PATTERN = new RegExp(`^(?:${DID_SYNTAX}|(?![Dd][Ii][Dd]:)[!-~]+)$`);

/**
 * The key ids of documents this project issues (PROTOCOL section 0): `did:svc:<id>`,
 * `did:web:<host>[:path]` or `did:key:z6Mk...`. Narrower than {@link KEY_ID_PATTERN}, which every
 * verifier, key file and trust store accepts; `evroom sign` and the service's own keys use this.
 */
export const ISSUER_KEY_ID_PATTERN =
  /^did:(?:svc:[A-Za-z0-9._-]+(?::[A-Za-z0-9._-]+)*|web:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?:%3A\d{1,5})?(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+)*|key:z6Mk[1-9A-HJ-NP-Za-km-z]+)$/;

/** What an issuing key id may be, in one sentence for error messages. */
export const ISSUER_KEY_ID_RULE =
  'Documents this project issues name their key did:svc:<id>, did:web:<host>[:path] or an Ed25519 did:key ' +
  `(at most ${MAX_KEY_ID_LENGTH} characters).`;

/**
 * Why a value is not a key id (PROTOCOL section 0), or undefined when it is one.
 *
 * The one rule of key ids for key files, `--keys`, the trust store, pins made in the app, evidence
 * bundles and every document format except the wearable receipt (whose schema keeps the spec's
 * svc/web/key pattern). Only did:key is decoded to a key; every other id is a name to look up.
 * The reason never repeats the id's characters (a control character would reach a terminal);
 * it names the offending position and code point instead.
 *
 * @param value - Anything.
 * @returns One sentence saying what is wrong, or undefined for a well-formed key id.
 * @example keyIdProblem('did:hive:typed-demo') // undefined
 * @example keyIdProblem('test key') // 'A key id must not contain spaces (character 5 is a space).'
 */
export function keyIdProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `A key id must be a string, not ${value === null ? 'null' : typeof value}.`;
  // The common case, on every verification's path: one pattern test (and a did:key decoding,
  // cached); the reasons below are worked out only for an id that fails.
  if (value.length <= MAX_KEY_ID_LENGTH && KEY_ID_PATTERN.test(value)) {
    return value.startsWith('did:key:') ? didProblem(value) : undefined;
  }
  if (value.length === 0) return 'A key id must not be empty.';
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code === 0x20) return `A key id must not contain spaces (character ${index + 1} is a space).`;
    if (code < 0x21 || code > 0x7e) {
      const kind = code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f) ? 'a control character' : 'not ASCII';
      return (
        `A key id holds printable ASCII characters only; character ${index + 1} is ` +
        `U+${code.toString(16).toUpperCase().padStart(4, '0')}, ${kind}.`
      );
    }
  }
  if (value.length > MAX_KEY_ID_LENGTH) {
    return `A key id is at most ${MAX_KEY_ID_LENGTH} characters; this one has ${value.length}.`;
  }
  if (/^did:/i.test(value)) return didProblem(value);
  return undefined;
}

/** Why an id that begins with `did:` (in any case) is not a DID, or undefined. */
function didProblem(value: string): string | undefined {
  if (!value.startsWith('did:')) return 'A DID begins with lowercase "did:"; this id begins with another case of it.';
  const method = value.slice(4, value.includes(':', 4) ? value.indexOf(':', 4) : value.length);
  const syntax = 'W3C DID syntax is did:<method>:<method-specific-id>';
  if (method.length === 0) return `The DID's method is empty (${syntax}).`;
  if (!/^[a-z0-9]+$/.test(method)) return `The DID's method is lowercase letters and digits only (${syntax}).`;
  if (!value.includes(':', 4)) return `The DID has no method-specific id (${syntax}).`;
  const rest = value.slice(5 + method.length);
  if (rest.length === 0) return `The DID's method-specific id is empty (${syntax}).`;
  if (!DID_PATTERN.test(value)) {
    return (
      "The DID's method-specific id holds letters, digits, '.', '-', '_', ':' and %XX escapes only, " +
      `and does not end with ':' (${syntax}).`
    );
  }
  if (method === 'key' && decodeDidKey(value) === undefined) {
    return 'A did:key must encode an Ed25519 public key (multibase z, multicodec 0xed01 and 32 bytes); this one does not.';
  }
  return undefined;
}

/**
 * Whether a value is a well-formed key id (see {@link keyIdProblem}).
 *
 * @param value - Anything.
 * @returns True for a key id: a DID in W3C syntax (a did:key decodable to an Ed25519 key) or an
 *   opaque id of 1 to {@link MAX_KEY_ID_LENGTH} printable ASCII characters without spaces.
 */
export function isKeyId(value: unknown): value is string {
  return keyIdProblem(value) === undefined;
}

/**
 * Whether a value is a key id of the kind this project issues under ({@link ISSUER_KEY_ID_PATTERN}).
 *
 * @param value - Anything.
 * @returns True for did:svc, did:web or a decodable Ed25519 did:key of at most
 *   {@link MAX_KEY_ID_LENGTH} characters.
 */
export function isIssuerKeyId(value: unknown): boolean {
  return isKeyId(value) && ISSUER_KEY_ID_PATTERN.test(value);
}

/**
 * Find the public key for a key id: pinned first, then did:key, then advertised.
 *
 * When the trust store holds several entries with this id (a key re-pinned with a new window),
 * a revoked entry wins over all others, then an entry valid at `ctx.now`, then the first one.
 *
 * @param keyId - The key id the document names.
 * @param ctx - The verification context (pinned and advertised keys, the clock).
 * @param role - The role the signature is made in (default `service`, the issuer's); a pinned
 *   entry whose `roles` do not list it gives trust `unpinned` (see {@link roleTrust}).
 * @returns The key and its trust, or undefined when no source knows the id.
 * @throws TypeError if `keyId` is not a string.
 */
export function findKeyById(keyId: string, ctx: VerifyContext, role: SignerRole = 'service'): ResolvedKey | undefined {
  if (typeof keyId !== 'string') throw new TypeError('A key id must be a string');
  const pinned = pickPinned(
    ctx.pinned.filter((entry) => entry.key_id === keyId),
    ctx.now,
  );
  if (pinned !== undefined) {
    return {
      key_id: keyId,
      algorithm: pinned.algorithm,
      public_key: pinned.public_key,
      source: 'pinned',
      entry: pinned,
      trust: roleTrust(pinned, pinnedTrust(pinned, ctx.now), role),
    };
  }
  if (keyId.startsWith('did:key:')) {
    const publicKey = decodeDidKey(keyId);
    if (publicKey !== undefined) {
      return {
        key_id: keyId,
        algorithm: 'Ed25519',
        public_key: publicKey,
        source: 'did:key',
        trust: {
          status: 'unpinned',
          key_id: keyId,
          key_fingerprint: keyFingerprint(publicKey),
          detail: 'The key was decoded from its did:key identifier; it is not pinned in the trust store.',
        },
      };
    }
  }
  const advertised = ctx.advertised.find((entry) => entry.key_id === keyId);
  if (advertised !== undefined) {
    return {
      key_id: keyId,
      algorithm: advertised.algorithm,
      public_key: advertised.public_key,
      source: 'advertised',
      entry: advertised,
      trust: {
        status: 'unpinned',
        key_id: keyId,
        key_fingerprint: keyFingerprint(advertised.public_key),
        detail:
          'The key came with the input (a key file, a bundle or the service listing); listing a key confers no trust.',
      },
    };
  }
  return undefined;
}

/**
 * Resolve a public key that the document itself carries (classical, countersigner, typed PQ).
 *
 * A pinned entry with the same algorithm and equal public key bytes makes the key pinned (and its
 * trust is judged as for any pinned key); otherwise the key is `unpinned`, since a key embedded in
 * a document does not by itself authenticate the issuer.
 *
 * @param publicKey - The key bytes from the document.
 * @param algorithm - The algorithm the document uses.
 * @param ctx - The verification context.
 * @param role - The role the signature is made in (default `service`).
 * @returns The resolved key; never undefined, the document supplies the key.
 * @throws TypeError if `publicKey` is not a Uint8Array.
 */
export function findEmbeddedKey(
  publicKey: Uint8Array,
  algorithm: KeyAlgorithm,
  ctx: VerifyContext,
  role: SignerRole = 'service',
): ResolvedKey {
  if (!(publicKey instanceof Uint8Array)) throw new TypeError('An embedded public key must be a Uint8Array');
  // Most bulk runs pin nothing that matches; skip building the candidate list then.
  const pinned =
    ctx.pinned.length === 0
      ? undefined
      : pickPinned(
          ctx.pinned.filter((entry) => entry.algorithm === algorithm && equalBytes(entry.public_key, publicKey)),
          ctx.now,
        );
  if (pinned !== undefined) {
    return {
      key_id: pinned.key_id,
      algorithm,
      public_key: publicKey,
      source: 'pinned',
      entry: pinned,
      trust: roleTrust(pinned, pinnedTrust(pinned, ctx.now), role),
    };
  }
  // An embedded Ed25519 key is named by its did:key, so the ledger can find every document of
  // that key (to re-judge trust when the user pins it) and people can pin it by that name.
  const names = algorithm === 'Ed25519' && publicKey.length === 32 ? cachedKeyNames(publicKey) : undefined;
  if (names === undefined) {
    return {
      algorithm,
      public_key: publicKey,
      source: 'document',
      trust: { status: 'unpinned', key_fingerprint: keyFingerprint(publicKey), detail: EMBEDDED_DETAIL },
    };
  }
  return {
    key_id: names.did,
    algorithm,
    public_key: publicKey,
    source: 'document',
    trust: { status: 'unpinned', key_id: names.did, key_fingerprint: names.fingerprint, detail: EMBEDDED_DETAIL },
  };
}

const EMBEDDED_DETAIL =
  'The public key came with the document and matches no pinned key; it does not identify the issuer.';

/**
 * did:key names and fingerprints of recently seen embedded Ed25519 keys: bulk verification
 * repeats a few keys, and naming one costs a base58 encoding and a SHA-256. The most recent keys
 * are compared byte by byte, newest first (different keys almost always differ in their first
 * byte); older ones are found by a map lookup.
 */
interface EmbeddedKeyNames {
  did: string;
  fingerprint: string;
}
const DID_KEY_CACHE = new Map<string, EmbeddedKeyNames>();
const DID_KEY_CACHE_SIZE = 256;
const RECENT_KEYS = 8;
const recentKeys: { key: Uint8Array; names: EmbeddedKeyNames }[] = [];

function cachedKeyNames(publicKey: Uint8Array): EmbeddedKeyNames {
  for (const recent of recentKeys) if (equalBytes(publicKey, recent.key)) return recent.names;
  const id = bytesKey(publicKey);
  let names = DID_KEY_CACHE.get(id);
  if (names === undefined) {
    names = { did: didKeyFromEd25519(publicKey), fingerprint: keyFingerprint(publicKey) };
    if (DID_KEY_CACHE.size >= DID_KEY_CACHE_SIZE) DID_KEY_CACHE.clear();
    DID_KEY_CACHE.set(id, names);
  }
  if (recentKeys.length >= RECENT_KEYS) recentKeys.pop();
  recentKeys.unshift({ key: publicKey.slice(), names });
  return names;
}

/**
 * Judge the trust of a pinned key entry at an instant.
 *
 * @param entry - A trust-store entry.
 * @param now - The instant of judgement.
 * @returns `revoked` if the entry is revoked, `expired` if `now` is before `not_before` or after
 *   `not_after`, `trusted` otherwise. A window bound that is not a valid TS counts as outside the
 *   window: an unreadable bound must not widen trust.
 */
export function pinnedTrust(entry: KeyEntry, now: Date): TrustResult {
  const base: TrustResult = { status: 'trusted', key_id: entry.key_id };
  if (entry.label !== undefined) base.label = entry.label;
  if (entry.public_key instanceof Uint8Array && entry.public_key.length > 0)
    base.key_fingerprint = keyFingerprint(entry.public_key);
  if (entry.status === 'revoked') {
    return { ...base, status: 'revoked', detail: `Key ${entry.key_id} is revoked in the trust store.` };
  }
  const window = windowState(entry, now);
  if (window !== 'inside') {
    const bounds = `${entry.not_before ?? 'the beginning'} to ${entry.not_after ?? 'no end'}`;
    const when = window === 'before' ? 'not yet valid' : 'no longer valid';
    return {
      ...base,
      status: 'expired',
      detail: `Key ${entry.key_id} is pinned but ${when} at ${describeInstant(now)} (valid ${bounds}).`,
    };
  }
  return { ...base, detail: `Key ${entry.key_id} is pinned in the trust store and inside its validity window.` };
}

/**
 * Narrow a pinned key's trust to the roles it is pinned for.
 *
 * A `trusted` judgement stands only when the entry lists no roles or lists `role`; otherwise the
 * key is `unpinned` for this signature (the trust store vouches for it in other roles only).
 * Revoked and expired judgements are kept: they say more.
 *
 * @param entry - The pinned entry.
 * @param trust - Its judgement by status and window ({@link pinnedTrust}).
 * @param role - The role the signature is made in.
 * @returns The trust for this signature.
 */
export function roleTrust(entry: KeyEntry, trust: TrustResult, role: SignerRole): TrustResult {
  if (trust.status !== 'trusted' || entry.roles === undefined || entry.roles.includes(role)) return trust;
  return {
    ...trust,
    status: 'unpinned',
    detail: `Key ${entry.key_id} is pinned for ${entry.roles.join(', ')} only; here it signs as ${role}, which the trust store does not vouch for.`,
  };
}

/**
 * What a signature check found: `signed` when the signature verifies over content that holds
 * together (so the key signed what is here), `not_signed` when it does not verify, or when it
 * verifies but the content around it disagrees (MISMATCH or INVALID so far).
 */
export type SignatureOutcome = 'signed' | 'not_signed';

/**
 * Describe the key a signature was checked under, for a check's detail.
 *
 * Trust is judged only for a key that signed what is here (PROTOCOL section 1), so the trust
 * words come only with outcome `signed`: `did:svc:x (pinned, trust trusted)`. For `not_signed`
 * the key is named with where it came from and nothing it would have earned: `did:svc:x (pinned)`.
 *
 * @param key - A resolved key.
 * @param outcome - Whether that key signed what is here.
 * @returns A short phrase.
 * @throws TypeError if `outcome` is neither `signed` nor `not_signed`.
 */
export function describeKey(key: ResolvedKey, outcome: SignatureOutcome): string {
  if (outcome !== 'signed' && outcome !== 'not_signed')
    throw new TypeError("describeKey expects the outcome 'signed' or 'not_signed'");
  const name =
    key.source === 'document'
      ? `the embedded key${key.key_id ? ` ${key.key_id}` : ''}`
      : (key.key_id ?? 'the embedded key');
  const source = key.source === 'document' ? 'from the document' : key.source;
  return outcome === 'signed' ? `${name} (${source}, trust ${key.trust.status})` : `${name} (${source})`;
}

/**
 * Make an Ed25519 key entry from a 32-byte secret seed, for tests, samples and benchmarks.
 *
 * @param crypto - The provider that derives the public key.
 * @param keyId - The key id to give the entry.
 * @param seed - The 32-byte secret seed.
 * @param extra - Optional label, window and status.
 * @returns The entry (the seed is not kept).
 * @throws TypeError if `keyId` is not a key id.
 */
export function ed25519KeyEntry(
  crypto: CryptoProvider,
  keyId: string,
  seed: Uint8Array,
  extra: Pick<KeyEntry, 'label' | 'not_before' | 'not_after' | 'status'> = {},
): KeyEntry {
  if (!isKeyId(keyId)) throw new TypeError(`Not a key id: ${String(keyId)}`);
  return { key_id: keyId, algorithm: 'Ed25519', public_key: crypto.ed25519PublicKey(seed), ...extra };
}

function pickPinned(entries: readonly KeyEntry[], now: Date): KeyEntry | undefined {
  return (
    entries.find((entry) => entry.status === 'revoked') ??
    entries.find((entry) => windowState(entry, now) === 'inside') ??
    entries[0]
  );
}

function windowState(entry: KeyEntry, now: Date): 'before' | 'inside' | 'after' {
  const instant = now.getTime();
  // An invalid clock must not make a bounded key look valid.
  const bounded = entry.not_before !== undefined || entry.not_after !== undefined;
  if (bounded && !Number.isFinite(instant)) return 'after';
  if (entry.not_before !== undefined) {
    const start = safeMillis(entry.not_before);
    if (start === undefined || instant < start) return 'before';
  }
  if (entry.not_after !== undefined) {
    const end = safeMillis(entry.not_after);
    if (end === undefined || instant > end) return 'after';
  }
  return 'inside';
}

function describeInstant(now: Date): string {
  return Number.isFinite(now.getTime()) ? now.toISOString() : 'an invalid clock time';
}

function safeMillis(timestamp: string): number | undefined {
  try {
    return timestampToMillis(timestamp);
  } catch {
    return undefined;
  }
}

/**
 * Ed25519 keys of recently decoded did:key ids (null: not a key): bulk verification repeats a few
 * signers, and decoding one costs a base58btc decoding: about 17 µs with @scure/base on the shared
 * host, against 2 µs for the table-driven decoder it replaced (bench/README.md, "Encodings").
 */
const DID_KEY_BYTES = new Map<string, Uint8Array | null>();

function decodeDidKey(did: string): Uint8Array | undefined {
  let key = DID_KEY_BYTES.get(did);
  if (key === undefined) {
    try {
      const decoded = ed25519FromDidKey(did);
      key = decoded.length === 32 ? decoded : null;
    } catch {
      key = null;
    }
    if (DID_KEY_BYTES.size >= DID_KEY_CACHE_SIZE) DID_KEY_BYTES.clear();
    DID_KEY_BYTES.set(did, key);
  }
  // A copy: the caller may keep or change it.
  return key === null ? undefined : key.slice();
}
