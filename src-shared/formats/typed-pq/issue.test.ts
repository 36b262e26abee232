import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { parseJsonTree, toPlain } from '../../json';
import type { IssueFields, IssueInput, IssueKey } from '../../verify/format-module';
import { IssueInputError } from '../../verify/issue-error';
import { verifyDocument } from '../../verify/verify';
import { typedPqIssuer } from './issue';

function pqKey(): IssueKey {
  const seed = new Uint8Array(32).fill(6);
  return { key_id: 'did:svc:test:pq1', algorithm: 'ML-DSA-65', seed, public_key: crypto.mldsa65KeyGen(seed).publicKey };
}

const crypto = createPortableProvider();
const NOW = new Date('2026-06-01T12:00:00.000Z');

function fields(text: string): IssueFields {
  const tree = parseJsonTree(text);
  return { text, tree, value: toPlain(tree) };
}

function input(parts: Partial<IssueInput> & Pick<IssueInput, 'name' | 'fields'>): IssueInput {
  return {
    roles: {},
    now: NOW,
    crypto,
    verify: (text, keys, secrets) =>
      verifyDocument(text, { crypto, pinned: [], advertised: [...keys], secrets: [...secrets], now: NOW }),
    ...parts,
  };
}

describe('typedPqIssuer', () => {
  it('issues a document that verifies with the keys it names', () => {
    const issued = typedPqIssuer.issue(
      input({
        name: 'typed-pq',
        fields: fields(
          '{"fragments":[{"text":"plan","type":"decomposition"},{"text":"answer","type":"final","id":"a"}],"agg_mode":"merkle","hash_suite":"sha-384","sign_types":["final"],"policy_id":"p"}',
        ),
        key: pqKey(),
      }),
    );
    const report = verifyDocument(issued.text, {
      crypto,
      pinned: [],
      advertised: issued.keys,
      secrets: issued.secrets,
      now: NOW,
    });
    expect([report.format, report.status]).toEqual(['typed-pq', 'PASS']);
    expect(issued.text.endsWith('\n')).toBe(true);
    const envelope = (JSON.parse(issued.text) as { envelope: Record<string, unknown> }).envelope;
    expect(envelope).toMatchObject({
      agg_mode: 'merkle',
      hash_suite: 'sha-384',
      policy_id: 'p',
      attested: 1,
      fragment_count: 2,
      issued_at: NOW.toISOString(),
    });
    expect(Object.hasOwn(envelope, 'key_id')).toBe(false);
  });

  it("defaults to linear, sha-256, every fragment attested, and the caller's issuing instant", () => {
    const issued = typedPqIssuer.issue(
      input({
        name: 'typed-pq',
        fields: fields('{"fragments":[{"text":"x","type":"reasoning"},{"text":"y","type":"final"}]}'),
        key: pqKey(),
        issuedAt: '2026-01-02T03:04:05.000Z',
      }),
    );
    const envelope = (JSON.parse(issued.text) as { envelope: Record<string, unknown> }).envelope;
    expect(envelope).toMatchObject({ agg_mode: 'linear', attested: 2, issued_at: '2026-01-02T03:04:05.000Z' });
    expect(Object.hasOwn(envelope, 'hash_suite')).toBe(false);
  });

  it.each([
    ['{"fragments":{}}', 'not_an_array', '/fragments'],
    ['{"fragments":[]}', 'out_of_range', '/fragments'],
    ['{"fragments":[1]}', 'not_an_object', '/fragments/0'],
    ['{"fragments":[{"text":"a"}]}', 'not_a_string', '/fragments/0/type'],
    ['{"fragments":[{"text":"a","type":"t","value":{}}]}', 'unknown_member', '/fragments/0/value'],
    [
      '{"fragments":[{"text":"a","type":"t","id":"x"},{"text":"b","type":"t","id":"x"}]}',
      'duplicate_id',
      '/fragments/1/id',
    ],
    ['{"fragments":[{"text":"a","type":"t"}],"agg_mode":"tree"}', 'out_of_range', '/agg_mode'],
    ['{"fragments":[{"text":"a","type":"t"}],"hash_suite":"md5"}', 'out_of_range', '/hash_suite'],
    ['{"fragments":[{"text":"a","type":"t"}],"sign_types":"t"}', 'not_an_array', '/sign_types'],
    ['{"fragments":[{"text":"a","type":"t"}],"temporal":1}', 'not_an_object', '/temporal'],
    ['{"fragments":[{"text":"a","type":"t"}],"key_id":"x"}', 'unknown_member', '/key_id'],
  ])('refuses %s with a stable code and path', (text, code, path) => {
    let refusal: unknown;
    try {
      typedPqIssuer.issue(input({ name: 'typed-pq', fields: fields(text), key: pqKey() }));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(IssueInputError);
    const { code: got, path: at } = refusal as IssueInputError;
    expect([got, at]).toEqual([code, path]);
  });
});
