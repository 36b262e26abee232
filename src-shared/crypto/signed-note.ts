/**
 * C2SP signed notes, checkpoints and cosignatures (c2sp.org/signed-note, tlog-checkpoint,
 * tlog-cosignature), for our transparency logs.
 *
 * A note is UTF-8 text ending in a newline, a blank line, then one or more signature lines
 * `— <key name> base64(uint32 key ID || signature)`. Two signature types are supported: Ed25519
 * (0x01, over the note text) and the timestamped Ed25519 cosignature (0x04, over
 * `cosignature/v1\ntime <T>\n` + the note text, the signature being u64be(T) || Ed25519). The
 * same text made by Go's golang.org/x/mod/sumdb/note gives the same bytes here (Ed25519 is
 * deterministic); the tests hold its vectors.
 *
 * Parsers are strict and throw a {@link NoteError} whose message names the line and the problem;
 * formatters and signers check their arguments (TypeError / RangeError) and produce only what the
 * parsers accept.
 */
import { DomainError, type ErrorKind } from '../api/domain-error';
import { assertBytes, assertIndex, assertString, describeType, isBytes } from './assert';
import { b64Decode, b64Encode, concatBytes, utf8Encode, utf8Length } from './encoding';
import type { HashFunction } from './merkle';
import type { CryptoProvider } from './provider';

/** Signature type of Ed25519 note signatures (c2sp.org/signed-note). */
export const NOTE_ED25519 = 0x01;
/** Signature type of timestamped Ed25519 checkpoint cosignatures (c2sp.org/tlog-cosignature). */
export const NOTE_COSIGNATURE_ED25519 = 0x04;

/**
 * The most signature lines a note may carry. C2SP asks verifiers to accept at least 16; Go's
 * sumdb/note stops at 100, and so do we.
 */
export const NOTE_MAX_SIGNATURES = 100;
/**
 * The most UTF-8 bytes a note may have: 1 MiB, far above a checkpoint with 100 signatures (even
 * post-quantum ones of nearly 5 kB), and a bound on the work one note can cause.
 */
export const NOTE_MAX_BYTES = 1_048_576;

