/**
 * The worked examples of docs/protocol.md, computed from the code.
 *
 * Every example uses fixed seeds, times and (for sealed) a fixed IV, so its hashes never change;
 * scripts/protocol-doc.test.ts checks each hash and canonical text printed here appears in
 * docs/protocol.md and that each document verifies. `npx tsx scripts/worked-examples.ts` prints
 * them (to refresh the docs after a deliberate change).
 */
import { pathToFileURL } from 'node:url';
import { b64uEncode, createPortableProvider, hexEncode, utf8Encode } from '../src-shared/crypto';
import type { CryptoProvider } from '../src-shared/crypto/provider';
import { signClassical } from '../src-shared/formats/classical';
import { countersignerWorkedExample } from '../src-shared/formats/countersigner/examples';
import { signEnvelope } from '../src-shared/formats/envelope';
import { profileWorkedExamples } from '../src-shared/formats/profile/examples';
import { sealDocument } from '../src-shared/formats/sealed';
import { HAHS_EXAMPLE_BODY, signHahs } from '../src-shared/formats/hahs';
import { signSmshStamp } from '../src-shared/formats/smsh-stamp';
import { signSpectral } from '../src-shared/formats/spectral';
import { typedWorkedExample } from '../src-shared/formats/typed';
import { sigrChainWorkedExample } from '../src-shared/formats/sigr-chain-pq';
import { typedPqWorkedExample } from '../src-shared/formats/typed-pq/examples';
import { wearableWorkedExample } from '../src-shared/formats/wearable/example';
import { signedContent } from '../src-shared/verify/signed-content';

export interface WorkedExample {
  format: string;
  /** The document as JSON text. */
  document: string;
  /** The canonical texts and hashes a reader can recompute. */
  values: { label: string; value: string }[];
}

function seed(byte: number): Uint8Array {
  return new Uint8Array(32).fill(byte);
}

function withSignedContent(
  format: string,
  document: string,
  crypto: CryptoProvider,
  extra: { label: string; value: string }[] = [],
): WorkedExample {
  const values = signedContent(format, utf8Encode(document), crypto).flatMap((content) => [
    { label: content.label, value: content.text },
    { label: `SHA-256 of ${content.label}`, value: content.sha256 },
  ]);
  return { format, document, values: [...values, ...extra] };
}

