import { describe, expect, it } from 'vitest';
import { createPortableProvider, hexEncode, utf8Encode } from '../../crypto';
import type { JsonObject } from '../../verify/fields';
import { ruleD1Payload } from '../../verify/signature';
import { typedContractSha256 } from './rules';
import { buildDelegationChain, buildSigrChain, signSigrLink, signTypedContract, type DelegationLinkSpec } from './sign';
import { SIGR_GENESIS_PREV, sigrLinkSha256 } from './sigr';

const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(1);
const keyId = 'did:svc:evroom:typed';
const fields = {
  contract_type: 'effect.closure',
  contract_id: 'c-1',
  issued_at: '2026-03-01T12:00:00.000Z',
  issuer: 'did:web:acme.example',
  body: {
    effect_id: 'e-1',
    origin_receipt_sha256: '12'.repeat(32),
    outcome: 'succeeded',
    closed_at: '2026-03-01T13:00:00Z',
  },
};

describe('signTypedContract', () => {
  it('adds schema, key_id and algorithm, then signs under Rule D1', () => {
    const contract = signTypedContract(fields, seed, keyId, crypto);
    expect(contract).toMatchObject({
      schema: 'r1.0.0',
      key_id: keyId,
      algorithm: 'Ed25519',
      contract_type: 'effect.closure',
    });
    const digest = crypto.sha256(utf8Encode(ruleD1Payload(contract)));
    expect(contract['payload_sha256']).toBe(hexEncode(digest));
    expect(Object.keys(contract)).toHaveLength(10);
  });

  it('lets a test choose another algorithm or schema', () => {
    expect(signTypedContract({ ...fields, algorithm: 'Ed448' }, seed, keyId, crypto)['algorithm']).toBe('Ed448');
    expect(signTypedContract({ ...fields, schema: 'r9' }, seed, keyId, crypto)['schema']).toBe('r9');
  });

  it('checks its arguments', () => {
    expect(() => signTypedContract(null as unknown as typeof fields, seed, keyId, crypto)).toThrow(TypeError);
    expect(() => signTypedContract({ ...fields, body: [] as unknown as JsonObject }, seed, keyId, crypto)).toThrow(
      TypeError,
    );
    expect(() => signTypedContract(fields, seed, 'k 1', crypto)).toThrow(TypeError);
    expect(() => signTypedContract(fields, new Uint8Array(31), keyId, crypto)).toThrow(RangeError);
    expect(() => signTypedContract(fields, 'seed' as unknown as Uint8Array, keyId, crypto)).toThrow(TypeError);
  });
});

describe('sigr link signers', () => {
  const signers = [1, 2, 3].map((fill) => ({ key_id: `did:svc:s${fill}`, seed: new Uint8Array(32).fill(fill) }));
  const statements = ['01', '02', '03'].map((pair) => pair.repeat(32));

  it('chains each link to the whole previous link', () => {
    const links = buildSigrChain(statements, signers, crypto);
    expect(links.map((link) => link['prev_sha256'])).toEqual([
      SIGR_GENESIS_PREV,
      sigrLinkSha256(links[0]!, crypto),
      sigrLinkSha256(links[1]!, crypto),
    ]);
    expect(links.map((link) => link['signer_key_id'])).toEqual(['did:svc:s1', 'did:svc:s2', 'did:svc:s3']);
  });

  it('checks its arguments', () => {
    expect(() => buildSigrChain(statements, signers.slice(1), crypto)).toThrow(RangeError);
    expect(() => buildSigrChain([], [], crypto)).toThrow(RangeError);
    expect(() => buildSigrChain('x' as unknown as string[], signers, crypto)).toThrow(TypeError);
    expect(() => buildSigrChain(['AB'.repeat(32)], signers.slice(0, 1), crypto)).toThrow(RangeError);
    const fieldsOf = { signer_key_id: 'did:svc:s1', prev_sha256: SIGR_GENESIS_PREV, statement_sha256: statements[0]! };
    expect(() => signSigrLink({ ...fieldsOf, signer_key_id: 'no body' }, seed, crypto)).toThrow(TypeError);
    expect(() => signSigrLink({ ...fieldsOf, prev_sha256: '00' }, seed, crypto)).toThrow(RangeError);
    expect(() => signSigrLink(fieldsOf, new Uint8Array(8), crypto)).toThrow(RangeError);
  });
});

describe('buildDelegationChain', () => {
  const spec = (name: string, fill: number, delegator: string, delegate: string): DelegationLinkSpec => ({
    contract_id: `dlg-${name}`,
    issued_at: '2026-01-01T00:00:00Z',
    issuer: delegator,
    signer: { key_id: `did:svc:${name}`, seed: new Uint8Array(32).fill(fill) },
    body: { delegator, delegate, scope: ['a'], not_before: '2026-01-01T00:00:00Z', not_after: '2026-12-31T00:00:00Z' },
  });

  it('returns the leaf and its parents immediate first, each bound by hash', () => {
    const links = [
      spec('root', 1, 'did:web:r.example', 'did:web:m.example'),
      spec('mid', 2, 'did:web:m.example', 'did:web:l.example'),
      spec('leaf', 3, 'did:web:l.example', 'did:web:x.example'),
    ];
    const { contract, parents } = buildDelegationChain(links, crypto);
    expect(contract['contract_id']).toBe('dlg-leaf');
    expect(parents.map((parent) => parent['contract_id'])).toEqual(['dlg-mid', 'dlg-root']);
    expect((contract['body'] as JsonObject)['parent_sha256']).toBe(typedContractSha256(parents[0]!, crypto));
    // The spec is not modified.
    expect(links[2]!.body).not.toHaveProperty('parent_sha256');
  });

  it('a single link is a root without parents', () => {
    const { contract, parents } = buildDelegationChain(
      [spec('root', 1, 'did:web:r.example', 'did:web:m.example')],
      crypto,
    );
    expect(parents).toEqual([]);
    expect((contract['body'] as JsonObject)['parent_sha256']).toBeUndefined();
  });

  it('checks its arguments', () => {
    expect(() => buildDelegationChain([], crypto)).toThrow(RangeError);
    expect(() => buildDelegationChain({} as unknown as DelegationLinkSpec[], crypto)).toThrow(TypeError);
  });
});
