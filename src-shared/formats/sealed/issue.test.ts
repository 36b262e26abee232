import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { parseJsonTree, toPlain } from '../../json';
import type { IssueFields, IssueInput } from '../../verify/format-module';
import { IssueInputError } from '../../verify/issue-error';
import { verifyDocument } from '../../verify/verify';
import { sealedIssuer } from './issue';
import { signClassical } from '../classical';

const secret = { key_id: 'test/seal', key: new Uint8Array(32).fill(7) };

function classicalText(): string {
  return signClassical('{"amount":1.50}', new Uint8Array(32).fill(1), crypto);
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

describe('sealedIssuer', () => {
  it('issues a document that verifies with the keys it names', () => {
    const issued = sealedIssuer.issue(input({ name: 'sealed', fields: fields(classicalText()), secret }));
    const report = verifyDocument(issued.text, {
      crypto,
      pinned: [],
      advertised: issued.keys,
      secrets: issued.secrets,
      now: NOW,
    });
    expect([report.format, report.status]).toEqual(['sealed', 'PASS']);
    expect(issued.text.endsWith('\n')).toBe(true);
  });

  it('refuses fields it cannot issue with a stable code and path', () => {
    let refusal: unknown;
    try {
      sealedIssuer.issue(input({ name: 'sealed', fields: fields('{"a":1}'), secret }));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(IssueInputError);
    const { code, path } = refusal as IssueInputError;
    expect([code, path]).toEqual(['not_a_document', '']);
  });
});