/** Every format's worked example. */
export function workedExamples(crypto: CryptoProvider = createPortableProvider()): WorkedExample[] {
  const examples: WorkedExample[] = [];

  const classical = signClassical(
    '{"sequence":7,"amount":"12.50","unit_price":12.50,"memo":"inference"}',
    seed(0x11),
    crypto,
  );
  examples.push(withSignedContent('classical', classical, crypto));

  const countersigner = countersignerWorkedExample(crypto);
  examples.push(withSignedContent('countersigner', countersigner.document, crypto, countersigner.values));

  const sealed = JSON.stringify(
    sealDocument(classical, { key_id: 'secret-2026-01', key: seed(0x33) }, crypto, {
      iv: new Uint8Array(12).fill(0x44),
    }),
  );
  examples.push({
    format: 'sealed',
    document: sealed,
    values: [{ label: 'SHA-256 of the plaintext', value: hexEncode(crypto.sha256(utf8Encode(classical))) }],
  });

  const envelope = JSON.stringify(
    signEnvelope(
      {
        v: 'svc-receipt-v1',
        receipt_id: 'rcp_01KT1GW6G0040G2081040G2081',
        request: { hash: 'sha256:00', purpose: 'summarize' },
        issued_at: '2026-06-01T12:00:00.000Z',
      },
      {
        requester: { key_id: 'did:svc:example:requester', seed: seed(0x55) },
        operator: { key_id: 'did:svc:example:operator', seed: seed(0x56) },
        service: { key_id: 'did:svc:example:service', seed: seed(0x57) },
      },
      crypto,
    ),
  );
  examples.push(withSignedContent('envelope/svc-receipt-v1', envelope, crypto));

  const wearable = wearableWorkedExample(crypto);
  examples.push(withSignedContent('wearable/r2.0.0', JSON.stringify(wearable.receipt), crypto));

  for (const profile of profileWorkedExamples(crypto)) {
    examples.push(withSignedContent(`profile/${profile.profile}`, JSON.stringify(profile.document), crypto));
  }

  const typed = typedWorkedExample(crypto);
  examples.push(withSignedContent('typed/authority.delegation', JSON.stringify(typed.contract), crypto));

  const typedPq = typedPqWorkedExample(crypto);
  examples.push({
    format: 'typed-pq',
    document: JSON.stringify(typedPq.document),
    values: [
      ...typedPq.fragmentTexts.map((text, index) => ({ label: `JCS(fragment ${index + 1})`, value: text })),
      ...typedPq.fragmentDigests.map((digest, index) => ({ label: `d_${index + 1}`, value: digest })),
      { label: 'agg_root', value: typedPq.aggRoot },
      { label: 'H(base)', value: typedPq.baseDigest },
      { label: 'policy_digest', value: typedPq.policyDigest },
      { label: 'payload_digest', value: typedPq.payloadDigest },
    ],
  });
  examples.push(...ecosystemExamples(crypto));

  const sigr = sigrChainWorkedExample(crypto);
  examples.push({
    format: 'sigr-chain-pq',
    document: JSON.stringify(sigr.document),
    values: [
      ...Object.entries(sigr.commits).map(([stepId, commit]) => ({
        label: `commit_digest of ${stepId}`,
        value: commit,
      })),
      { label: 'JCS(record of s4)', value: sigr.mergeRecord },
      { label: 'parent_commit_root of s4', value: sigr.mergeParentRoot },
      { label: 'causal_root', value: sigr.causalRoot },
      { label: 'SHA-256(JCS(base))', value: sigr.baseDigest },
      { label: 'payload_digest', value: sigr.payloadDigest },
    ],
  });
  return examples;
}

/** The worked examples of docs/protocol.md section 12a: HAHS, SMSH-Stamp and Spectral. */
function ecosystemExamples(crypto: CryptoProvider): WorkedExample[] {
  const hahs = JSON.stringify(signHahs({ ...HAHS_EXAMPLE_BODY }, seed(0x61), crypto));
  const hahsValue = JSON.parse(hahs) as { canonical_sha256: string; issuer_pubkey: string };
  const smsh = JSON.stringify(
    signSmshStamp(
      {
        v: 'smsh-stamp/1',
        alg: 'ed25519',
        kid: 'example-key-001',
        stamped_at: '2026-06-01T12:00:00Z',
        subject: { kind: 'tool-call', model: 'example-model', input_hash: 'aW5wdXQ', output_hash: 'b3V0cHV0' },
        council: { round: 'R4', score: 8, of: 10 },
        lineage: null,
      },
      seed(0x62),
      crypto,
    ),
  );
  const payload = {
    receipt_id: 'rcpt_example_0001',
    amount: 12.5,
    meta: { z: 'last', '10': 'ten', '2': 'two' },
    issued_at: '2026-06-01T12:00:00.000Z',
  };
  const spectral = JSON.stringify(signSpectral(payload, seed(0x63), crypto));
  const canonical = JSON.stringify(signSpectral(payload, seed(0x63), crypto, 'ed25519-canonical'));
  return [
    withSignedContent('hahs', hahs, crypto, [
      { label: 'canonical_sha256', value: hahsValue.canonical_sha256 },
      { label: 'issuer_pubkey', value: hahsValue.issuer_pubkey },
    ]),
    withSignedContent('smsh-stamp', smsh, crypto, [
      { label: 'public key (b64u)', value: b64uEncode(crypto.ed25519PublicKey(seed(0x62))) },
    ]),
    withSignedContent('spectral', spectral, crypto),
    withSignedContent('spectral', canonical, crypto),
  ];
}

function main(): void {
  for (const example of workedExamples()) {
    console.log(`## ${example.format}`);
    for (const { label, value } of example.values) console.log(`${label}: ${value}`);
    console.log();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