const ED25519_SIGNATURE_BYTES = 64;
const ED25519_PUBLIC_KEY_BYTES = 32;
const KEY_ID_BYTES = 4;
const TIMESTAMP_BYTES = 8;
/** RFC 6962 roots are SHA-256 values. */
const ROOT_HASH_BYTES = 32;
const SIGNATURE_PREFIX = '\u2014 ';
/** Unicode spaces (Go's unicode.IsSpace is the White_Space property) and `+`. */
const NAME_FORBIDDEN = /[\p{White_Space}+]/u;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_OTHER_THAN_NEWLINE = /[\u0000-\u0009\u000b-\u001f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const TREE_SIZE = /^(?:0|[1-9][0-9]*)$/;
const KEY_ID_HEX = /^[0-9a-f]{8}$/;
/** The largest timestamp a cosignature may carry (C2SP: 2^63 - 1), as a bigint. */
const MAX_COSIGNATURE_TIMESTAMP = (1n << 63n) - 1n;

/** What a {@link NoteError} is about. */
export type NoteErrorCode =
  'note_malformed' | 'note_too_large' | 'checkpoint_malformed' | 'vkey_malformed' | 'note_unverified';

const NOTE_ERROR_KINDS: Record<NoteErrorCode, ErrorKind> = {
  note_malformed: 'invalid_input',
  note_too_large: 'too_large',
  checkpoint_malformed: 'invalid_input',
  vkey_malformed: 'invalid_input',
  note_unverified: 'refused',
};

/**
 * A note, checkpoint or verifier key that cannot be used, with where and why.
 *
 * It is a {@link DomainError}: its message (which line, what is wrong) reaches the caller.
 */
export class NoteError extends DomainError {
  /** A stable machine code. */
  override readonly code: NoteErrorCode;
  override readonly kind: ErrorKind;
  constructor(code: NoteErrorCode, message: string) {
    super(message);
    this.name = 'NoteError';
    this.code = code;
    this.kind = NOTE_ERROR_KINDS[code];
  }
}

/** One signature line of a note. */
export interface NoteSignature {
  /** The key name. */
  name: string;
  /** The key ID (uint32, big-endian in the line). */
  keyId: number;
  /** The signature bytes after the 4 key ID bytes. */
  signature: Uint8Array;
  /** The whole line, without its newline. */
  line: string;
}

/** A parsed note: its text and its signature lines (none of them verified). */
export interface Note {
  /** The note text, ending with "\n" (without the blank line that separates the signatures). */
  text: string;
  /** The signature lines in their order. */
  signatures: NoteSignature[];
}

/** A verifier key (c2sp.org/signed-note "vkey"). */
export interface NoteVerifierKey {
  name: string;
  /** {@link NOTE_ED25519} or {@link NOTE_COSIGNATURE_ED25519}. */
  type: number;
  /** The 32-byte Ed25519 public key. */
  publicKey: Uint8Array;
  /** The key ID: SHA-256(name || 0x0A || type || publicKey)[:4], big-endian. */
  keyId: number;
}

/** A checkpoint's note text (c2sp.org/tlog-checkpoint). */
export interface Checkpoint {
  /** The log's origin line. */
  origin: string;
  /** The tree size (a safe integer). */
  size: number;
  /** The RFC 6962 root hash at that size (32 bytes). */
  rootHash: Uint8Array;
  /** Extension lines, each non-empty; usually none. */
  extensions: string[];
}

function quote(text: string): string {
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return JSON.stringify(shown);
}

/** Why a key name is not valid, or undefined when it is. */
function nameProblem(name: string): string | undefined {
  if (name === '') return 'the key name is empty';
  if (NAME_FORBIDDEN.test(name)) return `the key name ${quote(name)} contains a space or "+"`;
  if (CONTROL_OTHER_THAN_NEWLINE.test(name) || name.includes('\n'))
    return `the key name ${quote(name)} contains a control character`;
  if (LONE_SURROGATE.test(name)) return `the key name ${quote(name)} is not valid Unicode`;
  return undefined;
}

function assertName(name: unknown, where: string): asserts name is string {
  assertString(name, `${where}: name`);
  const problem = nameProblem(name);
  if (problem !== undefined) throw new RangeError(`${where}: ${problem}`);
}

/** Why a note text is not valid, or undefined when it is. */
function textProblem(text: string): string | undefined {
  if (text === '' || !text.endsWith('\n')) return 'the note text must end with a newline';
  if (LONE_SURROGATE.test(text)) return 'the note text is not valid Unicode (a lone surrogate)';
  const control = CONTROL_OTHER_THAN_NEWLINE.exec(text);
  if (control !== null) {
    const line = text.slice(0, control.index).split('\n').length;
    return `line ${line}: control character U+${control[0].charCodeAt(0).toString(16).padStart(4, '0')} (only newlines are allowed)`;
  }
  return undefined;
}

function assertText(text: unknown, where: string): asserts text is string {
  assertString(text, `${where}: text`);
  const problem = textProblem(text);
  if (problem !== undefined) throw new RangeError(`${where}: ${problem}`);
}

function assertType(type: unknown, where: string): asserts type is number {
  assertIndex(type, `${where}: type`);
  if (type > 0xff) throw new RangeError(`${where}: type must be one byte, got ${type}`);
}

function readUint32(bytes: Uint8Array): number {
  return (
    (((bytes[0] as number) << 24) |
      ((bytes[1] as number) << 16) |
      ((bytes[2] as number) << 8) |
      (bytes[3] as number)) >>>
    0
  );
}

function uint32Bytes(value: number): Uint8Array {
  return Uint8Array.of(value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
}

function uint64Bytes(value: number): Uint8Array {
  const bytes = new Uint8Array(TIMESTAMP_BYTES);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(value));
  return bytes;
}

/**
 * Parses a signed note strictly (c2sp.org/signed-note).
 *
 * Rules: at most {@link NOTE_MAX_BYTES} UTF-8 bytes, valid Unicode, no control characters but
 * newlines; the last blank line separates the text (which ends with a newline) from one or more
 * signature lines `— <name> <base64>` ending with a newline; names non-empty without spaces or
 * `+`; signatures canonical padded standard base64 of at least 5 bytes; at most
 * {@link NOTE_MAX_SIGNATURES} lines. Signatures are not verified here ({@link verifyNote}).
 *
 * @param note - the whole note
 * @returns its text and signature lines
 * @throws TypeError when note is not a string
 * @throws NoteError `note_too_large` or `note_malformed`, naming the line and the problem
 */
export function parseNote(note: string): Note {
  assertString(note, 'parseNote: note');
  if (note.length > NOTE_MAX_BYTES || utf8Length(note) > NOTE_MAX_BYTES) {
    throw new NoteError('note_too_large', `the note is larger than ${NOTE_MAX_BYTES} bytes`);
  }
  if (LONE_SURROGATE.test(note))
    throw new NoteError('note_malformed', 'the note is not valid UTF-8 (a lone surrogate)');
  const control = CONTROL_OTHER_THAN_NEWLINE.exec(note);
  if (control !== null) {
    const line = note.slice(0, control.index).split('\n').length;
    const code = control[0].charCodeAt(0).toString(16).padStart(4, '0');
    throw new NoteError(
      'note_malformed',
      `line ${line}: control character U+${code} (a note holds no control characters but newlines)`,
    );
  }
  const split = note.lastIndexOf('\n\n');
  if (split < 0) {
    throw new NoteError('note_malformed', 'no blank line separates the note text from its signatures');
  }
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  const firstLine = text.split('\n').length + 1;
  if (block === '')
    throw new NoteError('note_malformed', `line ${firstLine}: the note has no signature lines after the blank line`);
  if (!block.endsWith('\n')) {
    const last = firstLine + block.split('\n').length - 1;
    throw new NoteError('note_malformed', `line ${last}: the last signature line does not end with a newline`);
  }
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > NOTE_MAX_SIGNATURES) {
    throw new NoteError(
      'note_too_large',
      `the note has ${lines.length} signature lines, more than ${NOTE_MAX_SIGNATURES}`,
    );
  }
  const signatures = lines.map((line, offset) => parseSignatureLine(line, firstLine + offset));
  return { text, signatures };
}

