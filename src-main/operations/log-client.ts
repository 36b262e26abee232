/**
 * A client of a service's transparency-log routes (issue 28; docs/logs.md): a tenant's newest
 * checkpoint, a consistency proof between two of its sizes, the service's log key from
 * `/v1/keys`, and a witness's cosignature sent back.
 *
 * The rules of the other clients of the service apply (src-main/operations/anchor-client.ts): an
 * http(s) URL without credentials, a key never sent over plain http except to a loopback host,
 * no redirect followed, answers over 1 MiB refused, a time limit per call, PROTOCOL 10's error
 * answers told as they came. Every answer is checked for the shape the service documents before
 * anything is done with it. The API key is never put in a message, an error or a log.
 */
import { b64uDecode, hexDecode, utf8Decode } from '../../src-shared/crypto';
import { NOTE_ED25519, parseVkey } from '../../src-shared/crypto/signed-note';
import { isTenantId, TENANT_ID_RULE } from '../../src-shared/api/vocabulary';
import type { JsonValue } from '../../src-shared/json/types';
import { AnchorServiceError, checkApiUrl, DEFAULT_TIMEOUT_MS, isApiKey, serviceCall } from './anchor-client';
import { OperationError } from './errors';
import { nodeCrypto } from './workspace';

/** Where and as whom to call. */
export interface LogServiceOptions {
  /** The service's base URL. */
  apiUrl: string;
  /** The tenant whose log it is. */
  tenant: string;
  /** The tenant's API key (`svc_<tier>_...`); never printed. */
  apiKey: string;
  /** Per call; default 30 s. */
  timeoutMs?: number;
}

/** A log key as `/v1/keys` advertises it. */
export interface ServiceLogKey {
  key_id: string;
  public_key: Uint8Array;
  /** The note key name its checkpoints are signed under. */
  note_key_name: string;
  /** `NAME+hex8+base64(0x01||key)`. */
  vkey: string;
  status: string;
}

type JsonObject = { [name: string]: JsonValue };

const HASH_HEX = /^[0-9a-f]{64}$/;
/** The most hashes a consistency proof of a safe-integer tree can have, with room. */
const MAX_PROOF_HASHES = 128;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unexpected(status: number, why: string): AnchorServiceError {
  return new AnchorServiceError(status, 'unexpected_answer', `The service's answer ${why}.`);
}

function checkOptions(options: LogServiceOptions): {
  base: string;
  tenantPath: string;
  headers: Record<string, string>;
} {
  if (!isTenantId(options.tenant))
    throw new OperationError(
      'invalid_input',
      'invalid_tenant',
      `A tenant id is ${TENANT_ID_RULE}, not ${JSON.stringify(String(options.tenant).slice(0, 80))}.`,
    );
  if (!isApiKey(options.apiKey))
    throw new OperationError(
      'invalid_input',
      'invalid_api_key',
      'The API key must be svc_<tier>_ and base64url characters.',
    );
  const base = checkApiUrl(options.apiUrl, true);
  return {
    base,
    tenantPath: `${base}/tenants/${encodeURIComponent(options.tenant)}/log`,
    headers: { authorization: `Bearer ${options.apiKey}` },
  };
}

function textOf(status: number, bytes: Uint8Array, what: string): string {
  try {
    return utf8Decode(bytes);
  } catch {
    throw unexpected(status, `to ${what} is not UTF-8 text`);
  }
}

/**
 * A tenant's newest checkpoint as the service serves it: `GET /tenants/T/log/checkpoint`, the
 * signed note with the cosignature lines the service was given. Not checked here beyond being
 * text: the caller parses and verifies it.
 *
 * @throws OperationError for a bad URL, tenant or key; AnchorServiceError for no answer, an
 *   error answer, or one that is not text.
 */
