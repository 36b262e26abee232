/**
 * Checks of trust-store input, each failing with a specific {@link TrustError}.
 *
 * The rules are PROTOCOL section 0's, through the shared helpers the verifier itself uses
 * (key id shapes, key lengths, TS timestamps), so the trust store accepts exactly what a key
 * file may hold.
 */
import { ed25519FromDidKey, equalBytes } from '../../src-shared/crypto';
import { SIGNER_ROLES, type KeyAlgorithm, type SignerRole } from '../../src-shared/verify/context';
import { MAX_LABEL_LENGTH } from '../../src-shared/verify/key-file';
import { KEY_ALGORITHMS, KEY_ID_RULE, keyIdProblem, PUBLIC_KEY_LENGTH } from '../../src-shared/verify/keys';
import { isTimestamp, timestampToMillis } from '../../src-shared/verify/timestamp';
import { TrustError } from './errors';

/** The longest revocation reason kept. */
export const MAX_REASON_LENGTH = 1024;
/** The longest source name (a bundle reference or a file path). */
export const MAX_SOURCE_LENGTH = 4096;

/**
 * Whether text holds a C0 or C1 control character or DEL. Labels and reasons are shown in
 * terminals and tables, where these could move the cursor or hide text.
 */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

function show(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value;
  return text;
}

/**
 * A key id as PROTOCOL section 0 defines it: any DID, or an opaque id of 1 to 256 printable ASCII
 * characters without spaces ({@link keyIdProblem}, the one rule every door uses).
 *
 * @throws TypeError when not a string; TrustError `invalid_key_id`
 */
export function checkKeyId(value: unknown, path = '/key_id'): string {
  if (typeof value !== 'string') throw new TypeError('key_id must be a string');
  const problem = keyIdProblem(value);
  if (problem !== undefined) {
    // The id itself is not repeated: it may hold control characters meant for a terminal.
    throw new TrustError('invalid_key_id', `Not a key id: ${problem} ${KEY_ID_RULE}`, { path });
  }
  return value;
}

/**
 * An algorithm name.
 *
 * @throws TrustError `invalid_algorithm`
 */
export function checkAlgorithm(value: unknown, path = '/algorithm'): KeyAlgorithm {
  if (typeof value !== 'string' || !(KEY_ALGORITHMS as readonly string[]).includes(value)) {
    throw new TrustError('invalid_algorithm', `Algorithm ${show(value)} is not one of ${KEY_ALGORITHMS.join(', ')}.`, {
      path,
    });
  }
  return value as KeyAlgorithm;
}

/**
 * Public key bytes of the right length for the algorithm; a did:key id must name these bytes.
 *
 * @throws TypeError when not a Uint8Array; TrustError `invalid_public_key` or `did_key_mismatch`
 */
export function checkPublicKey(
  keyId: string,
  algorithm: KeyAlgorithm,
  value: unknown,
  path = '/public_key',
): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError('public_key must be a Uint8Array');
  const expected = PUBLIC_KEY_LENGTH[algorithm];
  if (value.length !== expected) {
    throw new TrustError(
      'invalid_public_key',
      `An ${algorithm} public key is ${expected} bytes; this one is ${value.length}.`,
      { path },
    );
  }
  if (keyId.startsWith('did:key:') && (algorithm !== 'Ed25519' || !equalBytes(ed25519FromDidKey(keyId), value))) {
    throw new TrustError('did_key_mismatch', `${keyId} names another Ed25519 key than the one given.`, { path });
  }
  return value;
}

/**
 * An optional TS timestamp (`undefined` and `null` pass as absent).
 *
 * @throws TrustError `invalid_timestamp`
 */
export function checkOptionalTimestamp(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isTimestamp(value)) {
    throw new TrustError(
      'invalid_timestamp',
      `${name} ${show(value)} is not a timestamp of the form YYYY-MM-DDThh:mm:ss[.fff]Z (UTC).`,
      { path: `/${name}` },
    );
  }
  return value;
}

/**
 * A validity window whose end is not before its start.
 *
 * @throws TrustError `invalid_window`
 */
export function checkWindow(notBefore: string | undefined, notAfter: string | undefined): void {
  if (notBefore === undefined || notAfter === undefined) return;
  if (timestampToMillis(notAfter) < timestampToMillis(notBefore)) {
    throw new TrustError('invalid_window', `not_after (${notAfter}) is before not_before (${notBefore}).`, {
      path: '/not_after',
    });
  }
}

/**
 * An optional label: 1..256 characters, no control characters.
 *
 * @throws TrustError `invalid_label`
 */
export function checkOptionalLabel(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > MAX_LABEL_LENGTH ||
    hasControlCharacter(value)
  ) {
    throw new TrustError(
      'invalid_label',
      `A label is 1 to ${MAX_LABEL_LENGTH} characters without control characters.`,
      { path: '/label' },
    );
  }
  return value;
}

/**
 * An optional revocation reason.
 *
 * @throws TrustError `invalid_reason`
 */
export function checkOptionalReason(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > MAX_REASON_LENGTH || hasControlCharacter(value)) {
    throw new TrustError(
      'invalid_reason',
      `A revocation reason is at most ${MAX_REASON_LENGTH} characters without control characters.`,
    );
  }
  return value.length === 0 ? undefined : value;
}

/**
 * A source name for recorded keys.
 *
 * @throws TrustError `invalid_source`
 */
export function checkSourceName(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_SOURCE_LENGTH) {
    throw new TrustError('invalid_source', `A key source is a name of 1 to ${MAX_SOURCE_LENGTH} characters.`);
  }
  return value;
}

/**
 * Optional roles a key is pinned for: a non-empty list of distinct names from
 * {@link SIGNER_ROLES}, returned in that order (one set, one spelling); absent or null for every
 * role.
 *
 * @param value - What the caller gave.
 * @param path - JSON Pointer of the list, for the error.
 * @returns The roles in {@link SIGNER_ROLES} order, or undefined for every role.
 * @throws TrustError `invalid_roles`, its path pointing at the list or the offending name
 */
export function checkOptionalRoles(value: unknown, path = '/roles'): SignerRole[] | undefined {
  if (value === undefined || value === null) return undefined;
  const names = SIGNER_ROLES.join(', ');
  if (!Array.isArray(value) || value.length === 0) {
    throw new TrustError(
      'invalid_roles',
      `Roles are a non-empty list of role names (${names}); give none to pin the key for every role.`,
      { path },
    );
  }
  const seen = new Set<SignerRole>();
  for (const [index, role] of value.entries()) {
    if (typeof role !== 'string' || !(SIGNER_ROLES as readonly string[]).includes(role)) {
      throw new TrustError('invalid_roles', `${show(role)} is not a role; a role is one of ${names}.`, {
        path: `${path}/${index}`,
      });
    }
    if (seen.has(role as SignerRole)) {
      throw new TrustError('invalid_roles', `The role ${role} is given twice.`, { path: `${path}/${index}` });
    }
    seen.add(role as SignerRole);
  }
  return SIGNER_ROLES.filter((role) => seen.has(role));
}
