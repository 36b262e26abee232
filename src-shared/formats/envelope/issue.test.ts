import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { parseJsonTree, toPlain } from '../../json';
import type { IssueFields, IssueInput, IssueKey } from '../../verify/format-module';
import { IssueInputError } from '../../verify/issue-error';
import { verifyDocument } from '../../verify/verify';
import { envelopeIssuer } from './issue';

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

describe('envelopeIssuer', () => {
  it('issues a document that verifies with the keys it names', () => {
    const issued = envelopeIssuer.issue(
      input({
        name: 'envelope',
        fields: fields('{"receipt_id":"rcp_01JD0000000000000000000000"}'),
        key,
        roles: { requester: ed25519(3), operator: ed25519(4) },
      }),
    );
    const report = verifyDocument(issued.text, {
      crypto,
      pinned: [],
      advertised: issued.keys,
      secrets: issued.secrets,
      now: NOW,
    });
    expect([report.format, report.status]).toEqual(['envelope/svc-receipt-v1', 'PASS']);
    expect(issued.text.endsWith('\n')).toBe(true);
  });

  it('refuses fields it cannot issue with a stable code and path', () => {
    let refusal: unknown;
    try {
      envelopeIssuer.issue(input({ name: 'envelope', fields: fields('{"signatures":{}}'), key }));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(IssueInputError);
    const { code, path } = refusal as IssueInputError;
    expect([code, path]).toEqual(['signatures_given', '/signatures']);
  });
});