function parseSignatureLine(line: string, number: number): NoteSignature {
  const fail = (problem: string): never => {
    throw new NoteError('note_malformed', `line ${number}: ${problem}`);
  };
  if (!line.startsWith(SIGNATURE_PREFIX)) {
    fail(`a signature line must start with "— " (em dash U+2014, space), got ${quote(line)}`);
  }
  const rest = line.slice(SIGNATURE_PREFIX.length);
  const space = rest.indexOf(' ');
  if (space < 0)
    fail('a signature line is "— <key name> <base64 signature>", the space before the signature is missing');
  const name = rest.slice(0, space);
  const encoded = rest.slice(space + 1);
  const problem = nameProblem(name);
  if (problem !== undefined) fail(problem);
  if (encoded === '') fail(`the signature of ${quote(name)} is empty`);
  let bytes: Uint8Array;
  try {
    bytes = b64Decode(encoded);
  } catch (error) {
    const reason = error instanceof RangeError ? error.message.replace(/^b64Decode: /, '') : 'not base64';
    return fail(`the signature of ${quote(name)} is not standard padded base64 (${reason})`);
  }
  if (bytes.length <= KEY_ID_BYTES) {
    fail(`the signature of ${quote(name)} has ${bytes.length} bytes, fewer than a key ID and a signature (5)`);
  }
  return { name, keyId: readUint32(bytes), signature: bytes.slice(KEY_ID_BYTES), line };
}

/**
 * Writes a signed note: the text, a blank line, the signature lines.
 *
 * @param text - the note text, ending with "\n"
 * @param lines - signature lines without newlines (from {@link signNoteLine},
 *   {@link signCosignatureLine} or {@link NoteSignature.line}); at least one
 * @returns the note, which {@link parseNote} reads back as this text and these lines
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when the text or a line is not valid, or there are no lines
 */
export function formatNote(text: string, lines: readonly string[]): string {
  assertText(text, 'formatNote');
  if (!Array.isArray(lines))
    throw new TypeError(`formatNote: lines must be an array of strings, got ${describeType(lines)}`);
  if (lines.length === 0) throw new RangeError('formatNote: a note needs at least one signature line');
  for (const [index, line] of (lines as unknown[]).entries()) assertString(line, `formatNote: lines[${index}]`);
  const note = `${text}\n${lines.map((line) => `${line}\n`).join('')}`;
  let parsed: Note;
  try {
    parsed = parseNote(note);
  } catch (error) {
    throw new RangeError(`formatNote: ${error instanceof Error ? error.message : String(error)}`);
  }
  // A line holding a newline would split into two: the parse must give back exactly what was given.
  if (parsed.text !== text || parsed.signatures.length !== lines.length) {
    throw new RangeError('formatNote: a signature line holds a newline');
  }
  return note;
}