export async function fetchLogCheckpoint(options: LogServiceOptions): Promise<string> {
  const { tenantPath, headers } = checkOptions(options);
  const { status, bytes, contentType } = await serviceCall(
    `${tenantPath}/checkpoint`,
    { method: 'GET', headers: { ...headers, accept: 'text/plain' } },
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  if (!contentType.toLowerCase().startsWith('text/plain'))
    throw unexpected(status, `to GET …/log/checkpoint is ${contentType || 'untyped'}, not a text/plain signed note`);
  return textOf(status, bytes, 'GET …/log/checkpoint');
}

/**
 * A consistency proof between two sizes of a tenant's log: `GET /tenants/T/log/consistency`.
 *
 * @returns The proof's hashes, checked to be `{from, to, hashes: [hex]}` of the sizes asked.
 * @throws OperationError for bad options; AnchorServiceError for an error or malformed answer.
 */
export async function fetchLogConsistency(
  options: LogServiceOptions & { from: number; to: number },
): Promise<Uint8Array[]> {
  if (
    !Number.isSafeInteger(options.from) ||
    !Number.isSafeInteger(options.to) ||
    options.from < 0 ||
    options.from > options.to
  )
    throw new RangeError('fetchLogConsistency expects sizes 0 <= from <= to');
  const { tenantPath, headers } = checkOptions(options);
  const { status, body } = await serviceCall(
    `${tenantPath}/consistency?from=${options.from}&to=${options.to}`,
    { method: 'GET', headers: { ...headers, accept: 'application/json' } },
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  const what = `to GET …/log/consistency?from=${options.from}&to=${options.to}`;
  if (!isObject(body)) throw unexpected(status, `${what} is not a JSON object`);
  if (body['from'] !== options.from || body['to'] !== options.to)
    throw unexpected(status, `${what} is for other sizes (from ${String(body['from'])}, to ${String(body['to'])})`);
  const hashes = body['hashes'];
  if (!Array.isArray(hashes) || hashes.length > MAX_PROOF_HASHES)
    throw unexpected(status, `${what} has no list of hashes`);
  return hashes.map((hash, index) => {
    if (typeof hash !== 'string' || !HASH_HEX.test(hash))
      throw unexpected(status, `${what} has hashes/${index} that is not 64 lowercase hex digits`);
    return hexDecode(hash);
  });
}

/**
 * The log keys a service advertises: the entries of `GET /v1/keys` whose `use` lists
 * `log-checkpoints`, each with its note key name and a vkey that names the same key. Advertised
 * is not trusted: the caller says which it used.
 *
 * @throws OperationError for a bad URL; AnchorServiceError for an error or malformed answer.
 */
export async function fetchServiceLogKeys(apiUrl: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<ServiceLogKey[]> {
  const base = checkApiUrl(apiUrl, false);
  const { status, body } = await serviceCall(
    `${base}/v1/keys`,
    { method: 'GET', headers: { accept: 'application/json' } },
    timeoutMs,
  );
  if (!isObject(body) || !Array.isArray(body['keys'])) throw unexpected(status, 'to GET /v1/keys has no list of keys');
  const sha256 = (data: Uint8Array): Uint8Array => nodeCrypto().sha256(data);
  const found: ServiceLogKey[] = [];
  body['keys'].forEach((entry, index) => {
    if (!isObject(entry) || !Array.isArray(entry['use']) || !entry['use'].includes('log-checkpoints')) return;
    const where = `to GET /v1/keys at /keys/${index}`;
    const { key_id: keyId, algorithm, public_key: publicKey, note_key_name: name, vkey, status: keyStatus } = entry;
    if (typeof keyId !== 'string' || keyId.length === 0 || keyId.length > 512)
      throw unexpected(status, `${where} has no key_id`);
    if (algorithm !== 'Ed25519') throw unexpected(status, `${where} is a log key that is not Ed25519`);
    let bytes: Uint8Array;
    try {
      bytes = b64uDecode(String(publicKey));
    } catch {
      throw unexpected(status, `${where} has a public_key that is not base64url`);
    }
    if (bytes.length !== 32) throw unexpected(status, `${where} has a public_key that is not 32 bytes`);
    if (typeof name !== 'string' || typeof vkey !== 'string')
      throw unexpected(status, `${where} is a log key without note_key_name and vkey`);
    let parsed: ReturnType<typeof parseVkey>;
    try {
      parsed = parseVkey(sha256, vkey);
    } catch {
      throw unexpected(status, `${where} has a vkey that is not one (NAME+hex8+base64)`);
    }
    if (
      parsed.name !== name ||
      parsed.type !== NOTE_ED25519 ||
      Buffer.compare(Buffer.from(parsed.publicKey), Buffer.from(bytes)) !== 0
    )
      throw unexpected(status, `${where} has a vkey that names another key than public_key and note_key_name`);
    found.push({
      key_id: keyId,
      public_key: bytes,
      note_key_name: name,
      vkey,
      status: typeof keyStatus === 'string' ? keyStatus : 'active',
    });
  });
  return found;
}

/**
 * Gives a checkpoint with a witness's cosignature line to the service:
 * `POST /tenants/T/log/cosignatures` `{vkey, checkpoint}`.
 *
 * @returns The checkpoint as the service now serves it (text).
 * @throws OperationError for bad options; AnchorServiceError for an error or malformed answer.
 */
export async function postLogCosignature(
  options: LogServiceOptions & { vkey: string; checkpoint: string },
): Promise<string> {
  const { tenantPath, headers } = checkOptions(options);
  const { status, body, bytes, contentType } = await serviceCall(
    `${tenantPath}/cosignatures`,
    {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'text/plain, application/json' },
      body: JSON.stringify({ vkey: options.vkey, checkpoint: options.checkpoint }),
    },
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  if (contentType.toLowerCase().startsWith('text/plain')) return textOf(status, bytes, 'POST …/log/cosignatures');
  if (isObject(body) && typeof body['checkpoint'] === 'string') return body['checkpoint'];
  throw unexpected(status, 'to POST …/log/cosignatures is neither the checkpoint as text nor {checkpoint}');
}
