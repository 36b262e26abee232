import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import type { JsonObject } from '../../verify/fields';
import { TYPED_CONTRACT_TYPES } from './contract-types';
import { readTypedContract } from './schema';
import { buildSigrChain, signTypedContract } from './sign';

const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(1);
const schemaDirectory = fileURLToPath(new URL('../../../resources/schemas/', import.meta.url));
const demand = signTypedContract(
  {
    contract_type: 'proof.demand',
    contract_id: 'd-1',
    issued_at: '2026-03-01T12:00:00.000Z',
    issuer: 'did:web:auditor.example',
    body: {
      demander: 'did:web:auditor.example',
      respondent: 'did:web:acme.example',
      subject_sha256: 'ab'.repeat(32),
      required: ['receipt'],
      due_by: '2026-03-02T00:00:00Z',
    },
  },
  seed,
  'did:svc:evroom:typed',
  crypto,
);

function problemsOf(value: unknown): [string, string][] {
  const reading = readTypedContract(value as JsonObject);
  return reading.ok ? [] : reading.problems.map((entry) => [entry.code, entry.path]);
}

describe('readTypedContract', () => {
  it('accepts a well-formed contract and types it', () => {
    const reading = readTypedContract(demand);
    expect(reading.ok).toBe(true);
    if (reading.ok) expect(reading.contract.contract_type).toBe('proof.demand');
  });

  it('collects envelope and body problems together and still names a known type', () => {
    const broken = { ...demand, issuer: 'Acme', body: { ...(demand['body'] as JsonObject), due_by: 'tomorrow' } };
    const reading = readTypedContract(broken);
    expect(reading.ok).toBe(false);
    if (!reading.ok) expect(reading.contractType).toBe('proof.demand');
    expect(problemsOf(broken)).toEqual([
      ['pattern_mismatch', '/issuer'],
      ['pattern_mismatch', '/body/due_by'],
    ]);
  });

  it('refuses a non-object with a path to the whole document', () => {
    expect(problemsOf([demand])).toEqual([['invalid_type', '']]);
  });

  it('bounds parties to 512 characters of DID syntax', () => {
    const long = `did:web:${'a'.repeat(504)}`;
    expect(long).toHaveLength(512);
    expect(problemsOf({ ...demand, issuer: long })).toEqual([]);
    expect(problemsOf({ ...demand, issuer: `${long}a` })).toEqual([['too_long', '/issuer']]);
    expect(problemsOf({ ...demand, issuer: 'did:web:acme.example:' })).toEqual([['pattern_mismatch', '/issuer']]);
    expect(problemsOf({ ...demand, issuer: 'did:web:acme%2Eexample' })).toEqual([]);
  });

  it('refuses a signature whose spare bits are set', () => {
    const signature = demand['sig_b64u'] as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // The last of 86 characters carries 4 unused bits; setting the lowest gives the same bytes.
    const respelled = signature.slice(0, -1) + alphabet[alphabet.indexOf(signature.at(-1)!) | 1];
    expect(problemsOf({ ...demand, sig_b64u: respelled })).toEqual([['invalid_signature_encoding', '/sig_b64u']]);
  });

  it('checks each sigr link signer and signature', () => {
    const links = buildSigrChain(
      ['01'.repeat(32), '02'.repeat(32)],
      [1, 2].map((fill) => ({ key_id: `did:svc:s${fill}`, seed: new Uint8Array(32).fill(fill) })),
      crypto,
    );
    const chain = { ...demand, contract_type: 'sigr.chain', body: { links } };
    expect(problemsOf(chain)).toEqual([]);
    links[1] = { ...links[1]!, signer_key_id: 'did:key:z6Mk1' };
    expect(problemsOf(chain)).toEqual([['invalid_key_id', '/body/links/1/signer_key_id']]);
    expect(problemsOf({ ...chain, body: { links: [] } })).toEqual([['too_few_items', '/body/links']]);
  });

  it('a conditions list may not be empty', () => {
    const clearance = {
      ...demand,
      contract_type: 'imprimatur.clearance',
      body: {
        artifact_sha256: 'ab'.repeat(32),
        approver: 'did:web:a.example',
        policy_sha256: 'cd'.repeat(32),
        decision: 'conditional',
        conditions: [],
      },
    };
    expect(problemsOf(clearance)).toEqual([['too_few_items', '/body/conditions']]);
  });
});

describe('published typed schemas', () => {
  // typed-pq.schema.json belongs to the typed post-quantum envelope, not to these contracts.
  const files = readdirSync(schemaDirectory).filter(
    (file) => file.startsWith('typed-') && file.endsWith('.schema.json') && file !== 'typed-pq.schema.json',
  );

  it('one envelope schema and one per contract type', () => {
    const expected = ['typed-contract', ...TYPED_CONTRACT_TYPES.map((type) => `typed-${type.replace('.', '-')}`)];
    expect(files.map((file) => file.replace('.schema.json', '')).sort()).toEqual(expected.sort());
  });

  it.each(files)('%s is closed, 2020-12 and has its own $id', (file) => {
    const schema = JSON.parse(readFileSync(schemaDirectory + file, 'utf8')) as JsonObject;
    expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema['$id']).toBe(`https://evidence-room.local/schemas/${file}`);
    expect(schema['additionalProperties']).toBe(false);
  });
});