/**
 * The key ID of a key (c2sp.org/signed-note): SHA-256(name || 0x0A || type || publicKey)[:4].
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param name - the key name
 * @param type - the signature type byte, e.g. {@link NOTE_ED25519}
 * @param publicKey - the public key bytes
 * @returns the key ID as an unsigned 32-bit integer
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when the name is not a valid key name or the type not a byte
 */
export function noteKeyId(sha256: HashFunction, name: string, type: number, publicKey: Uint8Array): number {
  if (typeof sha256 !== 'function') throw new TypeError(`noteKeyId: sha256 must be a function, got ${typeof sha256}`);
  assertName(name, 'noteKeyId');
  assertType(type, 'noteKeyId');
  assertBytes(publicKey, 'noteKeyId: publicKey');
  return readUint32(sha256(concatBytes(utf8Encode(`${name}\n`), Uint8Array.of(type), publicKey)));
}

function assertSupportedKey(type: number, publicKey: Uint8Array, where: string): void {
  if (type !== NOTE_ED25519 && type !== NOTE_COSIGNATURE_ED25519) {
    throw new RangeError(
      `${where}: signature type 0x${type.toString(16).padStart(2, '0')} is not supported (0x01 or 0x04)`,
    );
  }
  assertBytes(publicKey, `${where}: publicKey`, ED25519_PUBLIC_KEY_BYTES);
}

/**
 * Parses a verifier key `<name>+<hex8 key ID>+<base64(type || public key)>` strictly.
 *
 * The key ID is lowercase hex of 8 digits and must be the one the name, type and key give; the
 * type is 0x01 (Ed25519) or 0x04 (Ed25519 cosignature) with a 32-byte key.
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param vkey - the verifier key text
 * @returns the key
 * @throws TypeError on arguments of the wrong type
 * @throws NoteError `vkey_malformed`, saying what is wrong
 */
export function parseVkey(sha256: HashFunction, vkey: string): NoteVerifierKey {
  if (typeof sha256 !== 'function') throw new TypeError(`parseVkey: sha256 must be a function, got ${typeof sha256}`);
  assertString(vkey, 'parseVkey: vkey');
  const fail = (problem: string): never => {
    throw new NoteError('vkey_malformed', `verifier key ${quote(vkey)}: ${problem}`);
  };
  if (vkey.length > 1024) fail('longer than 1024 characters');
  const first = vkey.indexOf('+');
  const second = first < 0 ? -1 : vkey.indexOf('+', first + 1);
  if (second < 0) fail('expected <name>+<key ID>+<base64 key>');
  const name = vkey.slice(0, first);
  const idHex = vkey.slice(first + 1, second);
  const encoded = vkey.slice(second + 1);
  const problem = nameProblem(name);
  if (problem !== undefined) fail(problem);
  if (!KEY_ID_HEX.test(idHex)) fail(`the key ID ${quote(idHex)} is not 8 lowercase hex digits`);
  let bytes: Uint8Array = new Uint8Array(0);
  try {
    bytes = b64Decode(encoded);
  } catch (error) {
    fail(
      `the key is not standard padded base64 (${error instanceof Error ? error.message.replace(/^b64Decode: /, '') : ''})`,
    );
  }
  const type = bytes[0];
  if (type === undefined) fail('the key is empty');
  if (type !== NOTE_ED25519 && type !== NOTE_COSIGNATURE_ED25519) {
    fail(
      `signature type 0x${(type as number).toString(16).padStart(2, '0')} is not supported (0x01 Ed25519 or 0x04 Ed25519 cosignature)`,
    );
  }
  const publicKey = bytes.slice(1);
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES) fail(`an Ed25519 key is 32 bytes, got ${publicKey.length}`);
  const keyId = noteKeyId(sha256, name, type as number, publicKey);
  const expected = keyId.toString(16).padStart(8, '0');
  if (idHex !== expected) fail(`the key ID ${idHex} does not match the name and key (expected ${expected})`);
  return { name, type: type as number, publicKey, keyId };
}

/**
 * Writes a verifier key `<name>+<hex8 key ID>+<base64(type || public key)>`.
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param name - the key name
 * @param type - {@link NOTE_ED25519} or {@link NOTE_COSIGNATURE_ED25519}
 * @param publicKey - the 32-byte Ed25519 public key
 * @returns the vkey text, which {@link parseVkey} reads back
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when the name is not valid, the type not supported or the key not 32 bytes
 */
