import { describe, expect, it } from 'vitest';
import { hexEncode, utf8Encode } from '../../src-shared/crypto';
import { parseJsonTree } from '../../src-shared/json';
import { wearableExampleObservation } from '../../src-shared/formats/wearable';
import type { IssueKey } from '../../src-shared/verify/format-module';
import { formatIssuers } from '../../src-shared/verify/registry';
import { verifyDocument } from '../../src-shared/verify/verify';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { describeError, OperationError } from './errors';
import { issueDocument, issueFormats, readIssueFields, type IssueRequest } from './issue';

// The engine called directly, as the app API will: real keys, the real verifier.
const crypto = createNodeCryptoProvider();
const sha = (text: string): string => hexEncode(crypto.sha256(utf8Encode(text)));
const NOW = new Date('2026-06-01T12:00:00.000Z');

function ed25519(fill: number, keyId?: string): IssueKey {
  const seed = new Uint8Array(32).fill(fill);
  const public_key = crypto.ed25519PublicKey(seed);
  return { key_id: keyId ?? `did:svc:test:key${fill}`, algorithm: 'Ed25519', seed, public_key };
}

const issuer = ed25519(1);
const service = ed25519(2, 'did:svc:test:service');
const mldsa: IssueKey = (() => {
  const seed = new Uint8Array(32).fill(6);
  return { key_id: 'did:svc:test:pq1', algorithm: 'ML-DSA-65', seed, public_key: crypto.mldsa65KeyGen(seed).publicKey };
})();
const secret = { key_id: 'test/seal', key: new Uint8Array(32).fill(7) };

const content = { sha256: sha('hello'), type: 'text/plain' };
const standard = {
  agent_did: 'did:web:agent.example.com',
  content,
  smsh: { sealed: false, declaration: 'No sealed evidence.' },
  hktn_context: { reputation_tier: 'new' },
};
const pq = {
  agent_did: 'did:web:agent.example.com',
  content,
  crypto_agile_metadata: { current_alg: 'Ed25519', signature_posture: 'classical', envelope_posture: 'pq-ready' },
  pq_posture: 'declared',
  auditor_verifier: true,
};
const observation = (): Record<string, unknown> => {
  const fields = wearableExampleObservation(crypto) as unknown as Record<string, unknown>;
  delete fields['device_signature'];
  delete fields['device_public_key'];
  return fields;
};

/** One request per issuer, and the report format its document must verify as. */
function requests(): [IssueRequest, string][] {
  const classicalText = '{"sequence":3,"amount":1.50,"memo":"coffee"}';
  return [
    [{ format: 'classical', fields: classicalText, signers: { issuer } }, 'classical'],
    [
      {
        format: 'countersigner',
        fields: JSON.stringify({ record: { receipt: 'r-1' }, operator_signature: 'operator signature' }),
        signers: { issuer },
      },
      'countersigner',
    ],
    [
      {
        format: 'sealed',
        fields: issueDocument({ format: 'classical', fields: classicalText, signers: { issuer } }).text,
        secrets: [secret],
      },
      'sealed',
    ],
    [
      {
        format: 'envelope',
        fields: JSON.stringify({
          receipt_id: 'rcp_01JD0000000000000000000000',
          request: { hash: `sha256:${sha('request')}` },
        }),
        signers: { issuer: service, requester: ed25519(3), operator: ed25519(4, 'did:web:operator.example.com') },
        issuedAt: '2026-06-01T12:00:00.000Z',
      },
      'envelope/svc-receipt-v1',
    ],
    [
      {
        format: 'wearable',
        fields: JSON.stringify(observation()),
        signers: { issuer: service, device: ed25519(5) },
        issuedAt: '2026-03-14T09:27:00.000Z',
      },
      'wearable/r2.0.0',
    ],
    [
      {
        format: 'nano',
        fields: JSON.stringify({
          ok: true,
          a: 'did:web:agent.example.com',
          h: `sha256:${sha('hello')}`,
          t: 'text/plain',
        }),
        signers: { issuer },
      },
      'profile/nano',
    ],
    [{ format: 'standard', fields: JSON.stringify(standard), signers: { issuer } }, 'profile/standard'],
    [{ format: 'pq', fields: JSON.stringify(pq), signers: { issuer } }, 'profile/pq'],
    [{ format: 'legacy-standard', fields: JSON.stringify(standard), signers: { issuer } }, 'legacy/proof_tier'],
    [{ format: 'legacy-pq', fields: JSON.stringify(pq), signers: { issuer } }, 'legacy/proof_tier'],
    [
      {
        format: 'typed',
        fields: JSON.stringify({
          contract_type: 'sigr.chain',
          body: { links: [{ statement_sha256: sha('one') }, { statement_sha256: sha('two') }] },
        }),
        signers: { issuer },
      },
      'typed/sigr.chain',
    ],
    [
      {
        format: 'typed-pq',
        fields: JSON.stringify({
          fragments: [
            { text: 'request', type: 'reasoning' },
            { text: 'answer', type: 'final' },
          ],
          agg_mode: 'merkle',
        }),
        signers: { issuer: mldsa },
      },
      'typed-pq',
    ],
    [
      {
        format: 'sigr-chain',
        fields: JSON.stringify({
          run_id: 'run-1',
          hash_suite: 'sha-384',
          steps: [
            { step_id: 'a', kind: 'plan', seq: 0, parents: [], input: 'goal' },
            { step_id: 'b', kind: 'tool_call', seq: 1, parents: ['a'], output: { r: 1 } },
            { step_id: 'c', kind: 'final', seq: 2, parents: ['a', 'b'] },
          ],
        }),
        signers: { issuer: mldsa },
        issuedAt: '2026-06-01T12:00:00.000Z',
      },
      'sigr-chain-pq',
    ],
  ];
}

