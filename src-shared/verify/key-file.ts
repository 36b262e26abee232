/**
 * Key files and secret files (PROTOCOL sections 0 and 5).
 *
 * Key file: `{"keys": [{"key_id", "algorithm", "public_key", "label"?, "not_before"?,
 * "not_after"?, "status"?, "roles"?}]}`. The same shape is a `--keys` input, the /v1/keys answer, a
 * bundle's keys/service-keys.json and a trust-store export. A key file may also be one key as a
 * producer answers it: the typed signer's `GET /pubkey`, `{issuer, algorithm, publicKey_b64,
 * publicKey_hex, ...}` (PROTOCOL section 0). A file that carries a private key is refused, whatever
 * its shape. Secret file: `{"secrets": [{"key_id", "key"}]}`.
 *
 * Both are parsed strictly (duplicate names, comments and the like are refused) and every field is
 * validated; the first problem is thrown as a {@link KeyFileError} naming its JSON Pointer.
 */
import { DomainError } from '../api/domain-error';
import { b64uEncode, ed25519FromDidKey, equalBytes, hexDecode } from '../crypto';
import { JsonParseError, parseJsonTree, pointerAppend, toPlain } from '../json';
import type { JsonNode, JsonValue } from '../json/types';
import { SIGNER_ROLES, type KeyAlgorithm, type KeyEntry, type SecretEntry, type SignerRole } from './context';
import { decodeB64Field, decodeB64uField, describeType, isJsonObject, quote, type JsonObject } from './fields';
import { KEY_ALGORITHMS, KEY_ID_RULE, keyIdProblem, PUBLIC_KEY_LENGTH } from './keys';
import { isTimestamp, timestampToMillis } from './timestamp';

/** A key or secret file that cannot be used, with where and why. */
export class KeyFileError extends DomainError {
  /** A stable machine code, e.g. `invalid_public_key` or a strict-parse code. */
  override readonly code: string;
  /** JSON Pointer (RFC 6901) to the offending value; `""` for the whole file. */
  readonly path: string;
  constructor(code: string, path: string, message: string) {
    super(message);
    this.name = 'KeyFileError';
    this.code = code;
    this.path = path;
  }
}

/** Options for {@link parseKeyFile}. */
export interface KeyFileOptions {
  /**
   * Read the file as advertised keys (a `--keys` file, a bundle's keys/, /v1/keys) rather than a
   * trust store. There `status` and `label` mean nothing (PROTOCOL section 0): they are checked to
   * be strings and dropped, so a service listing's own status words (e.g. `active`) are accepted.
   */
  advertised?: boolean;
}

/** The longest label kept; longer labels are refused rather than cut. */
export const MAX_LABEL_LENGTH = 256;
/** The longest secret key id; secrets are matched by exact string. */
export const MAX_SECRET_ID_LENGTH = 256;
/** Secret ids: printable ASCII without spaces (they are names, not DIDs). */
export const SECRET_ID_PATTERN = /^[\x21-\x7e]+$/;

const KEY_MEMBERS = [
  'key_id',
  'algorithm',
  'public_key',
  'label',
  'not_before',
  'not_after',
  'status',
  'roles',
  'use',
  'note_key_name',
  'vkey',
];

/**
 * Parse a key file.
 *
 * Rules beyond the shape: key ids follow PROTOCOL section 0 ({@link keyIdProblem}: any DID or
 * an opaque id of 1-256 printable ASCII characters without spaces) and are unique within the
 * file; a did:key id must encode the very public key of its entry; `not_before` must not be after
 * `not_after`; `use`, as /v1/keys lists it, may be present as an array of strings and is ignored,
 * as may a log key's `note_key_name` and `vkey` (strings; docs/logs.md, "The service's log"),
 * and so may a top-level `note` string (the listing's "listing confers no trust"). Unknown
 * members are refused. A file without `keys` but with `issuer` is one key as a producer answers
 * it (the typed signer's `GET /pubkey`; its descriptive members are ignored, its two key
 * encodings must agree). A file with a private key member, in either shape, is refused
 * (`private_key`).
 *
 * @param text - The file's text.
 * @param options - See {@link KeyFileOptions}.
 * @returns The entries, in file order.
 * @throws TypeError if `text` is not a string.
 * @throws KeyFileError naming the first problem and its JSON Pointer.
 * @example parseKeyFile('{"keys":[{"key_id":"did:svc:a","algorithm":"Ed25519","public_key":"..."}]}')
 */
