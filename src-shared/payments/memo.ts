/**
 * The payment memo of PROTOCOL section 13: an ERC-20 `transfer` call whose call data carries,
 * after its 68 bytes, a UTF-8 JSON object naming the tier bought and where the key goes.
 *
 * Call data = `a9059cbb` (the selector of `transfer(address,uint256)`) + the recipient as a
 * 32-byte word + the amount as a 32-byte word + the memo bytes. The token contract ignores the
 * trailing bytes (Solidity's ABI decoder reads only what the call declares), so the memo rides in
 * the transaction's input and the service reads it back from there.
 *
 * A memo is read strictly ({@link parseMemo}): at most {@link MAX_MEMO_BYTES} bytes of well-formed
 * UTF-8, one JSON object without duplicate names, members `tier`, `contact` and optionally
 * `issuer_did`, nothing else. Our buyer writes it as JCS (RFC 8785), {@link encodeMemo}.
 */
import { ed25519FromDidKey } from '../crypto/did-key';
import { hexDecode, hexEncode, utf8Encode } from '../crypto/encoding';
import { MEMO_TIERS, type MemoTier } from '../api/payments';
import { jcs, JsonParseError, parseJsonBytes, type JsonNode } from '../json';

/** The 4-byte selector of `transfer(address,uint256)`: the first bytes of keccak256 of that signature. */
export const TRANSFER_SELECTOR: Uint8Array = Uint8Array.of(0xa9, 0x05, 0x9c, 0xbb);
/** The bytes of the transfer call before the memo: selector, recipient word, amount word. */
export const TRANSFER_CALL_LENGTH = 68;
/** The longest memo read, in bytes. */
export const MAX_MEMO_BYTES = 1024;
/** The longest e-mail address taken as a contact (RFC 5321's path limit less its brackets). */
export const MAX_EMAIL_LENGTH = 254;
/** The longest domain name taken as a contact. */
export const MAX_DOMAIN_LENGTH = 253;
/** The longest `issuer_did`. */
export const MAX_ISSUER_DID_LENGTH = 512;

/** What a memo says. */
export interface PaymentMemo {
  tier: MemoTier;
  /** An e-mail address, a domain, or an Ed25519 did:key. */
  contact: string;
  /** The DID the buyer will issue as, when given (`did:` ...). */
  issuer_did?: string;
}

