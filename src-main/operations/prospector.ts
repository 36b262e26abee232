/**
 * Prospector (pilot, PROTOCOL section 11): is a transaction surface ready for receipts?
 *
 * Each check is `pass`, `fail` or `unchecked` (nothing was given to check), with a detail. A
 * surface is ready when no check fails and no required check is unchecked. The answer is a pure
 * function of the surface: the size estimate signs a real receipt, but with a fixed throwaway
 * key, instant and id, so the same surface always gets the same answer.
 */
import { didKeyFromEd25519, hexEncode, utf8Encode } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto/provider';
import {
  formatJsonError,
  jcsTree,
  JsonParseError,
  parseJsonTree,
  pointerAppend,
  type JsonNode,
} from '../../src-shared/json';
import {
  encodeUlid,
  issueProfileReceipt,
  NANO_BYTE_BUDGET,
  PROFILE_BYTE_BUDGETS,
  PROFILE_EXAMPLE_AGENT,
  PROFILE_EXAMPLE_NOW,
  profileByteLength,
  RECEIPT_ID_PREFIX,
  STANDARD_BYTE_BUDGET,
  ULID_RANDOM_LENGTH,
} from '../../src-shared/formats/profile';
import { recommendProfile, type RubricProfile } from './rubric';

/** The signature algorithms our verifiers execute. */
export const EXECUTED_SIGNERS = ['Ed25519', 'ML-DSA-65'] as const;

/** The disclaimer every Prospector answer carries. */
export const PROSPECTOR_DISCLAIMER =
  'Not a certification or regulatory approval. The checks look only at what was sent: a sample payload, and the surface’s own statements about its signer, clock and ids, which are taken as given.';

/** The agent DID the size estimate puts in its receipts (the worked examples' agent). */
export const ESTIMATE_AGENT_DID = PROFILE_EXAMPLE_AGENT;
/** The content type the size estimate puts in its receipts: the payload is JSON. */
export const ESTIMATE_CONTENT_TYPE = 'application/json';
// Fixed so the estimate is deterministic; any instant from 2001 to 2286 gives the same sizes.
const ESTIMATE_NOW = PROFILE_EXAMPLE_NOW;
const ESTIMATE_RECEIPT_ID = RECEIPT_ID_PREFIX + encodeUlid(ESTIMATE_NOW.getTime(), new Uint8Array(ULID_RANDOM_LENGTH));
// A throwaway key, made from a public constant: it signs estimates only and is never listed.
const ESTIMATE_SEED = new Uint8Array(32).fill(0x5a);

/** The longest agent DID the profile schemas accept. */
const MAX_AGENT_DID = 256;

/** The largest safe integer (RFC 7493 I-JSON; JCS writes numbers as doubles). */
const MAX_EXACT_INTEGER = 2 ** 53 - 1;

/** The surface to qualify (PROTOCOL 11). */
export interface Surface {
  name: string;
  /** A JSON text: parsed here with our strict parser, so duplicate names and the like are seen. */
  sample_payload?: string;
  signer?: string;
  clock_source?: string;
  ids_stable?: boolean;
  retention_days?: number;
}

export type CheckStatus = 'pass' | 'fail' | 'unchecked';

/** The checks, in the order answers list them. */
export const PROSPECTOR_CHECKS = [
  'payload_strict_json',
  'payload_jcs',
  'receipt_budget',
  'signer',
  'clock_source',
  'ids_stable',
] as const;
export type ProspectorCheckId = (typeof PROSPECTOR_CHECKS)[number];

/**
 * The checks that must pass for a surface to be ready. clock_source is not among them: a
 * receipt's issued_at is stamped by the service's clock, so the surface's own clock only orders
 * its events and an unknown one does not stop receipts.
 */
export const REQUIRED_CHECKS: ReadonlySet<ProspectorCheckId> = new Set([
  'payload_strict_json',
  'payload_jcs',
  'receipt_budget',
  'signer',
  'ids_stable',
]);

export interface ProspectorCheck {
  id: ProspectorCheckId;
  status: CheckStatus;
  required: boolean;
  detail: string;
}

/** The answer. */
export interface ProspectorAnswer {
  pilot: true;
  surface: string;
  ready: boolean;
  checks: ProspectorCheck[];
  recommended_profile: RubricProfile;
  rubric_reasons: string[];
  /** SHA-256 of the payload's JCS form, when it has one. */
  payload_jcs_sha256?: string;
  /** JCS bytes of a real receipt around the payload's hash, when it was measured. */
  wrapped_bytes?: { nano: number; standard: number; pq: number };
  disclaimer: string;
}

/** The first integer-spelled number outside +-(2^53-1), as its JSON Pointer. */
function findUnsafeInteger(node: JsonNode, path: string): { path: string; lexeme: string } | undefined {
  if (node.type === 'number') {
    // Only integers as spelled: 1.5e300 is a double by intent, 9007199254740993 is an id that would silently change.
    return /^-?\d+$/.test(node.lexeme) && !(Math.abs(node.value) <= MAX_EXACT_INTEGER)
      ? { path, lexeme: node.lexeme }
      : undefined;
  }
  if (node.type === 'array') {
    for (const [index, item] of node.items.entries()) {
      const found = findUnsafeInteger(item, pointerAppend(path, index));
      if (found) return found;
    }
  }
  if (node.type === 'object') {
    for (const [name, value] of node.members) {
      const found = findUnsafeInteger(value, pointerAppend(path, name));
      if (found) return found;
    }
  }
  return undefined;
}

