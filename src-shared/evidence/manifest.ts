/**
 * An evidence bundle's manifest.json and manifest.sig (PROTOCOL section 9).
 *
 * The isomorphic copy of src-main/evidence/manifest.ts, byte for byte the same rules, so the
 * browser reference verifier and the import judge a manifest alike (src-main/evidence is to
 * switch to this module).
 *
 * manifest.json: `{bundle_format: "evroom.evidence/1", tenant_id, generated_at, key_id,
 * files: [{path, sha256, bytes}], counts}`. manifest.sig: `{key_id, algorithm: "Ed25519",
 * manifest_sha256, sig_b64u}` where manifest_sha256 is the hex SHA-256 of the stored
 * manifest.json bytes and sig_b64u an Ed25519 signature over those 32 digest bytes.
 *
 * Decisions (written into docs/protocol.md by the lead):
 * - manifest.json is parsed strictly (PROTOCOL section 0) and every member is required; unknown
 *   members are refused. A manifest that fails is a refusal (`manifest_invalid`, with a JSON
 *   Pointer): without a trustworthy file list nothing in the bundle can be checked.
 * - `files` lists every file of the bundle except manifest.json and manifest.sig themselves,
 *   each path once (also after case folding), with the same path rules as zip entries.
 * - `counts` is an object of non-negative integers; `receipts` and `anchors`, when present, are
 *   the number of receipts/ files and of anchor records. A disagreement is a finding, not a
 *   refusal.
 * - manifest.sig problems (missing, malformed, digest or key id not matching, no key, bad
 *   signature) are findings: the receipts inside are still verified one by one.
 */
import type { SignatureCheck } from '../api/vocabulary';
import { isHex64, b64uEncode, hexDecode, hexEncode } from '../crypto';
import type { CryptoProvider } from '../crypto';
import { JsonParseError, parseJsonBytes } from '../json';
import type { JsonNode, JsonObjectNode } from '../json/types';
import type { VerifyContext } from '../verify/context';
import { decodeB64uField, isPlainNonNegativeInteger } from '../verify/fields';
import { findKeyById, isKeyId, keyIdProblem } from '../verify/keys';
import { attributedTrust, type TrustResult } from '../verify/report';
import { isTimestamp } from '../verify/timestamp';
import { BundleError, printableName } from './errors';
import { checkEntryName, foldEntryName } from './entry-names';

/** The one bundle format this program reads and writes. */
export const BUNDLE_FORMAT = 'evroom.evidence/1';
/** The manifest's name at the top of the zip. */
export const MANIFEST_NAME = 'manifest.json';
/** The manifest signature's name at the top of the zip. */
export const SIGNATURE_NAME = 'manifest.sig';
/**
 * The longest `tenant_id` a manifest may carry.
 *
 * A manifest's tenant is a label, not the service's tenant id (src-shared/api/vocabulary.ts,
 * TENANT_ID_PATTERN: 1 to 64 of A-Z a-z 0-9 . _ -). On purpose: bundles come from other services
 * and other programs, whose tenants PROTOCOL section 9 does not spell, and `evroom export --tenant`
 * names the exporter freely; the label is only shown and signed, never put in a URL or a file
 * name, so any printable text up to this length is read.
 */
export const MAX_MANIFEST_TENANT_ID_LENGTH = 256;
/** Control characters: a label holding one could hide what it says. */
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Whether a value may be a manifest's `tenant_id`: 1 to {@link MAX_MANIFEST_TENANT_ID_LENGTH}
 * characters, no control characters.
 *
 * @param value - Anything.
 * @returns True for such a string.
 */
export function isManifestTenantId(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_MANIFEST_TENANT_ID_LENGTH &&
    !CONTROL_CHARACTER.test(value)
  );
}

/** One file the manifest lists. */
export interface ManifestFile {
  path: string;
  /** HEX64 of the file's bytes as stored (inflated). */
  sha256: string;
  bytes: number;
}

/** A parsed, checked manifest. */
export interface Manifest {
  bundle_format: typeof BUNDLE_FORMAT;
  tenant_id: string;
  /** TS. */
  generated_at: string;
  key_id: string;
  files: ManifestFile[];
  counts: Record<string, number>;
}

/** A parsed manifest.sig. */
export interface ManifestSignature {
  key_id: string;
  algorithm: 'Ed25519';
  manifest_sha256: string;
  sig_b64u: string;
}

/** The outcome of checking manifest.sig (the one shape: src-shared/api/vocabulary.ts). */
export type { SignatureCheck } from '../api/vocabulary';

