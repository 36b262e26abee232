/**
 * Issuance: build and sign a document of any format from caller fields, and refuse to hand out
 * one the verifier would not accept.
 *
 * Each format says how its documents are built (its issuers in src-shared/formats/<name>/
 * issue.ts, listed through the registry); this engine does what is the same for every format:
 * finds the issuer, reads the fields, checks the signers and the key id, picks the secret, runs
 * the issuer with the node provider and the clock, and verifies the result with the public keys
 * of the keys that signed it. Every door (the CLI's `evroom sign`, the app API) calls
 * {@link issueDocument} and renders its {@link OperationError}s its own way.
 *
 * Decisions:
 * - Fields are parsed strictly (PROTOCOL section 0). Integers beyond 2^53 and decimals a double
 *   cannot hold exactly are refused for every format that signs JCS, because JCS would sign a
 *   rounded value the caller never wrote; classical keeps number spellings and sealed encrypts
 *   bytes, so they take any number.
 * - A document that would not PASS (a schema break, a broken semantic rule, a key that does not
 *   match) is refused with the verifier's first error, so nothing issued here is a document
 *   `evroom verify` rejects. INDETERMINATE (a role left unsigned) is returned with warnings,
 *   since a later signer or key may complete it. A wrapper (sealed) must open with its own
 *   secret; the plaintext's signatures need keys the sealer never saw.
 */
import { didKeyFromEd25519 } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto/provider';
import { formatJsonError, JsonParseError, parseJsonTree, pointerAppend, skp, toPlain } from '../../src-shared/json';
import type { JsonNode } from '../../src-shared/json/types';
import type { KeyEntry, SecretEntry, VerifyContext } from '../../src-shared/verify/context';
import type { FormatIssuer, IssueFields, IssueInput, IssueKey } from '../../src-shared/verify/format-module';
import { IssueInputError } from '../../src-shared/verify/issue-error';
import { ISSUER_KEY_ID_RULE, isIssuerKeyId } from '../../src-shared/verify/keys';
import { formatIssuers } from '../../src-shared/verify/registry';
import type { Report } from '../../src-shared/verify/report';
import { isTimestamp } from '../../src-shared/verify/timestamp';
import { verifyDocument } from '../../src-shared/verify/verify';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { OperationError } from './errors';

/** The signer role every format with a key has: the issuer (the service, for envelope and wearable). */
export const ISSUER_ROLE = 'issuer';

/** What to issue. */
export interface IssueRequest {
  /** The issuer's name, e.g. `classical`, `nano`, `typed-pq` (see {@link issueFormats}). */
  format: string;
  /** The caller's fields: JSON text, a parsed tree, or what {@link readIssueFields} returned. */
  fields: string | JsonNode | IssueFields;
  /**
   * The signing keys by role: `issuer` for every format that signs, plus the format's own roles
   * (`requester` and `operator` for envelope, `device` for wearable). Private key files' contents.
   */
  signers?: Readonly<Partial<Record<string, IssueKey>>>;
  /** Secrets for a format that encrypts (sealed); `keyId` picks one when there are several. */
  secrets?: readonly SecretEntry[];
  /** The issuing instant, a TS (default: now). */
  issuedAt?: string;
  /** The key id to write instead of the issuer key's own; for sealed, the secret's id. */
  keyId?: string;
  /** The crypto provider; the node provider by default. */
  crypto?: CryptoProvider;
  /** The clock's reading; `new Date()` by default. */
  now?: Date;
}

/** An issued document that verifies. */
export interface IssueResult {
  /** The issuer's name. */
  format: string;
  /** The document, two-space indented, ending with a newline. */
  text: string;
  /** Its verification with the keys that signed it: PASS, or INDETERMINATE with warnings. */
  report: Report;
  /** For people, one line each: checks that stay unavailable until another key or signer. */
  warnings: string[];
}

/**
 * Every kind of document that can be issued, in the order people see them.
 *
 * @returns The issuers from the format registry.
 */
export function issueFormats(): readonly FormatIssuer[] {
  return formatIssuers();
}

