import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { parseJsonTree, toPlain } from '../../json';
import type { IssueInput, IssueKey } from '../../verify/format-module';
import { IssueInputError } from '../../verify/issue-error';
import { verifyDocument } from '../../verify/verify';
import { sigrChainIssuer } from './issue';

const crypto = createPortableProvider();
const NOW = new Date('2026-06-01T12:00:00.000Z');
const seed = new Uint8Array(32).fill(6);
const KEY: IssueKey = {
  key_id: 'did:svc:test:pq1',
  algorithm: 'ML-DSA-65',
  seed,
  public_key: crypto.mldsa65KeyGen(seed).publicKey,
};

function input(text: string, parts: Partial<IssueInput> = {}): IssueInput {
  const tree = parseJsonTree(text);
  return {
    name: 'sigr-chain',
    fields: { text, tree, value: toPlain(tree) },
    key: KEY,
    roles: {},
    now: NOW,
    crypto,
    verify: (document, keys, secrets) =>
      verifyDocument(document, { crypto, pinned: [], advertised: [...keys], secrets: [...secrets], now: NOW }),
    ...parts,
  };
}

const RUN = {
  run_id: 'run-1',
  steps: [
    { step_id: 'a', kind: 'plan', seq: 0, parents: [], input: { goal: 'g' } },
    { step_id: 'b', kind: 'final', seq: 1, parents: ['a'], input_digest: 'ab'.repeat(32), output: 'done' },
  ],
};

function refusal(text: string): IssueInputError {
  try {
    sigrChainIssuer.issue(input(text));
  } catch (error) {
    if (error instanceof IssueInputError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('sigrChainIssuer', () => {
  it('seals a run that verifies PASS, trusted with its key pinned', () => {
    const issued = sigrChainIssuer.issue(input(JSON.stringify(RUN), { issuedAt: '2026-06-02T00:00:00.000Z' }));
    const envelope = (JSON.parse(issued.text) as { envelope: Record<string, unknown> }).envelope;
    expect(envelope).toMatchObject({
      run_id: 'run-1',
      agent_ref: 'unspecified',
      issued_at: '2026-06-02T00:00:00.000Z',
    });
    expect(issued.keys.map((entry) => entry.key_id)).toEqual(['did:svc:test:pq1']);
    const pinned = issued.keys.map((entry) => ({ ...entry, status: 'pinned' as const }));
    const report = verifyDocument(issued.text, { crypto, pinned, advertised: [], secrets: [], now: NOW });
    expect(report).toMatchObject({ format: 'sigr-chain-pq', status: 'PASS', trust: { status: 'trusted' } });
    const at384 = sigrChainIssuer.issue(
      input(JSON.stringify({ ...RUN, steps: [RUN.steps[0]], hash_suite: 'sha-384' })),
    );
    expect(JSON.parse(at384.text)).toMatchObject({ envelope: { hash_suite: 'sha-384', issued_at: NOW.toISOString() } });
  });

  it('refuses fields it cannot seal, at their path', () => {
    const cases: [unknown, string, string][] = [
      [{ ...RUN, note: 1 }, 'unknown_member', '/note'],
      [{ steps: RUN.steps }, 'missing_member', '/run_id'],
      [{ ...RUN, run_id: '' }, 'invalid_value', '/run_id'],
      [{ ...RUN, hash_suite: 'md5' }, 'invalid_value', '/hash_suite'],
      [{ ...RUN, steps: [] }, 'invalid_value', '/steps'],
      [{ ...RUN, steps: [{ ...RUN.steps[0], kind: 'browse' }] }, 'invalid_value', '/steps/0/kind'],
      [{ ...RUN, steps: [{ ...RUN.steps[0], extra: 1 }] }, 'unknown_member', '/steps/0/extra'],
      [{ ...RUN, steps: [{ ...RUN.steps[0], input_digest: 'zz' }] }, 'invalid_value', '/steps/0/input_digest'],
      [{ ...RUN, steps: [{ ...RUN.steps[0], parents: ['a'] }] }, 'invalid_run', '/steps'],
    ];
    for (const [fields, code, path] of cases) {
      const error = refusal(JSON.stringify(fields));
      expect([error.code, error.path], JSON.stringify(fields)).toEqual([code, path]);
    }
  });
});