/** The kinds of contact a memo may name. */
export type ContactKind = 'email' | 'domain' | 'did_key';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const UINT256_LIMIT = 1n << 256n;
const MEMO_MEMBERS = ['tier', 'contact', 'issuer_did'] as const;
/** A dot-atom local part (RFC 5322 atext), without quoted strings or comments. */
const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** A letter-digit-hyphen label (RFC 1035, RFC 5890's LDH): no hyphen at either end, 1 to 63 characters. */
const LDH_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const ISSUER_DID = /^did:[a-z0-9]+:[\x21-\x7e]+$/;

function isDomainName(text: string): boolean {
  if (text.length === 0 || text.length > MAX_DOMAIN_LENGTH) return false;
  const labels = text.split('.');
  if (labels.length < 2) return false;
  if (!labels.every((label) => LDH_LABEL.test(label))) return false;
  // A top-level label of digits only would make an IP address look like a domain.
  return !/^[0-9]+$/.test(labels[labels.length - 1] ?? '');
}

function isEmailAddress(text: string): boolean {
  if (text.length > MAX_EMAIL_LENGTH) return false;
  const at = text.lastIndexOf('@');
  if (at < 1) return false;
  const local = text.slice(0, at);
  return local.length <= 64 && EMAIL_LOCAL.test(local) && isDomainName(text.slice(at + 1));
}

function isEd25519DidKey(text: string): boolean {
  try {
    ed25519FromDidKey(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why a contact cannot be used, or undefined when it can.
 *
 * @param contact - The memo's `contact`.
 * @returns A sentence, or undefined.
 */
export function contactProblem(contact: unknown): string | undefined {
  if (typeof contact !== 'string') return 'The contact must be a string.';
  if (contact.startsWith('did:')) {
    if (!contact.startsWith('did:key:'))
      return 'A DID contact must be an Ed25519 did:key (did:key:z6Mk...); other DID methods cannot receive a sealed key.';
    if (!isEd25519DidKey(contact)) return 'The contact is not an Ed25519 did:key (did:key:z6Mk... of a 32-byte key).';
    return undefined;
  }
  if (contact.includes('@')) {
    if (!isEmailAddress(contact))
      return `The contact is not a simple e-mail address (local@domain.example, at most ${MAX_EMAIL_LENGTH} characters, no quotes or comments).`;
    return undefined;
  }
  if (!isDomainName(contact))
    return 'The contact must be an e-mail address, a domain name (letters, digits and hyphens in labels joined by dots, with at least one dot), or an Ed25519 did:key.';
  return undefined;
}

/**
 * The kind of a contact.
 *
 * @param contact - A contact that {@link parseMemo} accepted.
 * @returns `did_key` for a did:key, `email` for an address with `@`, else `domain`.
 * @throws TypeError when not a string; RangeError when it is not a valid contact.
 */
export function contactKind(contact: string): ContactKind {
  if (typeof contact !== 'string') throw new TypeError('contactKind: contact must be a string');
  const problem = contactProblem(contact);
  if (problem !== undefined) throw new RangeError(`contactKind: ${problem}`);
  if (contact.startsWith('did:')) return 'did_key';
  return contact.includes('@') ? 'email' : 'domain';
}

/**
 * A contact as it is compared and stored: e-mail addresses and domains lowercased, a did:key as written.
 *
 * @param contact - A valid contact.
 * @returns The normal form.
 * @throws as {@link contactKind}
 */
export function normalizeContact(contact: string): string {
  return contactKind(contact) === 'did_key' ? contact : contact.toLowerCase();
}

/**
 * Where a contact's key goes: the address itself, postmaster@ a domain (RFC 5321 section 4.5.1
 * requires that mailbox), or the did:key the key is sealed to.
 *
 * @param contact - A valid contact.
 * @returns The normalized destination.
 */
export function deliveryAddress(contact: string): string {
  const kind = contactKind(contact);
  if (kind === 'did_key') return contact;
  return kind === 'domain' ? `postmaster@${contact.toLowerCase()}` : contact.toLowerCase();
}

/**
 * The call data of a transfer with a memo.
 *
 * @param recipient - The treasury, `0x` and 40 hex digits.
 * @param amount - Token units, 0 to 2^256 - 1.
 * @param memo - The memo bytes (see {@link encodeMemo}).
 * @returns selector + recipient word + amount word + memo.
 * @throws TypeError for wrong types; RangeError for a bad address or amount.
 */
export function transferCalldata(recipient: string, amount: bigint, memo: Uint8Array): Uint8Array {
  if (typeof recipient !== 'string') throw new TypeError('transferCalldata: recipient must be a string');
  if (!ADDRESS.test(recipient)) throw new RangeError('transferCalldata: recipient must be 0x and 40 hex digits');
  if (typeof amount !== 'bigint') throw new TypeError('transferCalldata: amount must be a bigint');
  if (amount < 0n || amount >= UINT256_LIMIT) throw new RangeError('transferCalldata: amount must fit in a uint256');
  if (!(memo instanceof Uint8Array)) throw new TypeError('transferCalldata: memo must be a Uint8Array');
  const data = new Uint8Array(TRANSFER_CALL_LENGTH + memo.length);
  data.set(TRANSFER_SELECTOR, 0);
  data.set(hexDecode(recipient.slice(2).toLowerCase()), 4 + 12);
  data.set(hexDecode(amount.toString(16).padStart(64, '0')), 36);
  data.set(memo, TRANSFER_CALL_LENGTH);
  return data;
}

/**
 * A transfer call's parts, or undefined when the data is not a `transfer(address,uint256)` call.
 *
 * @param data - A transaction's input.
 * @returns The recipient (lowercase `0x` address), the amount and the bytes after the call (the memo; may be empty).
 */
export function splitTransferCalldata(
  data: Uint8Array,
): { recipient: string; amount: bigint; memo: Uint8Array } | undefined {
  if (!(data instanceof Uint8Array)) throw new TypeError('splitTransferCalldata: data must be a Uint8Array');
  if (data.length < TRANSFER_CALL_LENGTH) return undefined;
  for (let index = 0; index < 4; index += 1) if (data[index] !== TRANSFER_SELECTOR[index]) return undefined;
  // An address word has 12 zero bytes before the 20 of the address; anything else is not an address.
  for (let index = 4; index < 16; index += 1) if (data[index] !== 0) return undefined;
  const recipient = `0x${hexEncode(data.subarray(16, 36))}`;
  const amount = BigInt(`0x${hexEncode(data.subarray(36, TRANSFER_CALL_LENGTH))}`);
  return { recipient, amount, memo: data.slice(TRANSFER_CALL_LENGTH) };
}

function checkMemo(memo: PaymentMemo): string | undefined {
  if (typeof memo !== 'object' || memo === null || Array.isArray(memo)) return 'The memo must be a JSON object.';
  for (const name of Object.keys(memo)) {
    if (!(MEMO_MEMBERS as readonly string[]).includes(name))
      return `The memo has a member "${name.slice(0, 40)}" that PROTOCOL 13 does not define (only tier, contact and issuer_did).`;
  }
  if (typeof memo.tier !== 'string' || !(MEMO_TIERS as readonly string[]).includes(memo.tier))
    return `The memo's tier must be one of ${MEMO_TIERS.join(', ')}.`;
  if (memo.contact === undefined) return 'The memo has no contact (an e-mail address, a domain or a did:key).';
  const contact = contactProblem(memo.contact);
  if (contact !== undefined) return contact;
  if (memo.issuer_did !== undefined) {
    if (typeof memo.issuer_did !== 'string') return 'The memo\'s issuer_did must be a string ("did:...").';
    if (memo.issuer_did.length > MAX_ISSUER_DID_LENGTH)
      return `The memo's issuer_did is longer than ${MAX_ISSUER_DID_LENGTH} characters.`;
    if (!ISSUER_DID.test(memo.issuer_did))
      return 'The memo\'s issuer_did is not a DID ("did:" method ":" identifier, printable ASCII without spaces).';
  }
  return undefined;
}

/**
 * The memo's bytes: JCS (RFC 8785) of the object, UTF-8.
 *
 * @param memo - What the memo says.
 * @returns The bytes to put after the transfer call.
 * @throws RangeError when the memo would not be accepted by {@link parseMemo} (the reason).
 */
export function encodeMemo(memo: PaymentMemo): Uint8Array {
  const problem = checkMemo(memo);
  if (problem !== undefined) throw new RangeError(`encodeMemo: ${problem}`);
  const bytes = utf8Encode(
    jcs({
      tier: memo.tier,
      contact: memo.contact,
      ...(memo.issuer_did !== undefined ? { issuer_did: memo.issuer_did } : {}),
    }),
  );
  if (bytes.length > MAX_MEMO_BYTES) throw new RangeError(`encodeMemo: the memo is over ${MAX_MEMO_BYTES} bytes`);
  return bytes;
}

function stringMember(node: JsonNode): string | undefined {
  return node.type === 'string' ? node.value : undefined;
}

/**
 * Reads a memo strictly.
 *
 * @param bytes - The bytes after the transfer call.
 * @returns The memo, or the reason it is refused (a sentence for the payment's record).
 */
export function parseMemo(bytes: Uint8Array): { ok: true; memo: PaymentMemo } | { ok: false; reason: string } {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('parseMemo: bytes must be a Uint8Array');
  if (bytes.length === 0)
    return { ok: false, reason: 'The transfer carries no memo: nothing follows the 68 bytes of the call.' };
  if (bytes.length > MAX_MEMO_BYTES)
    return { ok: false, reason: `The memo is ${bytes.length} bytes; at most ${MAX_MEMO_BYTES} are read.` };
  let tree: JsonNode;
  try {
    tree = parseJsonBytes(bytes);
  } catch (error) {
    if (error instanceof JsonParseError) {
      const what =
        error.code === 'invalid_utf8'
          ? 'is not valid UTF-8'
          : error.code === 'duplicate_name'
            ? 'names a member twice'
            : 'is not valid JSON';
      return { ok: false, reason: `The memo ${what}: ${error.message}.` };
    }
    throw error;
  }
  if (tree.type !== 'object') return { ok: false, reason: `The memo must be a JSON object, not ${describe(tree)}.` };
  const memo: Record<string, unknown> = {};
  for (const [name, value] of tree.members) {
    if (!(MEMO_MEMBERS as readonly string[]).includes(name))
      return {
        ok: false,
        reason: `The memo has a member "${name.slice(0, 40)}" that PROTOCOL 13 does not define (only tier, contact and issuer_did).`,
      };
    const text = stringMember(value);
    if (text === undefined)
      return { ok: false, reason: `The memo's ${name} must be a string, not ${describe(value)}.` };
    memo[name] = text;
  }
  const problem = checkMemo(memo as unknown as PaymentMemo);
  if (problem !== undefined) return { ok: false, reason: problem };
  return { ok: true, memo: memo as unknown as PaymentMemo };
}

function describe(node: JsonNode): string {
  return node.type === 'array' ? 'an array' : node.type === 'object' ? 'an object' : `a ${node.type}`;
}