/**
 * Find an issuer by name.
 *
 * @param format - The issuer's name.
 * @returns The issuer.
 * @throws OperationError (`invalid_input`, `unknown_format`) for a name no format issues.
 */
export function findIssuer(format: string): FormatIssuer {
  const issuer = formatIssuers().find((candidate) => candidate.name === format);
  if (issuer === undefined) {
    throw new OperationError(
      'invalid_input',
      'unknown_format',
      `unknown format '${String(format)}'; formats: ${issuerNames().join(', ')}`,
    );
  }
  return issuer;
}

function issuerNames(): string[] {
  return formatIssuers().map((issuer) => issuer.name);
}

/**
 * Read the caller's fields for an issuer: parse strictly, and refuse numbers JCS would sign as
 * another value than the one written (for the formats that need it).
 *
 * @param format - The issuer's name.
 * @param fields - JSON text or a parsed tree.
 * @returns The text, tree and plain values.
 * @throws OperationError (`invalid_input`): the parser's code (e.g. `duplicate_name`) with its
 *   path, or `inexact_number` with the number's path; `unknown_format`.
 */
export function readIssueFields(format: string, fields: string | JsonNode | IssueFields): IssueFields {
  const issuer = findIssuer(format);
  let read: IssueFields;
  if (typeof fields === 'string') {
    let tree: JsonNode;
    try {
      tree = parseJsonTree(fields);
    } catch (error) {
      if (error instanceof JsonParseError) {
        throw new OperationError('invalid_input', error.code, formatJsonError(error), {
          facts: { path: error.path, parse_error: true },
          cause: error,
        });
      }
      throw error;
    }
    read = { text: fields, tree, value: toPlain(tree) };
  } else if ('tree' in fields) {
    read = fields;
  } else {
    read = { text: skp(fields), tree: fields, value: toPlain(fields) };
  }
  if (issuer.exactNumbers) {
    try {
      refuseInexactNumbers(read.tree, '');
    } catch (error) {
      throw fieldError(error);
    }
  }
  return read;
}

/**
 * Build, sign and verify a document from caller fields.
 *
 * @param request - The format, fields, signers, secrets, instant and key id.
 * @returns The document with its report and warnings; nothing is written anywhere.
 * @throws OperationError: `invalid_input` for what the request got wrong (an unknown format,
 *   fields the format refuses, with `facts.path` (and the one detail) a JSON Pointer into the fields; a missing or
 *   wrong key, a bad key id, no matching secret); `refused` (`would_not_verify`,
 *   `seal_does_not_open`) for a document the verifier would not accept.
 */
export function issueDocument(request: IssueRequest): IssueResult {
  if (typeof request !== 'object' || request === null) throw new TypeError('issueDocument needs a request object');
  const issuer = findIssuer(request.format);
  const fields = readIssueFields(issuer.name, request.fields);
  const crypto = request.crypto ?? createNodeCryptoProvider();
  const now = request.now ?? new Date();
  if (request.issuedAt !== undefined) {
    if (!issuer.issuedAt)
      throw new OperationError(
        'invalid_input',
        'issued_at_not_applicable',
        `${issuer.name} documents take no issuing instant`,
      );
    if (!isTimestamp(request.issuedAt)) {
      throw new OperationError(
        'invalid_input',
        'invalid_issued_at',
        `'${request.issuedAt}' is not a timestamp YYYY-MM-DDThh:mm:ss[.fff]Z`,
      );
    }
  }
  if (request.keyId !== undefined && !issuer.keyId) {
    throw new OperationError(
      'invalid_input',
      'key_id_not_applicable',
      `${issuer.name} documents take no chosen key id`,
    );
  }
  const { key, roles } = checkSigners(issuer, request.signers ?? {});
  const input: IssueInput = {
    name: issuer.name,
    fields,
    roles,
    now,
    crypto,
    verify: (text, keys, secrets) => verifyDocument(text, verifyContext(crypto, keys, secrets)),
  };
  if (key !== undefined) {
    input.key = key;
    input.keyId = effectiveKeyId(key, request.keyId);
  }
  if (issuer.secret) input.secret = pickSecret(request.secrets ?? [], request.keyId);
  if (request.issuedAt !== undefined) input.issuedAt = request.issuedAt;

  let issued;
  try {
    issued = issuer.issue(input);
  } catch (error) {
    throw fieldError(error);
  }
  const report = verifyDocument(issued.text, verifyContext(crypto, issued.keys, issued.secrets));
  return { format: issuer.name, text: issued.text, report, warnings: judge(issuer, report) };
}