export function parseKeyFile(text: string, options: KeyFileOptions = {}): KeyEntry[] {
  if (typeof text !== 'string') throw new TypeError('parseKeyFile expects the file text as a string');
  return keyEntriesOf(parseStrict(text), options);
}

/**
 * Parse a key file that is already a strictly parsed tree (a member of a larger document, such as
 * the `keys` of an HTTP verify request): the same rules, entries and errors as
 * {@link parseKeyFile} gives for the tree's text, without writing and reading it again.
 *
 * @param node - The key file's tree, from the strict parser.
 * @param options - See {@link KeyFileOptions}.
 * @returns The entries, in file order.
 * @throws TypeError if `node` is not a tree node.
 * @throws KeyFileError naming the first problem and its JSON Pointer.
 */
export function parseKeyFileTree(node: JsonNode, options: KeyFileOptions = {}): KeyEntry[] {
  return keyEntriesOf(toPlain(node), options);
}

function keyEntriesOf(root: JsonValue, options: KeyFileOptions): KeyEntry[] {
  refusePrivateKeys(root);
  if (isJsonObject(root) && !Object.hasOwn(root, 'keys') && Object.hasOwn(root, 'issuer'))
    return [keyAnswerEntry(root)];
  if (isJsonObject(root) && !Object.hasOwn(root, 'keys')) {
    throw new KeyFileError(
      'missing_property',
      '/keys',
      'Required member "keys" is missing: a key file is {"keys": [...]}, or one key as a producer answers it ' +
        '({"issuer", "algorithm", "publicKey_b64" or "publicKey_hex"}, the typed signer\'s GET /pubkey).',
    );
  }
  const list = topLevelList(root, 'keys', ['note']);
  if (Object.hasOwn(root as JsonObject, 'note') && typeof (root as JsonObject)['note'] !== 'string') {
    throw new KeyFileError(
      'invalid_type',
      '/note',
      `"note" must be a string, got ${describeType((root as JsonObject)['note'])}.`,
    );
  }
  const seen = new Set<string>();
  return list.map((item, index) => {
    const entry = parseKeyEntry(item, `/keys/${index}`, options.advertised === true);
    if (seen.has(entry.key_id)) {
      throw new KeyFileError(
        'duplicate_key_id',
        `/keys/${index}/key_id`,
        `Key id ${quote(entry.key_id)} appears twice.`,
      );
    }
    seen.add(entry.key_id);
    return entry;
  });
}

/**
 * Member names that hold a private key in the shapes people save keys in (`privKeyB64u`,
 * `private_key`, `secretKey`, `seed_hex`, `sk`...), compared without case, `_` or `-`.
 */
const PRIVATE_MEMBER = /priv|secret|seed|^sk(?:b64u?|hex)?$/;

/**
 * Refuse a file that carries a private key, at the top level or in a `keys` entry: a key file
 * holds public keys only, and a private key passed where one is expected must not be used (nor
 * quietly dropped, leaving the user to believe the file was fine). A JWK's private member `d` counts
 * too. The message names the member, never its value.
 */
function refusePrivateKeys(root: JsonValue): void {
  const objects: [JsonObject, string][] = [];
  if (isJsonObject(root)) {
    objects.push([root, '']);
    const keys = root['keys'];
    if (Array.isArray(keys)) {
      for (const [index, item] of keys.entries()) if (isJsonObject(item)) objects.push([item, `/keys/${index}`]);
    }
  }
  for (const [object, path] of objects) {
    for (const name of Object.keys(object)) {
      const plain = name.toLowerCase().replace(/[-_]/g, '');
      if (PRIVATE_MEMBER.test(plain) || (name === 'd' && Object.hasOwn(object, 'kty'))) {
        throw new KeyFileError(
          'private_key',
          pointerAppend(path, name),
          `This file holds a private key (member ${quote(name)}); a key file lists public keys only. ` +
            'Nothing was read from it: keep the private key secret and give a file with its public key alone.',
        );
      }
    }
  }
}

