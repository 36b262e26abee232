/**
 * Sealed document verification (PROTOCOL section 5).
 *
 * Document: `{sealed: true, enc: "A256GCM", key_id, iv, ciphertext, tag, aad?}`, all binary
 * members unpadded base64url (iv 12 bytes, tag 16 bytes). The plaintext is another supported
 * document and is verified in turn.
 *
 * Decisions:
 * - `enc` other than `A256GCM` is UNSUPPORTED; nothing is decrypted.
 * - `key_id` names a secret in the context's secrets (exact match; printable ASCII without
 *   spaces, as in secret files). No such secret: INDETERMINATE. The tag does not verify (a wrong
 *   key, or any altered byte of iv, ciphertext, tag or aad): AUTH_FAILED.
 * - Once decrypted, the report's format stays `sealed` and the plaintext's report is attached
 *   as `inner`; the outer status and trust are the inner ones (a sealed PASS is a PASS of what
 *   was sealed), and check `inner` summarizes it. A plaintext that is not strict JSON, or no
 *   known format, makes the inner report (and so the outer) MALFORMED.
 * - The member set is closed (unknown members are MALFORMED); `aad`, when present, is not empty
 *   (GCM treats empty AAD as none, so an empty one would be a second spelling of the same
 *   document).
 */
import { AuthenticationError } from '../../crypto';
import type { JsonNode, JsonValue } from '../../json/types';
import {
  decodeB64uField,
  describeType,
  isJsonObject,
  memberProblems,
  objectMember,
  problem,
  quote,
} from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import { isSecretId } from '../../verify/key-file';
import type { Report, ReportError } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';

/** The checks of a sealed report, in report order. */
export const SEALED_CHECKS = Object.freeze(['schema', 'enc', 'decryption', 'inner'] as const);

const REQUIRED = ['sealed', 'enc', 'key_id', 'iv', 'ciphertext', 'tag'];

/** The only content encryption sealed documents use. */
export const SEALED_ENC = 'A256GCM';

/**
 * Recognize a sealed document: an object with `sealed: true` and an `enc` member.
 *
 * @param node - Any parsed document.
 * @returns `sealed` or undefined.
 */
export function detectSealed(node: JsonNode): 'sealed' | undefined {
  const sealed = objectMember(node, 'sealed');
  return sealed?.type === 'boolean' && sealed.value && objectMember(node, 'enc') !== undefined ? 'sealed' : undefined;
}

/**
 * Verify a sealed document: decrypt with the named secret, then verify the plaintext.
 *
 * @param input - The parsed document, context and the nested verifier.
 * @returns The report; format `sealed`, with `inner` once decryption succeeded.
 */
export function verifySealed(input: FormatInput): Report {
  const builder = new ReportBuilder('sealed', SEALED_CHECKS);
  const { value, ctx } = input;
  if (!isJsonObject(value)) {
    builder.fail(
      'MALFORMED',
      'schema',
      'A sealed document is a JSON object.',
      problem('invalid_type', '', `Expected an object, got ${describeType(value)}.`),
    );
    return builder.build();
  }
  const problems: ReportError[] = memberProblems(value, '', REQUIRED, ['aad']);
  if (Object.hasOwn(value, 'sealed') && value['sealed'] !== true) {
    problems.push(problem('invalid_value', '/sealed', '"sealed" must be true.'));
  }
  const enc = value['enc'];
  if (Object.hasOwn(value, 'enc') && typeof enc !== 'string') {
    problems.push(problem('invalid_type', '/enc', `"enc" must be a string, got ${describeType(enc)}.`));
  }
  const keyId = value['key_id'];
  if (Object.hasOwn(value, 'key_id') && !isSecretId(keyId)) {
    problems.push(
      problem('invalid_key_id', '/key_id', '"key_id" must be 1 to 256 printable ASCII characters without spaces.'),
    );
  }
  const iv = readBinary(value, 'iv', 12, problems);
  const ciphertext = readBinary(value, 'ciphertext', undefined, problems);
  const tag = readBinary(value, 'tag', 16, problems);
  const aad = Object.hasOwn(value, 'aad') ? readBinary(value, 'aad', undefined, problems) : undefined;
  if (aad !== undefined && aad.length === 0) {
    // GCM treats empty AAD as none, so "aad": "" would be an unauthenticated variant of a document.
    problems.push(problem('invalid_encoding', '/aad', '"aad", when present, must not be empty.'));
  }
  const complete = typeof enc === 'string' && isSecretId(keyId) && iv !== undefined && ciphertext !== undefined;
  if (problems.length > 0 || !complete || tag === undefined) {
    builder.fail('MALFORMED', 'schema', 'The document does not fit the sealed document schema.', problems);
    return builder.build();
  }
  builder.pass('schema', 'All sealed members are present and well-formed.');

  if (enc !== SEALED_ENC) {
    builder.unsupported(
      'enc',
      `enc ${quote(enc)} is not supported; only ${SEALED_ENC} is.`,
      problem('unsupported_encryption', '/enc', `Unsupported enc ${quote(enc)}; sealed documents use ${SEALED_ENC}.`),
    );
    return builder.build('Not checked: the document uses an encryption we do not execute.');
  }
  builder.pass('enc', `enc is ${SEALED_ENC}.`);

  const secret = ctx.secrets.find((entry) => entry.key_id === keyId);
  if (secret === undefined) {
    builder.unavailable(
      'decryption',
      `No secret named ${quote(keyId)} was supplied, so the document could not be opened.`,
      problem(
        'secret_unavailable',
        '/key_id',
        `No secret for key_id ${quote(keyId)}; supply a secrets file that holds it.`,
      ),
    );
    return builder.build('Not checked: the document could not be decrypted.');
  }
  let plaintext: Uint8Array;
  try {
    plaintext = ctx.crypto.aes256gcmDecrypt(secret.key, iv, ciphertext, tag, aad);
  } catch (error) {
    if (!(error instanceof AuthenticationError)) throw error;
    builder.fail(
      'AUTH_FAILED',
      'decryption',
      `AES-256-GCM authentication failed with secret ${quote(keyId)}: the key is wrong or the sealed data was altered.`,
      problem(
        'authentication_failed',
        '/tag',
        'The AES-GCM tag does not verify: wrong key or altered iv, ciphertext, tag or aad.',
      ),
    );
    return builder.build('Not checked: the document could not be decrypted.');
  }
  builder.pass('decryption', `Decrypted and authenticated with secret ${quote(keyId)} (AES-256-GCM).`);

  const inner = input.verifyNested(plaintext);
  builder.setInner(
    inner,
    'inner',
    `The plaintext is a ${inner.format} document with status ${inner.status}; its report is in "inner".`,
  );
  builder.note(
    'This report describes a sealed document; the decrypted document\'s own report is in "inner", ' +
      'and the status and trust shown are its.',
  );
  return builder.build();
}

function readBinary(
  value: { [name: string]: JsonValue },
  name: string,
  length: number | undefined,
  problems: ReportError[],
): Uint8Array | undefined {
  if (!Object.hasOwn(value, name)) return undefined;
  const bytes = decodeB64uField(value[name], length);
  if (bytes === undefined) {
    const size = length === undefined ? '' : `${length} bytes as `;
    problems.push(problem('invalid_encoding', `/${name}`, `"${name}" must be ${size}unpadded base64url.`));
  }
  return bytes;
}