const MANIFEST_MEMBERS = ['bundle_format', 'tenant_id', 'generated_at', 'key_id', 'files', 'counts'];
const FILE_MEMBERS = ['path', 'sha256', 'bytes'];
const SIGNATURE_MEMBERS = ['key_id', 'algorithm', 'manifest_sha256', 'sig_b64u'];
const COUNT_NAME = /^[a-z][a-z0-9_]{0,63}$/;

function invalid(path: string, message: string): BundleError {
  return new BundleError('manifest_invalid', `manifest.json${path === '' ? '' : ` at ${path}`}: ${message}`, {
    entry: MANIFEST_NAME,
    path,
  });
}

/** An object's members by name, or the first problem with its JSON Pointer. */
function memberMap(
  node: JsonNode,
  path: string,
  names: readonly string[],
): { map: Map<string, JsonNode> } | { path: string; message: string } {
  if (node.type !== 'object') {
    return { path, message: `expected an object, found ${node.type === 'array' ? 'an array' : `a ${node.type}`}.` };
  }
  const map = new Map<string, JsonNode>();
  for (const [name, value] of (node as JsonObjectNode).members) {
    if (!names.includes(name))
      return {
        path: `${path}/${escapeToken(name)}`,
        message: `unknown member ${JSON.stringify(printableName(name))}.`,
      };
    map.set(name, value);
  }
  for (const name of names) {
    if (!map.has(name)) return { path: `${path}/${name}`, message: `required member "${name}" is missing.` };
  }
  return { map };
}

function members(node: JsonNode, path: string, names: readonly string[]): Map<string, JsonNode> {
  const result = memberMap(node, path, names);
  if ('map' in result) return result.map;
  throw invalid(result.path, result.message);
}

function escapeToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

function stringMember(node: JsonNode | undefined, path: string): string {
  if (node === undefined || node.type !== 'string') throw invalid(path, 'expected a string.');
  return node.value;
}

/**
 * Parse and check manifest.json.
 *
 * @param bytes - manifest.json exactly as stored.
 * @returns The manifest.
 * @throws BundleError manifest_unsupported_format for another bundle_format; manifest_invalid
 *   (with `path`) for anything else wrong.
 */
export function parseManifest(bytes: Uint8Array): Manifest {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('parseManifest expects the manifest bytes');
  let tree: JsonNode;
  try {
    tree = parseJsonBytes(bytes);
  } catch (error) {
    if (error instanceof JsonParseError) {
      throw invalid(error.path, `not strict JSON (${error.code}): ${error.message}`);
    }
    throw error;
  }
  // The format is checked first: a later format may change everything else.
  if (tree.type === 'object') {
    const format = tree.members.find(([name]) => name === 'bundle_format')?.[1];
    if (format !== undefined && !(format.type === 'string' && format.value === BUNDLE_FORMAT)) {
      throw new BundleError(
        'manifest_unsupported_format',
        `manifest.json declares bundle_format ${format.type === 'string' ? JSON.stringify(printableName(format.value)) : `of type ${format.type}`}; ` +
          `this program reads "${BUNDLE_FORMAT}".`,
        { entry: MANIFEST_NAME, path: '/bundle_format' },
      );
    }
  }
  const top = members(tree, '', MANIFEST_MEMBERS);
  const tenantId = stringMember(top.get('tenant_id'), '/tenant_id');
  if (!isManifestTenantId(tenantId)) {
    throw invalid('/tenant_id', `must be 1 to ${MAX_MANIFEST_TENANT_ID_LENGTH} characters without control characters.`);
  }
  const generatedAt = stringMember(top.get('generated_at'), '/generated_at');
  if (!isTimestamp(generatedAt)) throw invalid('/generated_at', 'must be a timestamp YYYY-MM-DDThh:mm:ss[.fff]Z.');
  const keyId = stringMember(top.get('key_id'), '/key_id');
  const keyIdError = keyIdProblem(keyId);
  if (keyIdError !== undefined) throw invalid('/key_id', `is not a key id: ${keyIdError}`);
  const filesNode = top.get('files') as JsonNode;
  if (filesNode.type !== 'array') throw invalid('/files', 'expected an array.');
  const files: ManifestFile[] = [];
  const seen = new Map<string, string>();
  filesNode.items.forEach((item, index) => {
    const path = `/files/${index}`;
    const file = members(item, path, FILE_MEMBERS);
    const name = stringMember(file.get('path'), `${path}/path`);
    try {
      checkEntryName(name);
    } catch (error) {
      if (error instanceof BundleError) throw invalid(`${path}/path`, `not a usable path: ${error.message}`);
      throw error;
    }
    if (name.endsWith('/')) throw invalid(`${path}/path`, 'names a directory; only files are listed.');
    if (name === MANIFEST_NAME || name === SIGNATURE_NAME) {
      throw invalid(`${path}/path`, `lists ${name}, which cannot list or sign itself.`);
    }
    const folded = foldEntryName(name);
    const earlier = seen.get(folded);
    if (earlier !== undefined) {
      throw invalid(
        `${path}/path`,
        `lists "${printableName(name)}" twice${earlier === name ? '' : ` (as "${printableName(earlier)}")`}.`,
      );
    }
    seen.set(folded, name);
    const sha256 = stringMember(file.get('sha256'), `${path}/sha256`);
    if (!isHex64(sha256)) throw invalid(`${path}/sha256`, 'must be 64 lowercase hex characters.');
    const bytesNode = file.get('bytes');
    if (!isPlainNonNegativeInteger(bytesNode)) throw invalid(`${path}/bytes`, 'must be a non-negative integer.');
    files.push({ path: name, sha256, bytes: (bytesNode as { value: number }).value });
  });
  const countsNode = top.get('counts') as JsonNode;
  if (countsNode.type !== 'object') throw invalid('/counts', 'expected an object.');
  const counts: Record<string, number> = {};
  for (const [name, value] of countsNode.members) {
    if (!COUNT_NAME.test(name))
      throw invalid(`/counts/${escapeToken(name)}`, 'count names are lowercase words joined by "_".');
    if (!isPlainNonNegativeInteger(value)) throw invalid(`/counts/${name}`, 'must be a non-negative integer.');
    counts[name] = (value as { value: number }).value;
  }
  return { bundle_format: BUNDLE_FORMAT, tenant_id: tenantId, generated_at: generatedAt, key_id: keyId, files, counts };
}