/** The fields' refusals as the operation's error; anything else passes through. */
function fieldError(error: unknown): unknown {
  if (error instanceof IssueInputError) {
    const details: Record<string, string> = { path: error.path };
    for (const name of ['format', 'reason']) {
      const value = (error as unknown as Record<string, unknown>)[name];
      if (typeof value === 'string') details[name] = value;
    }
    return new OperationError('invalid_input', error.code, oneLine(error.message), { facts: details, cause: error });
  }
  // The formats' signers check their input with TypeError and RangeError: the fields are wrong.
  if (error instanceof TypeError || error instanceof RangeError) {
    return new OperationError('invalid_input', 'invalid_fields', oneLine(error.message), {
      facts: { path: '' },
      cause: error,
    });
  }
  return error;
}

function checkSigners(
  issuer: FormatIssuer,
  signers: Readonly<Partial<Record<string, IssueKey>>>,
): { key: IssueKey | undefined; roles: Partial<Record<string, IssueKey>> } {
  const roleNames = issuer.roles.map((role) => role.name);
  const roles: Partial<Record<string, IssueKey>> = {};
  let key: IssueKey | undefined;
  for (const [role, signer] of Object.entries(signers)) {
    if (signer === undefined) continue;
    const isIssuer = role === ISSUER_ROLE && issuer.keyAlgorithm !== undefined;
    if (!isIssuer && !roleNames.includes(role)) {
      throw new OperationError(
        'invalid_input',
        'signer_not_applicable',
        `${issuer.name} documents are not signed by a ${role} key`,
        { facts: { role } },
      );
    }
    const wanted = isIssuer ? (issuer.keyAlgorithm ?? 'Ed25519') : 'Ed25519';
    if (signer.algorithm !== wanted) {
      throw new OperationError(
        'invalid_input',
        'wrong_algorithm',
        `the ${role} key is an ${signer.algorithm} key; ${issuer.name} documents are signed with ${wanted}`,
        { facts: { role, algorithm: signer.algorithm, expected: wanted } },
      );
    }
    if (isIssuer) key = signer;
    else roles[role] = signer;
  }
  if (issuer.keyAlgorithm !== undefined && key === undefined) {
    throw new OperationError('invalid_input', 'signer_missing', `${issuer.name} documents need the issuer's key`, {
      facts: { role: ISSUER_ROLE },
    });
  }
  return { key, roles };
}

function effectiveKeyId(key: IssueKey, override: string | undefined): string {
  if (override === undefined) return key.key_id;
  if (!isIssuerKeyId(override)) {
    throw new OperationError(
      'invalid_input',
      'invalid_key_id',
      `${JSON.stringify(override.slice(0, 80))} cannot name an issuing key. ${ISSUER_KEY_ID_RULE}`,
      {
        facts: { key_id: override },
      },
    );
  }
  if (override.startsWith('did:key:') && key.algorithm !== 'Ed25519') {
    throw new OperationError(
      'invalid_input',
      'did_key_algorithm',
      `a did:key cannot name an ${key.algorithm} key (did:key names Ed25519 keys only)`,
      {
        facts: { key_id: override, algorithm: key.algorithm },
      },
    );
  }
  if (override.startsWith('did:key:') && override !== didKeyFromEd25519(key.public_key)) {
    throw new OperationError(
      'invalid_input',
      'did_key_other_key',
      `${override} is the did:key of another key than the issuer's`,
      {
        facts: { key_id: override },
      },
    );
  }
  return override;
}