/** Producers' spellings of the algorithms, compared without case, `-` or `_`. */
const ANSWER_ALGORITHMS: Readonly<Record<string, KeyAlgorithm>> = { ed25519: 'Ed25519', mldsa65: 'ML-DSA-65' };

/**
 * One key as a producer answers it (the typed signer's `GET /pubkey`): `issuer` is the key id,
 * `algorithm` in the producer's spelling (`ML-DSA-65`, `ml-dsa-65`, `Ed25519`), the key as standard
 * padded base64 `publicKey_b64` and/or hex `publicKey_hex` (both, if given, must be the same key),
 * and `publicKey_bytes`, when present, its length. Other members (`spec`, `signature_bytes`,
 * `note`...) describe the producer and bind nothing; they are ignored.
 */
function keyAnswerEntry(root: JsonObject): KeyEntry {
  const keyId = root['issuer'];
  const idProblem = keyIdProblem(keyId);
  if (idProblem !== undefined) {
    throw new KeyFileError('invalid_key_id', '/issuer', `"issuer" is not a key id: ${idProblem} ${KEY_ID_RULE}`);
  }
  const issuer = keyId as string;
  const spelled = root['algorithm'];
  if (spelled === undefined) {
    throw new KeyFileError('missing_property', '/algorithm', 'Required member "algorithm" is missing.');
  }
  const algorithm =
    typeof spelled === 'string' ? ANSWER_ALGORITHMS[spelled.toLowerCase().replace(/[-_]/g, '')] : undefined;
  if (algorithm === undefined) {
    throw new KeyFileError(
      'invalid_algorithm',
      '/algorithm',
      `"algorithm" must name ${KEY_ALGORITHMS.join(' or ')} (in any case, with or without hyphens).`,
    );
  }
  const length = PUBLIC_KEY_LENGTH[algorithm];
  const b64 = root['publicKey_b64'];
  const hex = root['publicKey_hex'];
  if (b64 === undefined && hex === undefined) {
    throw new KeyFileError(
      'missing_property',
      '/publicKey_b64',
      'The key is missing: give "publicKey_b64" (standard base64) or "publicKey_hex".',
    );
  }
  let fromB64: Uint8Array | undefined;
  if (b64 !== undefined) {
    fromB64 = decodeB64Field(b64, length);
    if (fromB64 === undefined) {
      throw new KeyFileError(
        'invalid_public_key',
        '/publicKey_b64',
        `"publicKey_b64" must be ${length} bytes (${algorithm}) as standard padded base64.`,
      );
    }
  }
  let fromHex: Uint8Array | undefined;
  if (hex !== undefined) {
    fromHex = typeof hex === 'string' && hex.length === 2 * length ? safeHex(hex) : undefined;
    if (fromHex === undefined) {
      throw new KeyFileError(
        'invalid_public_key',
        '/publicKey_hex',
        `"publicKey_hex" must be ${length} bytes (${algorithm}) as ${2 * length} hex digits.`,
      );
    }
  }
  if (fromB64 !== undefined && fromHex !== undefined && !equalBytes(fromB64, fromHex)) {
    throw new KeyFileError(
      'public_key_disagreement',
      '/publicKey_hex',
      '"publicKey_b64" and "publicKey_hex" are different keys; one answer names one key, so neither is used.',
    );
  }
  const publicKey = (fromB64 ?? fromHex) as Uint8Array;
  const stated = root['publicKey_bytes'];
  if (stated !== undefined && stated !== length) {
    throw new KeyFileError(
      'invalid_public_key',
      '/publicKey_bytes',
      `"publicKey_bytes" must be ${length}, the length of an ${algorithm} public key.`,
    );
  }
  if (issuer.startsWith('did:key:') && (algorithm !== 'Ed25519' || !equalBytes(ed25519FromDidKey(issuer), publicKey))) {
    throw new KeyFileError(
      'did_key_mismatch',
      fromB64 !== undefined ? '/publicKey_b64' : '/publicKey_hex',
      "A did:key id names its own Ed25519 public key; the answer's key must be that key.",
    );
  }
  return { key_id: issuer, algorithm, public_key: publicKey };
}