/**
 * Write a manifest as manifest.json text: two-space indented, one file per line.
 *
 * @param manifest - The manifest.
 * @returns The text, ending with a newline; parses back with {@link parseManifest}.
 */
export function serializeManifest(manifest: Manifest): string {
  if (typeof manifest !== 'object' || manifest === null || !Array.isArray(manifest.files)) {
    throw new TypeError('serializeManifest expects a manifest');
  }
  const lines = [
    '{',
    `  "bundle_format": ${JSON.stringify(manifest.bundle_format)},`,
    `  "tenant_id": ${JSON.stringify(manifest.tenant_id)},`,
    `  "generated_at": ${JSON.stringify(manifest.generated_at)},`,
    `  "key_id": ${JSON.stringify(manifest.key_id)},`,
  ];
  if (manifest.files.length === 0) {
    lines.push('  "files": [],');
  } else {
    lines.push('  "files": [');
    manifest.files.forEach((file, index) => {
      const comma = index + 1 < manifest.files.length ? ',' : '';
      lines.push(
        `    {"path": ${JSON.stringify(file.path)}, "sha256": "${file.sha256}", "bytes": ${file.bytes}}${comma}`,
      );
    });
    lines.push('  ],');
  }
  lines.push(`  "counts": ${JSON.stringify(manifest.counts)}`, '}', '');
  return lines.join('\n');
}

/**
 * Sign manifest.json's bytes.
 *
 * @param manifestBytes - manifest.json exactly as it will be stored.
 * @param seed - The 32-byte Ed25519 seed.
 * @param keyId - The key's id.
 * @param crypto - The crypto provider.
 * @returns manifest.sig's content.
 */
export function signManifest(
  manifestBytes: Uint8Array,
  seed: Uint8Array,
  keyId: string,
  crypto: CryptoProvider,
): ManifestSignature {
  if (!(manifestBytes instanceof Uint8Array)) throw new TypeError('signManifest expects the manifest bytes');
  if (!isKeyId(keyId)) throw new TypeError('signManifest: keyId is not a key id');
  const digest = crypto.sha256(manifestBytes);
  return {
    key_id: keyId,
    algorithm: 'Ed25519',
    manifest_sha256: hexEncode(digest),
    sig_b64u: b64uEncode(crypto.ed25519Sign(digest, seed)),
  };
}

/**
 * Write manifest.sig text.
 *
 * @param signature - The signature.
 * @returns JSON text with a newline.
 */
export function serializeManifestSignature(signature: ManifestSignature): string {
  return `${JSON.stringify(
    {
      key_id: signature.key_id,
      algorithm: signature.algorithm,
      manifest_sha256: signature.manifest_sha256,
      sig_b64u: signature.sig_b64u,
    },
    null,
    2,
  )}\n`;
}