function pickSecret(secrets: readonly SecretEntry[], keyId: string | undefined): SecretEntry {
  const ids = secrets.map((secret) => secret.key_id).join(', ');
  if (keyId === undefined) {
    const [only, ...more] = secrets;
    if (only === undefined) throw new OperationError('invalid_input', 'no_secret', 'no secret was given');
    if (more.length > 0) {
      throw new OperationError(
        'invalid_input',
        'secret_ambiguous',
        `${secrets.length} secrets were given; pick one by its id (${ids})`,
        {
          facts: { count: secrets.length, ids },
        },
      );
    }
    return only;
  }
  const found = secrets.find((secret) => secret.key_id === keyId);
  if (found === undefined) {
    throw new OperationError(
      'invalid_input',
      'unknown_secret',
      `there is no secret '${keyId}' (there are: ${ids || 'none'})`,
      {
        facts: { key_id: keyId, ids },
      },
    );
  }
  return found;
}

/** Refuse what would not verify; the warnings of what verifies only once more is known. */
function judge(issuer: FormatIssuer, report: Report): string[] {
  if (issuer.wraps) {
    if (report.inner === undefined) {
      throw new OperationError(
        'refused',
        'seal_does_not_open',
        `the sealed document does not open with its own secret (${report.status})`,
        {
          facts: { status: report.status },
        },
      );
    }
    return [];
  }
  if (report.status === 'PASS') return [];
  if (report.status === 'INDETERMINATE') {
    const open = report.checks.filter((check) => check.status === 'unavailable');
    return [
      ...open.map((check) => `${check.id} is unavailable: ${check.detail ?? 'not checked'}`),
      `the document verifies as INDETERMINATE until ${open.length === 1 ? 'that check is' : 'those checks are'} available`,
    ];
  }
  const [first] = report.errors;
  throw new OperationError(
    'refused',
    'would_not_verify',
    `the signed document would not verify (${report.status}): ${first ? describeReportError(first) : firstFailure(report)}`,
    { facts: { status: report.status, ...(first ? { path: first.path, error: first.code } : {}) } },
  );
}

function verifyContext(
  crypto: CryptoProvider,
  advertised: readonly KeyEntry[],
  secrets: readonly SecretEntry[],
): VerifyContext {
  return { crypto, pinned: [], advertised: [...advertised], secrets: [...secrets], now: new Date() };
}

function describeReportError(error: { path: string; message: string }): string {
  return oneLine(error.path ? `${error.path}: ${error.message}` : error.message);
}

function firstFailure(report: Report): string {
  const check = report.checks.find((candidate) => candidate.status === 'fail' || candidate.status === 'unsupported');
  return check ? `${check.id}: ${check.detail ?? check.status}` : 'no detail';
}

function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it replaces
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ');
}

/**
 * Refuse numbers that JCS would sign as another value than the one written: integers beyond
 * 2^53 and decimals with more digits than a double holds. `1.50` is fine (the same number as
 * `1.5`); `12345678901234567890` is not (it would be signed as 12345678901234567000).
 */
function refuseInexactNumbers(node: JsonNode, path: string): void {
  if (node.type === 'number') {
    if (decimalKey(node.lexeme) !== decimalKey(String(node.value))) {
      throw new IssueInputError(
        'inexact_number',
        path,
        `the number ${node.lexeme} cannot be signed exactly (JSON signing uses IEEE doubles); write it as a string`,
      );
    }
  } else if (node.type === 'array') {
    node.items.forEach((item, index) => refuseInexactNumbers(item, pointerAppend(path, String(index))));
  } else if (node.type === 'object') {
    for (const [name, value] of node.members) refuseInexactNumbers(value, pointerAppend(path, name));
  }
}

/** A decimal number's value as `sign digits e exponent`, without leading or trailing zeros. */
function decimalKey(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (match === null) return text;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`;
  const leading = digits.length - digits.replace(/^0+/, '').length;
  const significant = digits.replace(/^0+/, '').replace(/0+$/, '');
  if (significant === '') return '0';
  // The value is 0.<digits> x 10^(whole.length + exponent); dropping leading zeros moves the point.
  const scale = whole.length + Number(exponent) - leading;
  return `${sign}${significant}e${scale}`;
}