function safeHex(text: string): Uint8Array | undefined {
  try {
    return hexDecode(text);
  } catch {
    return undefined;
  }
}

/** One source of key entries, named for messages (a file, `the trust store`, `--keys`). */
export interface NamedKeySource {
  name: string;
  entries: readonly KeyEntry[];
}

/**
 * Refuse key sources that give one key_id different keys (PROTOCOL section 0).
 *
 * Within one file a repeated key_id is already refused by {@link parseKeyFile}; across files and
 * sources (the trust store, `--trust` files, `--keys` files) the same key_id may appear again only
 * as the same key (same algorithm and public key bytes; a trust store may list one key twice with
 * different windows). Otherwise which key a signature is checked against would depend on where
 * the keys came from, and the same document and keys could verify differently.
 *
 * @param sources - The sources, in the order they were given.
 * @throws TypeError if `sources` is not an array of sources.
 * @throws KeyFileError `key_conflict`, its path pointing into the later source's entry, its message
 *   naming both sources.
 */
export function checkKeySources(sources: readonly NamedKeySource[]): void {
  if (!Array.isArray(sources)) throw new TypeError('checkKeySources expects an array of key sources');
  const first = new Map<string, { source: string; entry: KeyEntry }>();
  for (const source of sources) {
    if (typeof source !== 'object' || source === null || !Array.isArray(source.entries)) {
      throw new TypeError('Each key source needs a name and an array of entries');
    }
    for (const [index, entry] of source.entries.entries()) {
      const earlier = first.get(entry.key_id);
      if (earlier === undefined) {
        first.set(entry.key_id, { source: source.name, entry });
        continue;
      }
      if (earlier.entry.algorithm !== entry.algorithm || !equalBytes(earlier.entry.public_key, entry.public_key)) {
        const where =
          earlier.source === source.name ? `twice in ${source.name}` : `in ${earlier.source} and in ${source.name}`;
        throw new KeyFileError(
          'key_conflict',
          `/keys/${index}/public_key`,
          `Key id ${quote(entry.key_id)} names different keys ${where}; one key id must name one key.`,
        );
      }
    }
  }
}

/**
 * Parse a secret file for sealed documents.
 *
 * Secret ids are names matched exactly (printable ASCII, no spaces, at most
 * {@link MAX_SECRET_ID_LENGTH} characters) and unique within the file; each key is 32 bytes of
 * b64u.
 *
 * @param text - The file's text.
 * @returns The secrets, in file order.
 * @throws TypeError if `text` is not a string.
 * @throws KeyFileError naming the first problem and its JSON Pointer.
 */
export function parseSecretsFile(text: string): SecretEntry[] {
  if (typeof text !== 'string') throw new TypeError('parseSecretsFile expects the file text as a string');
  const list = topLevelList(parseStrict(text), 'secrets', []);
  const seen = new Set<string>();
  return list.map((item, index) => {
    const path = `/secrets/${index}`;
    const object = expectObject(item, path);
    checkMembers(object, path, ['key_id', 'key'], ['key_id', 'key']);
    const keyId = object['key_id'];
    if (!isSecretId(keyId)) {
      throw new KeyFileError(
        'invalid_key_id',
        `${path}/key_id`,
        `"key_id" must be 1 to ${MAX_SECRET_ID_LENGTH} printable ASCII characters without spaces.`,
      );
    }
    if (seen.has(keyId)) {
      throw new KeyFileError('duplicate_key_id', `${path}/key_id`, `Secret id ${quote(keyId)} appears twice.`);
    }
    seen.add(keyId);
    const key = decodeB64uField(object['key'], 32);
    if (key === undefined) {
      throw new KeyFileError('invalid_secret', `${path}/key`, '"key" must be 32 bytes as unpadded base64url.');
    }
    return { key_id: keyId, key };
  });
}