export function formatVkey(sha256: HashFunction, name: string, type: number, publicKey: Uint8Array): string {
  assertName(name, 'formatVkey');
  assertType(type, 'formatVkey');
  assertSupportedKey(type, publicKey, 'formatVkey');
  const keyId = noteKeyId(sha256, name, type, publicKey);
  return `${name}+${keyId.toString(16).padStart(8, '0')}+${b64Encode(concatBytes(Uint8Array.of(type), publicKey))}`;
}

function signatureLine(name: string, keyId: number, signature: Uint8Array): string {
  return `${SIGNATURE_PREFIX}${name} ${b64Encode(concatBytes(uint32Bytes(keyId), signature))}`;
}

function assertCrypto(crypto: unknown, where: string): asserts crypto is CryptoProvider {
  if (typeof crypto !== 'object' || crypto === null || typeof (crypto as CryptoProvider).ed25519Sign !== 'function') {
    throw new TypeError(`${where}: crypto must be a CryptoProvider, got ${describeType(crypto)}`);
  }
}

/**
 * Signs a note text with an Ed25519 key (type 0x01).
 *
 * @param crypto - the crypto provider
 * @param text - the note text, ending with "\n"
 * @param name - the key name
 * @param seed - the 32-byte Ed25519 secret seed (never kept)
 * @returns the signature line `— <name> base64(key ID || signature)`, without a newline
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when the text or name is not valid or the seed not 32 bytes
 */
export function signNoteLine(crypto: CryptoProvider, text: string, name: string, seed: Uint8Array): string {
  assertCrypto(crypto, 'signNoteLine');
  assertText(text, 'signNoteLine');
  assertName(name, 'signNoteLine');
  assertBytes(seed, 'signNoteLine: seed', 32);
  const keyId = noteKeyId(crypto.sha256, name, NOTE_ED25519, crypto.ed25519PublicKey(seed));
  return signatureLine(name, keyId, crypto.ed25519Sign(utf8Encode(text), seed));
}

/**
 * The message an Ed25519 cosignature signs: `cosignature/v1\ntime <T>\n` + the note text.
 *
 * @param noteText - the cosigned checkpoint's note text, ending with "\n"
 * @param timestamp - POSIX seconds (a safe non-negative integer)
 * @returns the message's UTF-8 bytes (a fresh array)
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when the text is not valid or the timestamp not a non-negative integer
 */
export function cosignatureMessage(noteText: string, timestamp: number): Uint8Array {
  assertText(noteText, 'cosignatureMessage');
  assertIndex(timestamp, 'cosignatureMessage: timestamp');
  return utf8Encode(`cosignature/v1\ntime ${timestamp}\n${noteText}`).slice();
}

/**
 * Cosigns a checkpoint's note text with an Ed25519 key (type 0x04, c2sp.org/tlog-cosignature).
 *
 * @param crypto - the crypto provider
 * @param text - the checkpoint's note text, ending with "\n"
 * @param name - the cosigner's key name
 * @param seed - the 32-byte Ed25519 secret seed (never kept)
 * @param timestamp - POSIX seconds of the cosignature
 * @returns the line `— <name> base64(key ID || u64be(timestamp) || signature)`, without a newline
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when the text or name is not valid, the seed not 32 bytes or the timestamp
 *   not a non-negative integer
 */
export function signCosignatureLine(
  crypto: CryptoProvider,
  text: string,
  name: string,
  seed: Uint8Array,
  timestamp: number,
): string {
  assertCrypto(crypto, 'signCosignatureLine');
  assertText(text, 'signCosignatureLine');
  assertName(name, 'signCosignatureLine');
  assertBytes(seed, 'signCosignatureLine: seed', 32);
  assertIndex(timestamp, 'signCosignatureLine: timestamp');
  const keyId = noteKeyId(crypto.sha256, name, NOTE_COSIGNATURE_ED25519, crypto.ed25519PublicKey(seed));
  const signature = crypto.ed25519Sign(cosignatureMessage(text, timestamp), seed);
  return signatureLine(name, keyId, concatBytes(uint64Bytes(timestamp), signature));
}