/** JCS bytes of a real nano, standard and pq receipt around a content hash, as the service would fill them. */
function wrappedSizes(sha256Hex: string, crypto: CryptoProvider): { nano: number; standard: number; pq: number } {
  const keyId = didKeyFromEd25519(crypto.ed25519PublicKey(ESTIMATE_SEED));
  const options = { now: ESTIMATE_NOW, id: ESTIMATE_RECEIPT_ID };
  const content = { sha256: sha256Hex, type: ESTIMATE_CONTENT_TYPE };
  // The same fields POST /v1/receipt/emit writes when the caller gives only agent, content and type.
  const nano = issueProfileReceipt(
    'nano',
    { ok: true, a: ESTIMATE_AGENT_DID, h: `sha256:${sha256Hex}`, t: ESTIMATE_CONTENT_TYPE },
    ESTIMATE_SEED,
    keyId,
    crypto,
    options,
  );
  const standard = issueProfileReceipt(
    'standard',
    {
      agent_did: ESTIMATE_AGENT_DID,
      content,
      smsh: { sealed: false, declaration: 'No sealed evidence accompanies this receipt.' },
      hktn_context: { reputation_tier: 'unrated' },
    },
    ESTIMATE_SEED,
    keyId,
    crypto,
    options,
  );
  const pq = issueProfileReceipt(
    'pq',
    {
      agent_did: ESTIMATE_AGENT_DID,
      content,
      crypto_agile_metadata: { current_alg: 'Ed25519', signature_posture: 'classical', envelope_posture: 'pq-ready' },
      pq_posture: 'declared',
      auditor_verifier: true,
    },
    ESTIMATE_SEED,
    keyId,
    crypto,
    options,
  );
  return { nano: profileByteLength(nano), standard: profileByteLength(standard), pq: profileByteLength(pq) };
}

function check(id: ProspectorCheckId, status: CheckStatus, detail: string): ProspectorCheck {
  return { id, status, required: REQUIRED_CHECKS.has(id), detail };
}

function describeSize(profile: 'nano' | 'standard', bytes: number): string {
  const budget = profile === 'nano' ? NANO_BYTE_BUDGET : STANDARD_BYTE_BUDGET;
  const room = budget - bytes;
  if (room < 0) return `${profile} ${bytes} B of ${budget} B (over by ${-room} B)`;
  // The agent DID is the one member the caller sizes, written once, one byte a character (ASCII).
  const longest = ESTIMATE_AGENT_DID.length + room;
  return longest >= MAX_AGENT_DID
    ? `${profile} ${bytes} B of ${budget} B (fits with any agent DID the schema allows, up to ${MAX_AGENT_DID} characters)`
    : `${profile} ${bytes} B of ${budget} B (fits; an agent DID up to ${longest} characters still fits)`;
}

/** The payload checks, the hash of its JCS form and its wrapped sizes. */
function payloadChecks(
  payload: string | undefined,
  recommended: RubricProfile,
  crypto: CryptoProvider,
): { checks: ProspectorCheck[]; sha256?: string; sizes?: ProspectorAnswer['wrapped_bytes'] } {
  if (payload === undefined) {
    const none = 'no sample_payload was given';
    return {
      checks: [
        check('payload_strict_json', 'unchecked', none),
        check('payload_jcs', 'unchecked', none),
        check('receipt_budget', 'unchecked', none),
      ],
    };
  }
  let tree: JsonNode;
  try {
    tree = parseJsonTree(payload);
  } catch (error) {
    if (!(error instanceof JsonParseError)) throw error;
    const after = 'the payload did not parse';
    return {
      checks: [
        check('payload_strict_json', 'fail', formatJsonError(error)),
        check('payload_jcs', 'unchecked', after),
        check('receipt_budget', 'unchecked', after),
      ],
    };
  }
  const unsafe = findUnsafeInteger(tree, '');
  if (unsafe !== undefined) {
    const after = 'the payload is not strict JSON';
    return {
      checks: [
        check(
          'payload_strict_json',
          'fail',
          `Malformed JSON (integer_out_of_range) at ${unsafe.path || 'the document root'}: ${unsafe.lexeme.slice(0, 40)} is outside ±(2^53−1) and would not survive JCS exactly`,
        ),
        check('payload_jcs', 'unchecked', after),
        check('receipt_budget', 'unchecked', after),
      ],
    };
  }
  const parsed = check(
    'payload_strict_json',
    'pass',
    'parses under the strict parser: no duplicate names, no lone surrogates, integers within ±(2^53−1), depth within 64',
  );
  let canonical: string;
  try {
    canonical = jcsTree(tree);
  } catch (error) {
    if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
    return {
      checks: [
        parsed,
        check('payload_jcs', 'fail', `no JCS form: ${error.message}`),
        check('receipt_budget', 'unchecked', 'the payload has no JCS form'),
      ],
    };
  }
  const bytes = utf8Encode(canonical);
  const sha256 = hexEncode(crypto.sha256(bytes));
  const sizes = wrappedSizes(sha256, crypto);
  const budget = PROFILE_BYTE_BUDGETS[recommended];
  const measured = sizes[recommended];
  const fits = budget === undefined || measured <= budget;
  const detail = [
    `a receipt carries the payload's SHA-256, never the payload, so its size does not grow with the payload (${bytes.length} B as JCS)`,
    `measured with agent ${ESTIMATE_AGENT_DID}: ${describeSize('nano', sizes.nano)}; ${describeSize('standard', sizes.standard)}; pq ${sizes.pq} B (no byte budget)`,
    budget === undefined
      ? `the recommended profile pq has no byte budget`
      : `the recommended profile ${recommended} ${fits ? 'fits' : 'does not fit'} its ${budget} B budget`,
  ].join('; ');
  return {
    checks: [
      parsed,
      check('payload_jcs', 'pass', `has a JCS form of ${bytes.length} B (RFC 8785)`),
      check('receipt_budget', fits ? 'pass' : 'fail', detail),
    ],
    sha256,
    sizes,
  };
}