/**
 * Whether a value is a well-formed secret id (see {@link parseSecretsFile}).
 *
 * @param value - Anything.
 * @returns True for a usable secret id.
 */
export function isSecretId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_SECRET_ID_LENGTH && SECRET_ID_PATTERN.test(value);
}

/**
 * Write key entries as a key file, two-space indented, members in a fixed order.
 *
 * The result parses back with {@link parseKeyFile} to equal entries.
 *
 * @param entries - The entries.
 * @returns The file text, ending with a newline.
 * @throws TypeError if `entries` is not an array of key entries.
 */
export function serializeKeyFile(entries: readonly KeyEntry[]): string {
  if (!Array.isArray(entries)) throw new TypeError('serializeKeyFile expects an array of key entries');
  const keys = entries.map((entry) => {
    if (typeof entry !== 'object' || entry === null || !(entry.public_key instanceof Uint8Array)) {
      throw new TypeError('Each key entry needs a Uint8Array public_key');
    }
    const out: JsonObject = {
      key_id: entry.key_id,
      algorithm: entry.algorithm,
      public_key: b64uEncode(entry.public_key),
    };
    if (entry.label !== undefined) out['label'] = entry.label;
    if (entry.not_before !== undefined) out['not_before'] = entry.not_before;
    if (entry.not_after !== undefined) out['not_after'] = entry.not_after;
    if (entry.status !== undefined) out['status'] = entry.status;
    if (entry.roles !== undefined) out['roles'] = [...entry.roles];
    return out;
  });
  return `${JSON.stringify({ keys }, null, 2)}\n`;
}