/** Whether one line verifies under a key; the cosignature's timestamp when it does. */
function checkLine(
  crypto: CryptoProvider,
  text: string,
  key: NoteVerifierKey,
  signature: Uint8Array,
): { valid: boolean; timestamp?: number } {
  if (key.type === NOTE_ED25519) {
    if (signature.length !== ED25519_SIGNATURE_BYTES) return { valid: false };
    return { valid: crypto.ed25519Verify(signature, utf8Encode(text), key.publicKey) };
  }
  if (signature.length !== TIMESTAMP_BYTES + ED25519_SIGNATURE_BYTES) return { valid: false };
  const stamp = new DataView(signature.buffer, signature.byteOffset, TIMESTAMP_BYTES).getBigUint64(0);
  // C2SP caps the timestamp at 2^63 - 1; beyond 2^53 - 1 it cannot be one of our numbers either.
  if (stamp > MAX_COSIGNATURE_TIMESTAMP || stamp > BigInt(Number.MAX_SAFE_INTEGER)) return { valid: false };
  const timestamp = Number(stamp);
  const valid = crypto.ed25519Verify(
    signature.subarray(TIMESTAMP_BYTES),
    cosignatureMessage(text, timestamp),
    key.publicKey,
  );
  return valid ? { valid, timestamp } : { valid };
}

function assertNote(note: unknown): asserts note is Note {
  if (typeof note !== 'object' || note === null)
    throw new TypeError(`verifyNote: note must be a Note, got ${describeType(note)}`);
  const { text, signatures } = note as Note;
  assertText(text, 'verifyNote: note');
  if (!Array.isArray(signatures)) {
    throw new TypeError(`verifyNote: note.signatures must be an array, got ${describeType(signatures)}`);
  }
  for (const [index, item] of (signatures as unknown[]).entries()) {
    const signature = item as Partial<NoteSignature> | null;
    if (
      typeof signature !== 'object' ||
      signature === null ||
      typeof signature.name !== 'string' ||
      typeof signature.keyId !== 'number' ||
      !isBytes(signature.signature)
    ) {
      throw new TypeError(`verifyNote: note.signatures[${index}] must be a NoteSignature`);
    }
  }
}

/**
 * Which known keys signed a note validly (c2sp.org/signed-note verification rules).
 *
 * A line whose name and key ID both match a known key is verified: type 0x01 over the note
 * text, type 0x04 over the cosignature message with the line's timestamp. Lines of unknown keys
 * (even sharing a name or an ID with a known one, but not both) are ignored. A key with several
 * lines is `invalid` if any of them fails. The caller decides: C2SP says to reject the note when
 * a known key is `invalid` or when no known key is `valid`.
 *
 * @param crypto - the crypto provider
 * @param note - a parsed note ({@link parseNote})
 * @param keys - the known keys ({@link parseVkey})
 * @returns one entry per known key that has a line in the note, in the order of `keys`;
 *   `timestamp` for a valid cosignature (POSIX seconds)
 * @throws TypeError / RangeError on arguments of the wrong type or a key of an unsupported type
 */
export function verifyNote(
  crypto: CryptoProvider,
  note: Note,
  keys: readonly NoteVerifierKey[],
): { key: NoteVerifierKey; status: 'valid' | 'invalid'; timestamp?: number }[] {
  assertCrypto(crypto, 'verifyNote');
  assertNote(note);
  if (!Array.isArray(keys)) throw new TypeError(`verifyNote: keys must be an array, got ${describeType(keys)}`);
  for (const [index, key] of (keys as unknown[]).entries()) {
    const candidate = key as Partial<NoteVerifierKey> | null;
    if (typeof candidate !== 'object' || candidate === null || typeof candidate.name !== 'string') {
      throw new TypeError(`verifyNote: keys[${index}] must be a NoteVerifierKey`);
    }
    assertType(candidate.type, `verifyNote: keys[${index}]`);
    assertSupportedKey(candidate.type, candidate.publicKey as Uint8Array, `verifyNote: keys[${index}]`);
    assertIndex(candidate.keyId, `verifyNote: keys[${index}].keyId`);
  }
  const results: { key: NoteVerifierKey; status: 'valid' | 'invalid'; timestamp?: number }[] = [];
  for (const key of keys) {
    const lines = note.signatures.filter((signature) => signature.name === key.name && signature.keyId === key.keyId);
    if (lines.length === 0) continue;
    let valid = true;
    let timestamp: number | undefined;
    for (const line of lines) {
      const outcome = checkLine(crypto, note.text, key, line.signature);
      valid &&= outcome.valid;
      timestamp ??= outcome.timestamp;
    }
    results.push(
      valid && timestamp !== undefined
        ? { key, status: 'valid', timestamp }
        : { key, status: valid ? 'valid' : 'invalid' },
    );
  }
  return results;
}

