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
      input({ name: 'typed-pq', fields: fields('{"fragments":[1,"two"]}'), key: pqKey() }),
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
  });

  it('refuses fields it cannot issue with a stable code and path', () => {
    let refusal: unknown;
    try {
      typedPqIssuer.issue(input({ name: 'typed-pq', fields: fields('{"fragments":{}}'), key: pqKey() }));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(IssueInputError);
    const { code, path } = refusal as IssueInputError;
    expect([code, path]).toEqual(['not_an_array', '/fragments']);
  });
});