const NO_KEY: TrustResult = { status: 'not_applicable', detail: 'No key was used.' };

/**
 * Check manifest.sig against manifest.json.
 *
 * The key is found as for any document (PROTOCOL section 0): the trust store (pinned), a
 * did:key, then the keys that came with the bundle (advertised, trust `unpinned`).
 *
 * @param manifestBytes - manifest.json exactly as stored.
 * @param signatureBytes - manifest.sig's bytes, or undefined when the bundle has none.
 * @param ctx - Crypto and keys.
 * @returns The outcome; never throws for bad input bytes.
 */
export function checkManifestSignature(
  manifestBytes: Uint8Array,
  signatureBytes: Uint8Array | undefined,
  ctx: VerifyContext,
): SignatureCheck {
  const digest = ctx.crypto.sha256(manifestBytes);
  const manifestSha256 = hexEncode(digest);
  if (signatureBytes === undefined) {
    return {
      status: 'missing',
      trust: NO_KEY,
      manifest_sha256: manifestSha256,
      detail: 'The bundle has no manifest.sig.',
    };
  }
  const malformed = (why: string): SignatureCheck => ({
    status: 'malformed',
    trust: NO_KEY,
    manifest_sha256: manifestSha256,
    detail: `manifest.sig is malformed: ${why}`,
  });
  let tree: JsonNode;
  try {
    tree = parseJsonBytes(signatureBytes);
  } catch (error) {
    if (error instanceof JsonParseError) return malformed(`not strict JSON (${error.code} at ${error.path || '/'}).`);
    throw error;
  }
  const result = memberMap(tree, '', SIGNATURE_MEMBERS);
  if (!('map' in result)) return malformed(`${result.path === '' ? 'the top level' : result.path}: ${result.message}`);
  const fields = result.map;
  const text = (name: string): string | undefined => {
    const node = fields.get(name);
    return node?.type === 'string' ? node.value : undefined;
  };
  const keyId = text('key_id');
  if (keyId === undefined || !isKeyId(keyId)) return malformed('"key_id" is not a key id.');
  const algorithm = text('algorithm');
  const claimed = text('manifest_sha256');
  if (claimed === undefined || !isHex64(claimed))
    return malformed('"manifest_sha256" must be 64 lowercase hex characters.');
  const signature = decodeB64uField(text('sig_b64u'), 64);
  if (algorithm !== 'Ed25519') {
    if (algorithm === undefined) return malformed('"algorithm" must be a string.');
    return {
      status: 'unsupported',
      key_id: keyId,
      trust: NO_KEY,
      manifest_sha256: manifestSha256,
      detail: `manifest.sig uses algorithm ${JSON.stringify(printableName(algorithm))}; bundles are signed with Ed25519.`,
    };
  }
  if (signature === undefined) return malformed('"sig_b64u" must be a 64-byte signature as unpadded base64url.');
  if (claimed !== manifestSha256) {
    return {
      status: 'mismatch',
      key_id: keyId,
      trust: NO_KEY,
      manifest_sha256: manifestSha256,
      detail: `manifest.sig covers a manifest with SHA-256 ${claimed}, but manifest.json has SHA-256 ${manifestSha256}.`,
    };
  }
  const key = findKeyById(keyId, ctx);
  if (key === undefined) {
    return {
      status: 'unavailable',
      key_id: keyId,
      trust: { status: 'unpinned', key_id: keyId, detail: `No key was found for ${keyId}.` },
      manifest_sha256: manifestSha256,
      detail: `No key for ${keyId} is pinned, decodable or listed in keys/service-keys.json; the signature was not checked.`,
    };
  }
  if (key.algorithm !== 'Ed25519') {
    return {
      status: 'unsupported',
      key_id: keyId,
      trust: key.trust,
      manifest_sha256: manifestSha256,
      detail: `The key ${keyId} is ${key.algorithm}; manifest signatures are Ed25519.`,
    };
  }
  const valid = ctx.crypto.ed25519Verify(signature, hexDecode(manifestSha256), key.public_key);
  return {
    status: valid ? 'valid' : 'invalid',
    key_id: keyId,
    // Trust is judged only for a signature that verifies (PROTOCOL 1): a manifest signature that
    // fails is unattributed, whatever the key it names is to the trust store.
    trust: valid ? key.trust : attributedTrust('INVALID', { status: key.trust.status, key_id: keyId }),
    manifest_sha256: manifestSha256,
    detail: valid
      ? `The manifest signature verifies under ${keyId} (${key.source}, trust ${key.trust.status}).`
      : `The manifest signature does not verify under ${keyId} (${key.source}).`,
  };
}