function parseKeyEntry(item: JsonValue, path: string, advertised: boolean): KeyEntry {
  const object = expectObject(item, path);
  checkMembers(object, path, ['key_id', 'algorithm', 'public_key'], KEY_MEMBERS);
  const idProblem = keyIdProblem(object['key_id']);
  if (idProblem !== undefined) {
    throw new KeyFileError('invalid_key_id', `${path}/key_id`, `"key_id" is not a key id: ${idProblem} ${KEY_ID_RULE}`);
  }
  const keyId = object['key_id'] as string;
  const algorithm = object['algorithm'];
  if (typeof algorithm !== 'string' || !(KEY_ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw new KeyFileError(
      'invalid_algorithm',
      `${path}/algorithm`,
      `"algorithm" must be one of ${KEY_ALGORITHMS.join(', ')}.`,
    );
  }
  const keyAlgorithm = algorithm as KeyAlgorithm;
  const length = PUBLIC_KEY_LENGTH[keyAlgorithm];
  const publicKey = decodeB64uField(object['public_key'], length);
  if (publicKey === undefined) {
    throw new KeyFileError(
      'invalid_public_key',
      `${path}/public_key`,
      `"public_key" must be ${length} bytes (${keyAlgorithm}) as unpadded base64url.`,
    );
  }
  if (keyId.startsWith('did:key:')) {
    if (keyAlgorithm !== 'Ed25519' || !equalBytes(ed25519FromDidKey(keyId), publicKey)) {
      throw new KeyFileError(
        'did_key_mismatch',
        `${path}/public_key`,
        'A did:key id names its own Ed25519 public key; "public_key" must be that key.',
      );
    }
  }
  const entry: KeyEntry = { key_id: keyId, algorithm: keyAlgorithm, public_key: publicKey };
  for (const bound of ['not_before', 'not_after'] as const) {
    const value = object[bound];
    if (value === undefined) continue;
    if (!isTimestamp(value)) {
      throw new KeyFileError(
        'invalid_timestamp',
        `${path}/${bound}`,
        `"${bound}" must be a timestamp YYYY-MM-DDThh:mm:ss[.fff]Z.`,
      );
    }
    entry[bound] = value;
  }
  if (entry.not_before !== undefined && entry.not_after !== undefined) {
    if (timestampToMillis(entry.not_before) > timestampToMillis(entry.not_after)) {
      throw new KeyFileError('invalid_window', `${path}/not_after`, '"not_after" is before "not_before".');
    }
  }
  const label = object['label'];
  if (label !== undefined) {
    if (typeof label !== 'string' || label.length > MAX_LABEL_LENGTH) {
      throw new KeyFileError(
        'invalid_label',
        `${path}/label`,
        `"label" must be a string of at most ${MAX_LABEL_LENGTH} characters.`,
      );
    }
    if (!advertised) entry.label = label;
  }
  const status = object['status'];
  if (status !== undefined) {
    if (advertised) {
      if (typeof status !== 'string') {
        throw new KeyFileError(
          'invalid_status',
          `${path}/status`,
          `"status" must be a string, got ${describeType(status)}.`,
        );
      }
    } else if (status === 'pinned' || status === 'revoked') {
      entry.status = status;
    } else {
      throw new KeyFileError('invalid_status', `${path}/status`, '"status" must be "pinned" or "revoked".');
    }
  }
  const roles = object['roles'];
  if (roles !== undefined) {
    const parsed = parseRoles(roles, `${path}/roles`);
    // Roles narrow what a pinned key vouches for; a key that is only given vouches for nothing.
    if (!advertised) entry.roles = parsed;
  }
  const use = object['use'];
  if (use !== undefined && (!Array.isArray(use) || use.some((item) => typeof item !== 'string'))) {
    throw new KeyFileError('invalid_use', `${path}/use`, '"use" must be an array of strings.');
  }
  for (const member of ['note_key_name', 'vkey']) {
    const value = object[member];
    if (value !== undefined && typeof value !== 'string')
      throw new KeyFileError('invalid_use', `${path}/${member}`, `"${member}" must be a string.`);
  }
  return entry;
}

/** `roles`: a non-empty array of distinct role names from {@link SIGNER_ROLES}. */
function parseRoles(value: JsonValue, path: string): SignerRole[] {
  const allowed = SIGNER_ROLES as readonly string[];
  if (!Array.isArray(value) || value.length === 0 || value.length > allowed.length) {
    throw new KeyFileError(
      'invalid_roles',
      path,
      `"roles" must be a non-empty array of role names (${SIGNER_ROLES.join(', ')}).`,
    );
  }
  const roles: SignerRole[] = [];
  for (const [index, role] of value.entries()) {
    if (typeof role !== 'string' || !allowed.includes(role)) {
      throw new KeyFileError('invalid_roles', `${path}/${index}`, `A role must be one of ${SIGNER_ROLES.join(', ')}.`);
    }
    if (roles.includes(role as SignerRole)) {
      throw new KeyFileError('invalid_roles', `${path}/${index}`, `Role ${quote(role)} appears twice.`);
    }
    roles.push(role as SignerRole);
  }
  return roles;
}

function parseStrict(text: string): JsonValue {
  try {
    return toPlain(parseJsonTree(text));
  } catch (error) {
    if (error instanceof JsonParseError) {
      throw new KeyFileError(error.code, error.path, `Not strict JSON: ${error.message}`);
    }
    throw error;
  }
}

function topLevelList(root: JsonValue, name: string, extra: readonly string[]): JsonValue[] {
  const object = expectObject(root, '');
  checkMembers(object, '', [name], [name, ...extra]);
  const list = object[name];
  if (!Array.isArray(list)) {
    throw new KeyFileError('invalid_type', `/${name}`, `"${name}" must be an array, got ${describeType(list)}.`);
  }
  return list;
}

function expectObject(value: JsonValue, path: string): JsonObject {
  if (!isJsonObject(value)) {
    throw new KeyFileError(
      'invalid_type',
      path,
      `Expected an object at ${path === '' ? 'the top level' : path}, got ${describeType(value)}.`,
    );
  }
  return value;
}

function checkMembers(object: JsonObject, path: string, required: readonly string[], allowed: readonly string[]): void {
  for (const name of required) {
    if (!Object.hasOwn(object, name)) {
      throw new KeyFileError('missing_property', pointerAppend(path, name), `Required member "${name}" is missing.`);
    }
  }
  for (const name of Object.keys(object)) {
    if (!allowed.includes(name)) {
      throw new KeyFileError('unknown_property', pointerAppend(path, name), `Unknown member ${quote(name)}.`);
    }
  }
}