function refusal(request: IssueRequest): OperationError {
  try {
    issueDocument({ now: NOW, ...request });
  } catch (error) {
    if (error instanceof OperationError) return error;
    throw error;
  }
  throw new Error(`${request.format} was not refused`);
}

describe('issueDocument', () => {
  it('issues every format the registry lists, and each document verifies with the keys that signed it', () => {
    const cases = requests();
    expect(cases.map(([request]) => request.format)).toEqual(issueFormats().map((entry) => entry.name));
    for (const [request, format] of cases) {
      const result = issueDocument({ now: NOW, ...request });
      expect([request.format, result.format, result.report.format, result.report.status, result.warnings]).toEqual([
        request.format,
        request.format,
        format,
        'PASS',
        [],
      ]);
      expect(result.text.endsWith('\n')).toBe(true);
    }
  });

  it('takes fields as a parsed tree, and keeps a classical payload’s number spellings', () => {
    const result = issueDocument({
      format: 'classical',
      fields: parseJsonTree('{"amount":1.50}'),
      signers: { issuer },
    });
    expect(result.text).toContain('"signed_payload": {\n    "amount": 1.50\n  }');
  });

  it('uses the clock it is given when no instant is chosen', () => {
    const nano = issueDocument({ ...(requests()[5]?.[0] as IssueRequest), now: NOW });
    expect((JSON.parse(nano.text) as { i: number }).i).toBe(NOW.getTime() / 1000);
    const typed = issueDocument({
      format: 'typed',
      fields:
        '{"contract_type":"proof.transition","body":{"subject":"s","from_state":"pending","to_state":"verified","at":"2026-06-01T12:00:00.000Z"}}',
      signers: { issuer },
      now: NOW,
    });
    expect(JSON.parse(typed.text)).toMatchObject({ issued_at: NOW.toISOString(), issuer: issuer.key_id });
  });

  it('returns an envelope with a role unsigned, with warnings, as INDETERMINATE', () => {
    const result = issueDocument({
      format: 'envelope',
      fields: '{"receipt_id":"rcp_01JD0000000000000000000000"}',
      signers: { issuer: service },
    });
    expect(result.report.status).toBe('INDETERMINATE');
    expect(result.warnings.at(-1)).toBe('the document verifies as INDETERMINATE until those checks are available');
    expect(result.warnings[0]).toMatch(/^signature\.requester is unavailable: /);
  });

  it.each<[string, IssueRequest, string, string, Record<string, unknown>]>([
    ['an unknown format', { format: 'pdf', fields: '{}' }, 'invalid_input', 'unknown_format', {}],
    [
      'fields that are not strict JSON',
      { format: 'nano', fields: '{"ok":true,"ok":false}', signers: { issuer } },
      'invalid_input',
      'duplicate_name',
      { path: '/ok' },
    ],
    [
      'a number JCS cannot sign exactly',
      { format: 'typed-pq', fields: '{"fragments":[12345678901234567890]}', signers: { issuer: mldsa } },
      'invalid_input',
      'inexact_number',
      { path: '/fragments/0' },
    ],
    [
      'an unknown member',
      { format: 'nano', fields: '{"ok":true,"a":"did:web:a.example","h":"x","t":"t","note":1}', signers: { issuer } },
      'invalid_input',
      'unknown_member',
      { path: '/note' },
    ],
    [
      'a missing member',
      { format: 'pq', fields: '{"agent_did":"did:web:a.example"}', signers: { issuer } },
      'invalid_input',
      'missing_member',
      { path: '/content' },
    ],
    [
      'a field the schema refuses',
      {
        format: 'nano',
        fields: '{"ok":true,"a":"did:web:a.example","h":"md5:00","t":"text/plain"}',
        signers: { issuer },
      },
      'invalid_input',
      'invalid_fields',
      { path: '' },
    ],
    ['a missing issuer key', { format: 'nano', fields: '{}' }, 'invalid_input', 'signer_missing', { role: 'issuer' }],
    [
      'a key of the wrong algorithm',
      { format: 'typed-pq', fields: '{"fragments":[1]}', signers: { issuer } },
      'invalid_input',
      'wrong_algorithm',
      { role: 'issuer', expected: 'ML-DSA-65' },
    ],
    [
      'a role the format does not have',
      { format: 'nano', fields: '{}', signers: { issuer, device: ed25519(5) } },
      'invalid_input',
      'signer_not_applicable',
      { role: 'device' },
    ],
    [
      'a key id of another key',
      {
        format: 'nano',
        fields: '{}',
        signers: { issuer },
        keyId: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      },
      'invalid_input',
      'did_key_other_key',
      {},
    ],
    [
      'an instant for a format without one',
      { format: 'classical', fields: '{}', signers: { issuer }, issuedAt: '2026-06-01T12:00:00.000Z' },
      'invalid_input',
      'issued_at_not_applicable',
      {},
    ],
    [
      'issued_at given twice',
      {
        format: 'envelope',
        fields: '{"issued_at":"2026-06-01T12:00:00.000Z"}',
        signers: { issuer: service },
        issuedAt: '2026-06-01T12:00:00.000Z',
      },
      'invalid_input',
      'issued_at_twice',
      { path: '/issued_at' },
    ],
    [
      'a wearable without a device signature',
      { format: 'wearable', fields: '{}', signers: { issuer: service } },
      'invalid_input',
      'device_signature_missing',
      { path: '/device_signature' },
    ],
    [
      'a typed contract of an unknown type',
      { format: 'typed', fields: '{"contract_type":"x.y","body":{}}', signers: { issuer } },
      'invalid_input',
      'unknown_contract_type',
      { path: '/contract_type' },
    ],
    [
      'a secret id that is not there',
      { format: 'sealed', fields: '{}', secrets: [secret], keyId: 'other' },
      'invalid_input',
      'unknown_secret',
      { key_id: 'other', ids: 'test/seal' },
    ],
    [
      'sealing what is not a document',
      { format: 'sealed', fields: '{"a":1}', secrets: [secret] },
      'invalid_input',
      'not_a_document',
      { format: 'unknown' },
    ],
    [
      'a typed contract that breaks its rule',
      {
        format: 'typed',
        fields: JSON.stringify({
          contract_type: 'proof.demand',
          body: {
            demander: 'did:web:a.example',
            respondent: 'did:web:b.example',
            subject_sha256: sha('s'),
            required: ['receipt'],
            due_by: '2020-01-01T00:00:00.000Z',
          },
        }),
        signers: { issuer },
      },
      'refused',
      'would_not_verify',
      { status: 'MISMATCH', path: '/body/due_by' },
    ],
  ])('refuses %s with a stable code', (_name, request, kind, code, details) => {
    const error = refusal(request);
    expect([error.kind, error.code]).toEqual([kind, code]);
    expect(error.facts).toMatchObject(details);
    // Every door gets the same envelope; a pointer into the fields is its one detail.
    const pointer = error.facts.path;
    expect(describeError(error).envelope).toEqual({
      code,
      message: error.message,
      details: typeof pointer === 'string' ? [{ path: pointer, message: error.message }] : [],
    });
    expect(error.message).not.toMatch(/[\n\r]/);
  });
});

describe('readIssueFields and issueFormats', () => {
  it('keeps number spellings where a format signs them as written, and refuses them where JCS would round', () => {
    expect(readIssueFields('classical', '{"n":12345678901234567890}').tree.type).toBe('object');
    // The countersigner hashes records by Python's rules, where a 20-digit integer is exact.
    const record = readIssueFields('countersigner', '{"record":{"n":12345678901234567890,"m":1.50}}');
    expect(record.text).toContain('12345678901234567890');
    expect(record.tree.type).toBe('object');
    expect(() => readIssueFields('envelope', '{"n":12345678901234567890}')).toThrow(/cannot be signed exactly/);
  });

  it('lists the same issuers as the registry', () => {
    expect(issueFormats()).toEqual(formatIssuers());
  });

  it('issues documents that need their public key to verify: without it they are INDETERMINATE', () => {
    const fields = JSON.stringify({ ok: true, a: 'did:web:a.example', h: `sha256:${sha('x')}`, t: 'text/plain' });
    const { text } = issueDocument({ format: 'nano', fields, signers: { issuer } });
    expect(verifyDocument(text, { crypto, pinned: [], advertised: [], secrets: [], now: NOW }).status).toBe(
      'INDETERMINATE',
    );
  });
});