/**
 * Writes a checkpoint's note text (c2sp.org/tlog-checkpoint): origin, tree size, base64 root,
 * then any extension lines, each ending with "\n".
 *
 * @param checkpoint - origin (non-empty, one line), size (a safe integer), rootHash (32 bytes),
 *   extensions (non-empty lines)
 * @returns the note text
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when a field is out of range or a line is empty or holds a control character
 */
export function formatCheckpoint(checkpoint: Checkpoint): string {
  if (typeof checkpoint !== 'object' || checkpoint === null) {
    throw new TypeError(`formatCheckpoint: checkpoint must be an object, got ${describeType(checkpoint)}`);
  }
  const { origin, size, rootHash, extensions } = checkpoint;
  assertString(origin, 'formatCheckpoint: origin');
  assertIndex(size, 'formatCheckpoint: size');
  assertBytes(rootHash, 'formatCheckpoint: rootHash', ROOT_HASH_BYTES);
  if (!Array.isArray(extensions)) {
    throw new TypeError(`formatCheckpoint: extensions must be an array of strings, got ${describeType(extensions)}`);
  }
  for (const [index, line] of [origin, ...(extensions as unknown[])].entries()) {
    const what = index === 0 ? 'origin' : `extensions[${index - 1}]`;
    assertString(line, `formatCheckpoint: ${what}`);
    if (line === '') throw new RangeError(`formatCheckpoint: ${what} is empty`);
    if (line.includes('\n')) throw new RangeError(`formatCheckpoint: ${what} holds a newline`);
  }
  const text = [origin, String(size), b64Encode(rootHash), ...extensions].map((line) => `${line}\n`).join('');
  const problem = textProblem(text);
  if (problem !== undefined) throw new RangeError(`formatCheckpoint: ${problem}`);
  return text;
}

/**
 * Parses a checkpoint's note text strictly (c2sp.org/tlog-checkpoint).
 *
 * At least three lines, each ending with "\n": a non-empty origin; the tree size in decimal
 * without leading zeroes, a safe integer; the root hash as canonical padded base64 of 32 bytes;
 * then non-empty extension lines.
 *
 * @param text - the note text ({@link Note.text})
 * @returns the checkpoint
 * @throws TypeError when text is not a string
 * @throws NoteError `checkpoint_malformed`, naming the line and the problem
 */
export function parseCheckpoint(text: string): Checkpoint {
  assertString(text, 'parseCheckpoint: text');
  const fail = (problem: string): never => {
    throw new NoteError('checkpoint_malformed', `checkpoint ${problem}`);
  };
  if (text.length > NOTE_MAX_BYTES) fail(`text is larger than ${NOTE_MAX_BYTES} bytes`);
  const problem = textProblem(text);
  if (problem !== undefined) fail(problem.replace(/^the note text/, 'text'));
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3)
    fail(
      `text has ${lines.length} line${lines.length === 1 ? '' : 's'}, not the three of origin, tree size and root hash`,
    );
  const [origin, sizeText, rootText, ...extensions] = lines as [string, string, string, ...string[]];
  if (origin === '') fail('line 1: the origin is empty');
  if (!TREE_SIZE.test(sizeText))
    fail(`line 2: the tree size ${quote(sizeText)} is not a decimal number without leading zeroes`);
  const size = Number(sizeText);
  if (!Number.isSafeInteger(size)) fail(`line 2: the tree size ${sizeText} is above 2^53 - 1`);
  let rootHash: Uint8Array = new Uint8Array(0);
  try {
    rootHash = b64Decode(rootText);
  } catch (error) {
    fail(
      `line 3: the root hash is not standard padded base64 (${error instanceof Error ? error.message.replace(/^b64Decode: /, '') : ''})`,
    );
  }
  if (rootHash.length !== ROOT_HASH_BYTES) fail(`line 3: the root hash is ${rootHash.length} bytes, not 32`);
  extensions.forEach((line, index) => {
    if (line === '') fail(`line ${index + 4}: an extension line is empty`);
  });
  return { origin, size, rootHash, extensions };
}
