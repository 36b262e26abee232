/**
 * The rules every format's ledger facts follow: which ids and instants are worth recording.
 *
 * Each format module says what its documents claim (FormatModule.facts); these helpers decide
 * whether a claim is one a person could look up. An id that is empty, too long or not printable
 * ASCII is not recorded (it is shown in lists and used in export file names), nor is an issuing
 * instant before 2000 or after 9999. The helpers read parsed trees and never throw.
 */
import { b64Decode, didKeyFromEd25519, hexDecode } from '../crypto';
import type { JsonNode } from '../json/types';
import type { DocumentFacts } from './format-module';
import { isTimestamp, timestampToMillis } from './timestamp';

/** The longest document id kept (the ledger's limit); longer ids are not recorded. */
export const MAX_RECEIPT_ID_LENGTH = 512;

/** The longest issuer key id kept (key ids are at most 512 characters, keys.ts). */
export const MAX_ISSUER_KEY_ID_LENGTH = 512;

/** Issue instants before 2000 or after 9999 are not plausible and are not recorded. */
const EARLIEST_ISSUE = Date.UTC(2000, 0, 1);
const LATEST_ISSUE = Date.UTC(9999, 11, 31);

/** Facts of a document that claims nothing. */
export const NO_FACTS: Readonly<DocumentFacts> = Object.freeze({
  receipt_id: null,
  issued_at: null,
  issuer_key_id: null,
});

/**
 * Facts from what a document claims, each kept only when it passes the rules above.
 *
 * @param claims - The claimed id, instant (ms since the epoch) and issuer key id, if any.
 * @returns The facts to record.
 */
export function documentFacts(claims: {
  receipt_id?: string | undefined;
  issued_at?: number | null | undefined;
  issuer_key_id?: string | undefined;
}): DocumentFacts {
  return {
    receipt_id: printable(claims.receipt_id, MAX_RECEIPT_ID_LENGTH),
    issued_at: claims.issued_at === undefined || claims.issued_at === null ? null : plausibleInstant(claims.issued_at),
    issuer_key_id: printable(claims.issuer_key_id, MAX_ISSUER_KEY_ID_LENGTH),
  };
}

function printable(candidate: string | undefined, maxLength: number): string | null {
  if (candidate === undefined || candidate.length === 0 || candidate.length > maxLength) return null;
  // Printable ASCII only: an id is shown in lists and used in file names of exports.
  return /^[\x21-\x7e]+$/.test(candidate) ? candidate : null;
}

/**
 * An instant if it is plausible as an issuing instant.
 *
 * @param millis - ms since the epoch.
 * @returns The instant, or null outside 2000 to 9999 or when not a safe integer.
 */
export function plausibleInstant(millis: number): number | null {
  return Number.isSafeInteger(millis) && millis >= EARLIEST_ISSUE && millis <= LATEST_ISSUE ? millis : null;
}

/**
 * A member of an object node.
 *
 * @param node - Any node, or undefined.
 * @param name - The member name.
 * @returns Its value node, or undefined when `node` is not an object or lacks it.
 */
export function factMember(node: JsonNode | undefined, name: string): JsonNode | undefined {
  if (node === undefined || node.type !== 'object') return undefined;
  for (const [key, value] of node.members) if (key === name) return value;
  return undefined;
}

/**
 * A string member of an object node.
 *
 * @param node - Any node, or undefined.
 * @param name - The member name.
 * @returns The string, or undefined when absent or not a string.
 */
export function factString(node: JsonNode | undefined, name: string): string | undefined {
  const member = factMember(node, name);
  return member !== undefined && member.type === 'string' ? member.value : undefined;
}

/**
 * An instant written as a TS (PROTOCOL section 0).
 *
 * @param text - The claimed instant, if any.
 * @returns ms since the epoch, or undefined when it is not a TS.
 */
export function timestampFact(text: string | undefined): number | undefined {
  return text !== undefined && isTimestamp(text) ? timestampToMillis(text) : undefined;
}

/**
 * An instant written as Unix seconds (nano `i`, wearable `ts`).
 *
 * @param node - The member's node, if any.
 * @returns ms since the epoch, or undefined when it is not a safe integer.
 */
export function unixSecondsFact(node: JsonNode | undefined): number | undefined {
  return node !== undefined && node.type === 'number' && Number.isSafeInteger(node.value)
    ? node.value * 1000
    : undefined;
}

/** did:key names of recently seen embedded keys, by their text (bulk imports repeat a few issuers). */
const DID_KEYS = new Map<string, string>();
const DID_KEYS_SIZE = 256;

function cachedKeyId(text: string, decode: (text: string) => Uint8Array): string | undefined {
  let did = DID_KEYS.get(text);
  if (did === undefined) {
    const bytes = decode(text);
    if (bytes.length !== 32) return undefined;
    did = didKeyFromEd25519(bytes);
    if (DID_KEYS.size >= DID_KEYS_SIZE) DID_KEYS.clear();
    DID_KEYS.set(text, did);
  }
  return did;
}

/**
 * The did:key of an embedded Ed25519 public key written as 64 hex characters: the name an
 * embedded key is filed under (the verifier names an unpinned embedded key so too).
 *
 * @param hex - The claimed key, if any.
 * @returns The did:key, or undefined when it is not 64 hex characters.
 */
export function hexKeyId(hex: string | undefined): string | undefined {
  return hex !== undefined && /^[0-9a-f]{64}$/.test(hex) ? cachedKeyId(hex, hexDecode) : undefined;
}

/**
 * The did:key of an embedded Ed25519 public key written in standard base64 (44 characters).
 *
 * @param text - The claimed key, if any.
 * @returns The did:key, or undefined when it is not the base64 of 32 bytes.
 */
export function b64KeyId(text: string | undefined): string | undefined {
  return text !== undefined && /^[A-Za-z0-9+/]{43}=$/.test(text) ? cachedKeyId(text, b64Decode) : undefined;
}