function signerCheck(signer: string | undefined): ProspectorCheck {
  if (signer === undefined)
    return check('signer', 'unchecked', `no signer was named; we execute ${EXECUTED_SIGNERS.join(' and ')}`);
  const known = EXECUTED_SIGNERS.find((name) => name.toLowerCase() === signer.toLowerCase());
  if (known === 'Ed25519')
    return check(
      'signer',
      'pass',
      'Ed25519: executed by every verifier (profile receipts, typed contracts, wearable receipts)',
    );
  if (known === 'ML-DSA-65')
    return check(
      'signer',
      'pass',
      'ML-DSA-65 (FIPS 204): executed for typed post-quantum envelopes; profile receipts are signed with Ed25519',
    );
  return check(
    'signer',
    'fail',
    `${JSON.stringify(signer.slice(0, 64))} is not a signature we execute; we execute ${EXECUTED_SIGNERS.join(' and ')}`,
  );
}

/**
 * Qualifies a transaction surface for receipts.
 *
 * @param surface - The surface: its name and what it states about itself.
 * @param crypto - The crypto provider (hashing, and signing the size estimate's receipts).
 * @returns The checks, whether the surface is ready, and the rubric's recommended profile.
 * @throws TypeError if surface is not an object or a member has the wrong type.
 * @throws RangeError if retention_days is negative or not an integer.
 */
export function qualifySurface(surface: Surface, crypto: CryptoProvider): ProspectorAnswer {
  if (typeof surface !== 'object' || surface === null) throw new TypeError('qualifySurface expects a surface object');
  if (typeof surface.name !== 'string' || surface.name.length === 0)
    throw new TypeError('surface.name must be a non-empty string');
  for (const member of ['sample_payload', 'signer', 'clock_source'] as const) {
    if (surface[member] !== undefined && typeof surface[member] !== 'string')
      throw new TypeError(`surface.${member} must be a string`);
  }
  if (surface.ids_stable !== undefined && typeof surface.ids_stable !== 'boolean')
    throw new TypeError('surface.ids_stable must be a boolean');
  if (
    surface.retention_days !== undefined &&
    !(Number.isSafeInteger(surface.retention_days) && surface.retention_days >= 0)
  )
    throw new RangeError('surface.retention_days must be an integer >= 0');

  // The surface states no intent or amount, so only retention can move the rubric off standard.
  const rubric = recommendProfile(
    surface.retention_days === undefined ? {} : { retention_days: surface.retention_days },
  );
  const payload = payloadChecks(surface.sample_payload, rubric.recommended_profile, crypto);
  const checks = [
    ...payload.checks,
    signerCheck(surface.signer),
    surface.clock_source === undefined
      ? check('clock_source', 'unchecked', 'no clock source was named')
      : check('clock_source', 'pass', `stated: ${surface.clock_source.slice(0, 128)}`),
    surface.ids_stable === undefined
      ? check('ids_stable', 'unchecked', 'the surface did not say whether its transaction ids are stable')
      : surface.ids_stable
        ? check(
            'ids_stable',
            'pass',
            'stated: transaction ids are stable, so a receipt can be joined to its transaction',
          )
        : check(
            'ids_stable',
            'fail',
            'stated: transaction ids are not stable, so a receipt could not be joined to its transaction later',
          ),
  ];
  const ready = checks.every((item) => item.status === 'pass' || (item.status === 'unchecked' && !item.required));
  return {
    pilot: true,
    surface: surface.name,
    ready,
    checks,
    recommended_profile: rubric.recommended_profile,
    rubric_reasons: rubric.reasons,
    ...(payload.sha256 === undefined ? {} : { payload_jcs_sha256: payload.sha256 }),
    ...(payload.sizes === undefined ? {} : { wrapped_bytes: payload.sizes }),
    disclaimer: PROSPECTOR_DISCLAIMER,
  };
}
