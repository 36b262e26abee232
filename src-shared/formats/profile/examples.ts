/**
 * Worked examples of profile receipts for the documentation: fixed seeds, ids and instants, so
 * every byte (Ed25519 signatures are deterministic) is reproducible and the tests pin the hashes.
 */
import { b64uEncode, didKeyFromEd25519, hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import type { JsonObject } from '../../verify/fields';
import { RECEIPT_ID_PREFIX, encodeUlid } from './receipt-id';
import { issueProfileReceipt } from './sign';
import { profileSigningText, type ProfileName } from './verify';

/** One worked example: the receipt, what was signed, and the key to check it with. */
export interface ProfileWorkedExample {
  profile: ProfileName;
  /** The signed receipt. */
  document: JsonObject;
  /** JCS of the receipt without `receipt.sig_b64u`. */
  signedText: string;
  /** Hex SHA-256 of the UTF-8 of `signedText`: the 32 bytes the Ed25519 signature signs. */
  signedSha256: string;
  /** The verifying key as a key file entry (public key in b64u). */
  key: { key_id: string; algorithm: 'Ed25519'; public_key: string };
  /** The example's secret seed in hex. Published on purpose: never use it for real receipts. */
  seedHex: string;
}

/** The instant every example is issued at. */
export const PROFILE_EXAMPLE_NOW = new Date('2026-06-01T12:00:00.000Z');

/** The example content: its text, whose SHA-256 every example receipts. */
export const PROFILE_EXAMPLE_CONTENT = 'Hello, Evidence Room.';

/** The example agent DID. */
export const PROFILE_EXAMPLE_AGENT = 'did:web:agent.example.com';

/** The key id of the standard and pq examples (nano uses the did:key of its seed). */
export const PROFILE_EXAMPLE_KEY_ID = 'did:svc:evroom:example-k1';

/**
 * Build the three worked examples: one nano, one standard and one pq receipt.
 *
 * Nano is signed by a did:key (verifiable offline, trust `unpinned`); standard and pq by
 * {@link PROFILE_EXAMPLE_KEY_ID}, which a reader pins from `key` to see trust `trusted`.
 *
 * @param crypto - The provider to sign and hash with.
 * @returns The examples in the order nano, standard, pq.
 * @throws TypeError if `crypto` is not a provider.
 */
export function profileWorkedExamples(crypto: CryptoProvider): ProfileWorkedExample[] {
  if (typeof crypto !== 'object' || crypto === null)
    throw new TypeError('profileWorkedExamples needs a CryptoProvider');
  const contentSha256 = hexEncode(crypto.sha256(utf8Encode(PROFILE_EXAMPLE_CONTENT)));
  const content = { sha256: contentSha256, type: 'text/plain' };
  const nanoSeed = new Uint8Array(32).fill(0x4e);
  const serviceSeed = new Uint8Array(32).fill(0x53);
  const nanoKeyId = didKeyFromEd25519(crypto.ed25519PublicKey(nanoSeed));
  const idFor = (fill: number): string =>
    RECEIPT_ID_PREFIX + encodeUlid(PROFILE_EXAMPLE_NOW.getTime(), new Uint8Array(10).fill(fill));
  const example = (
    profile: ProfileName,
    document: JsonObject,
    seed: Uint8Array,
    keyId: string,
  ): ProfileWorkedExample => {
    const signedText = profileSigningText(document);
    return {
      profile,
      document,
      signedText,
      signedSha256: hexEncode(crypto.sha256(utf8Encode(signedText))),
      key: { key_id: keyId, algorithm: 'Ed25519', public_key: b64uEncode(crypto.ed25519PublicKey(seed)) },
      seedHex: hexEncode(seed),
    };
  };
  const nano = issueProfileReceipt(
    'nano',
    { ok: true, a: PROFILE_EXAMPLE_AGENT, h: `sha256:${contentSha256}`, t: 'text/plain' },
    nanoSeed,
    nanoKeyId,
    crypto,
    { now: PROFILE_EXAMPLE_NOW, id: idFor(0x01) },
  );
  const standard = issueProfileReceipt(
    'standard',
    {
      agent_did: PROFILE_EXAMPLE_AGENT,
      content,
      settlement_reference: { rail: 'stablecoin', chain_id: 8453, asset: 'USDC' },
      smsh: { sealed: false, declaration: 'No sealed evidence accompanies this receipt.' },
      hktn_context: { reputation_tier: 'new' },
    },
    serviceSeed,
    PROFILE_EXAMPLE_KEY_ID,
    crypto,
    { now: PROFILE_EXAMPLE_NOW, id: idFor(0x02) },
  );
  const pq = issueProfileReceipt(
    'pq',
    {
      agent_did: PROFILE_EXAMPLE_AGENT,
      content,
      crypto_agile_metadata: { current_alg: 'Ed25519', signature_posture: 'classical', envelope_posture: 'pq-ready' },
      pq_posture: 'declared',
      auditor_verifier: true,
    },
    serviceSeed,
    PROFILE_EXAMPLE_KEY_ID,
    crypto,
    { now: PROFILE_EXAMPLE_NOW, id: idFor(0x03) },
  );
  return [
    example('nano', nano, nanoSeed, nanoKeyId),
    example('standard', standard, serviceSeed, PROFILE_EXAMPLE_KEY_ID),
    example('pq', pq, serviceSeed, PROFILE_EXAMPLE_KEY_ID),
  ];
}
