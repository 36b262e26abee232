import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { parseJsonTree, toPlain } from '../../json';
import type { IssueFields, IssueInput, IssueKey } from '../../verify/format-module';
import type { KeyEntry } from '../../verify/context';
import { IssueInputError } from '../../verify/issue-error';
import type { Report } from '../../verify/report';
import { verifyDocument } from '../../verify/verify';
import { countersignerIssuer } from './issue';

const crypto = createPortableProvider();
const NOW = new Date('2026-06-01T12:00:00.000Z');

function ed25519(fill: number): IssueKey {
  const seed = new Uint8Array(32).fill(fill);
  return { key_id: `did:svc:test:key${fill}`, algorithm: 'Ed25519', seed, public_key: crypto.ed25519PublicKey(seed) };
}

const key = ed25519(2);

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

const REQUEST = '{"record":{"pass_id":"p-1","amount":1.50,"holder":"Zoë"},"operator_signature":"c2lnbmF0dXJl"}';

function verifyIssued(text: string, keys: KeyEntry[]): Report {
  return verifyDocument(text, { crypto, pinned: [], advertised: keys, secrets: [], now: NOW });
}

describe('countersignerIssuer', () => {
  it('issues the countersign answer of entry 1 of a new log, at the issuing instant', () => {
    const issued = countersignerIssuer.issue(input({ name: 'countersigner', fields: fields(REQUEST), key }));
    const report = verifyIssued(issued.text, issued.keys);
    expect([report.format, report.status]).toEqual(['countersigner', 'PASS']);
    expect(report.checks.find((check) => check.id === 'inclusion')?.status).toBe('pass');
    const answer = JSON.parse(issued.text) as { seq: number; signed_over: Record<string, unknown> };
    expect(answer.seq).toBe(1);
    expect(answer.signed_over['operator_signature_scheme']).toBe('unstated');
    // 2026-06-01T12:00:00.000Z in Unix seconds, written as Python writes the float.
    expect(issued.text).toContain('"countersigner_time": 1780315200.0,');
    expect(issued.text.endsWith('\n')).toBe(true);
  });

  it('continues a log from its leaves, at a chosen instant', () => {
    const first = JSON.parse(
      countersignerIssuer.issue(input({ name: 'countersigner', fields: fields(REQUEST), key })).text,
    ) as { signed_over: { leaf: string } };
    const request = REQUEST.replace(
      '}',
      `},"operator_signature_scheme":"ml-dsa-65","log_leaves":["${first.signed_over.leaf}"]`,
    );
    const issued = countersignerIssuer.issue(
      input({ name: 'countersigner', fields: fields(request), key, issuedAt: '2026-06-01T12:00:01.250Z' }),
    );
    const answer = JSON.parse(issued.text) as { seq: number; signed_over: Record<string, unknown> };
    expect([answer.seq, answer.signed_over['prev_leaf'], answer.signed_over['countersigner_time']]).toEqual([
      2,
      first.signed_over.leaf,
      1780315201.25,
    ]);
    expect(verifyIssued(issued.text, issued.keys).status).toBe('PASS');
  });

  it.each<[string, string | undefined, string, string]>([
    ['no key', undefined, 'key_missing', ''],
    ['a record that is not an object', '{"record":[1],"operator_signature":"s"}', 'invalid_record', '/record'],
    ['no operator signature', '{"record":{}}', 'missing_member', '/operator_signature'],
    [
      'an empty operator signature',
      '{"record":{},"operator_signature":""}',
      'invalid_operator_signature',
      '/operator_signature',
    ],
    [
      'a scheme that is not a string',
      '{"record":{},"operator_signature":"s","operator_signature_scheme":1}',
      'invalid_operator_signature_scheme',
      '/operator_signature_scheme',
    ],
    [
      'a bad log leaf',
      '{"record":{},"operator_signature":"s","log_leaves":["AB"]}',
      'invalid_log_leaves',
      '/log_leaves/0',
    ],
    [
      'log_leaves not an array',
      '{"record":{},"operator_signature":"s","log_leaves":"x"}',
      'invalid_log_leaves',
      '/log_leaves',
    ],
    ['an unknown member', '{"record":{},"operator_signature":"s","seq":3}', 'unknown_member', '/seq'],
  ])('refuses %s with a stable code and path', (_name, text, code, path) => {
    let refusal: unknown;
    try {
      countersignerIssuer.issue(
        input({ name: 'countersigner', fields: fields(text ?? REQUEST), ...(text === undefined ? {} : { key }) }),
      );
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(IssueInputError);
    expect([(refusal as IssueInputError).code, (refusal as IssueInputError).path]).toEqual([code, path]);
  });
});
