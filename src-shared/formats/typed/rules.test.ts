import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { createVerifyContext, type KeyEntry } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import { ed25519KeyEntry } from '../../verify/keys';
import type { Report } from '../../verify/report';
import { verifyDocument } from '../../verify/verify';
import { hexEncode } from '../../crypto';
import { ALLOWED_TRANSITIONS, TYPED_RULE_CHECKS, compareTimestamps, typedContractSha256 } from './rules';
import { buildDelegationChain, signTypedContract, type DelegationLinkSpec, type TypedSigner } from './sign';
import { MAX_DELEGATION_PARENTS, verifyTypedContract, verifyTypedRequest } from './verify';

const crypto = createPortableProvider();
const now = new Date('2026-06-01T00:00:00Z');
const signer = (name: string, fill: number): TypedSigner => ({
  key_id: `did:svc:evroom:${name}`,
  seed: new Uint8Array(32).fill(fill),
});
const signers = { root: signer('root', 3), middle: signer('middle', 4), leaf: signer('leaf', 5) };
const advertised: KeyEntry[] = Object.values(signers).map((entry) => ed25519KeyEntry(crypto, entry.key_id, entry.seed));
const ctx = createVerifyContext(crypto, { now, advertised });

/** Root grants the middle a, b, c over 2026; the middle grants the leaf's delegator a, b; the leaf grants a. */
function specs(): [DelegationLinkSpec, DelegationLinkSpec, DelegationLinkSpec] {
  return [
    {
      contract_id: 'dlg-root',
      issued_at: '2025-12-01T00:00:00.000Z',
      issuer: 'did:web:root.example',
      signer: signers.root,
      body: {
        delegator: 'did:web:root.example',
        delegate: 'did:web:middle.example',
        scope: ['a', 'b', 'c'],
        not_before: '2026-01-01T00:00:00Z',
        not_after: '2026-12-31T23:59:59Z',
      },
    },
    {
      contract_id: 'dlg-middle',
      issued_at: '2026-01-15T00:00:00.000Z',
      issuer: 'did:web:middle.example',
      signer: signers.middle,
      body: {
        delegator: 'did:web:middle.example',
        delegate: 'did:web:leaf.example',
        scope: ['a', 'b'],
        not_before: '2026-02-01T00:00:00Z',
        not_after: '2026-11-30T00:00:00Z',
      },
    },
    {
      contract_id: 'dlg-leaf',
      issued_at: '2026-02-15T00:00:00.000Z',
      issuer: 'did:web:leaf.example',
      signer: signers.leaf,
      body: {
        delegator: 'did:web:leaf.example',
        delegate: 'did:web:agent.example',
        scope: ['a'],
        not_before: '2026-03-01T00:00:00Z',
        not_after: '2026-10-31T00:00:00Z',
      },
    },
  ];
}

function statusOf(report: Report, id: string): string | undefined {
  return report.checks.find((check) => check.id === id)?.status;
}

function failing(report: Report): string[] {
  return report.checks.filter((check) => check.status === 'fail').map((check) => check.id);
}

function errorsOf(report: Report): [string, string][] {
  return report.errors.map((error) => [error.code, error.path]);
}

describe('compareTimestamps', () => {
  it.each<[string, string, number]>([
    ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z', 0],
    ['2026-01-01T00:00:00.5Z', '2026-01-01T00:00:00.500000000Z', 0],
    ['2026-01-01T00:00:00.000000001Z', '2026-01-01T00:00:00Z', 1],
    ['2026-01-01T00:00:00.0009Z', '2026-01-01T00:00:00.001Z', -1],
    ['2025-12-31T23:59:59.999999999Z', '2026-01-01T00:00:00Z', -1],
    ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', -1],
  ])('%s against %s is %i', (first, second, expected) => {
    expect(Math.sign(compareTimestamps(first, second))).toBe(expected);
    expect(Math.sign(compareTimestamps(second, first))).toBe(-expected || 0);
  });

  it('refuses what is not TS', () => {
    expect(() => compareTimestamps('2026-01-01', '2026-01-01T00:00:00Z')).toThrow(RangeError);
    expect(() => compareTimestamps('2026-02-30T00:00:00Z', '2026-01-01T00:00:00Z')).toThrow(RangeError);
    expect(() => compareTimestamps(1 as unknown as string, '2026-01-01T00:00:00Z')).toThrow(TypeError);
  });
});

describe('rule tables', () => {
  it('typedContractSha256 is SHA-256 of the JCS text', () => {
    const text = '{"a":[1,"x"],"b":{"c":null}}';
    expect(typedContractSha256({ b: { c: null }, a: [1, 'x'] }, crypto)).toBe(
      hexEncode(crypto.sha256(new TextEncoder().encode(text))),
    );
  });

  it('lists one rule check per single-rule type and the delegation parent rules', () => {
    expect(ALLOWED_TRANSITIONS).toEqual(['pending->verified', 'pending->rejected', 'verified->revoked']);
    expect(TYPED_RULE_CHECKS['authority.delegation']).toEqual([
      'rule.window_ordered',
      'rule.parent',
      'rule.parent_delegate',
      'rule.scope_within_parent',
      'rule.window_within_parent',
    ]);
    expect(TYPED_RULE_CHECKS['sigr.chain']).toEqual([]);
  });
});

describe('delegation chains', () => {
  const chain = buildDelegationChain(specs(), crypto);

  it('a chain of 3 links is PASS end to end, each parent its own checks', () => {
    const report = verifyTypedContract(chain.contract, { parents: chain.parents }, ctx);
    expect(report.status).toBe('PASS');
    expect(report.format).toBe('typed/authority.delegation');
    expect(report.errors).toEqual([]);
    const statuses = Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
    expect(statuses).toMatchObject({
      signature: 'pass',
      'rule.window_ordered': 'pass',
      'rule.parent': 'pass',
      'rule.parent_delegate': 'pass',
      'rule.scope_within_parent': 'pass',
      'rule.window_within_parent': 'pass',
      'parent[0]': 'pass',
      'parent[0].signature': 'pass',
      'parent[0].rule.parent': 'pass',
      'parent[0].rule.scope_within_parent': 'pass',
      'parent[1]': 'pass',
      'parent[1].signature': 'pass',
      // The root names no parent.
      'parent[1].rule.parent': 'unchecked',
      'parent[1].rule.parent_delegate': 'unchecked',
    });
    // Trust is the leaf's key; each parent's key is named in its summary.
    expect(report.trust).toMatchObject({ status: 'unpinned', key_id: signers.leaf.key_id });
    expect(report.checks.find((check) => check.id === 'parent[1]')?.detail).toContain(
      'did:svc:evroom:root (trust unpinned)',
    );
  });

  it('binds each link to the whole signed parent by parent_sha256', () => {
    expect((chain.contract['body'] as JsonObject)['parent_sha256']).toBe(
      typedContractSha256(chain.parents[0]!, crypto),
    );
    expect((chain.parents[0]!['body'] as JsonObject)['parent_sha256']).toBe(
      typedContractSha256(chain.parents[1]!, crypto),
    );
    expect((chain.parents[1]!['body'] as JsonObject)['parent_sha256']).toBeUndefined();
  });

  it('pinning the root does not change the report trust, which is the leaf key', () => {
    const pinned = { ...ed25519KeyEntry(crypto, signers.root.key_id, signers.root.seed), status: 'pinned' as const };
    const report = verifyTypedContract(chain.contract, { parents: chain.parents }, { ...ctx, pinned: [pinned] });
    expect(report.trust.key_id).toBe(signers.leaf.key_id);
    expect(report.checks.find((check) => check.id === 'parent[1]')?.detail).toContain('(trust trusted)');
  });

  it("a failing parent under a pinned key is named as its claimed key, never with that key's trust", () => {
    const pinned = { ...ed25519KeyEntry(crypto, signers.root.key_id, signers.root.seed), status: 'pinned' as const };
    const root = structuredClone(chain.parents[1]!);
    root['sig_b64u'] = (root['sig_b64u'] as string).startsWith('A')
      ? `B${(root['sig_b64u'] as string).slice(1)}`
      : `A${(root['sig_b64u'] as string).slice(1)}`;
    const report = verifyTypedContract(
      chain.contract,
      { parents: [chain.parents[0]!, root] },
      { ...ctx, pinned: [pinned] },
    );
    const detail = report.checks.find((check) => check.id === 'parent[1]')?.detail ?? '';
    expect(detail).toContain(`names key ${signers.root.key_id}, which did not sign it (unattributed)`);
    expect(detail).not.toContain('trusted');
  });

  it('a link that names a parent is never PASS without it', () => {
    const alone = verifyDocument(JSON.stringify(chain.contract), ctx);
    expect(alone.status).toBe('INDETERMINATE');
    expect(statusOf(alone, 'rule.parent')).toBe('unavailable');
    expect(errorsOf(alone)).toEqual([['parent_unavailable', '/body/parent_sha256']]);
    const partial = verifyTypedContract(chain.contract, { parents: chain.parents.slice(0, 1) }, ctx);
    expect(partial.status).toBe('INDETERMINATE');
    expect(statusOf(partial, 'parent[0].rule.parent')).toBe('unavailable');
    expect(errorsOf(partial)).toEqual([['parent_unavailable', '/parents/0/body/parent_sha256']]);
  });

  it('a root delegation alone is PASS with the parent rules unchecked', () => {
    const root = verifyDocument(JSON.stringify(chain.parents[1]), ctx);
    expect(root.status).toBe('PASS');
    expect(statusOf(root, 'rule.parent')).toBe('unchecked');
  });

  it('delegate mismatch at the leaf is reported on the leaf', () => {
    const links = specs();
    links[2].body.delegator = 'did:web:other.example';
    const broken = buildDelegationChain(links, crypto);
    const report = verifyTypedContract(broken.contract, { parents: broken.parents }, ctx);
    expect(report.status).toBe('MISMATCH');
    expect(failing(report)).toEqual(['rule.parent_delegate']);
    expect(errorsOf(report)).toEqual([['delegator_not_parent_delegate', '/body/delegator']]);
  });

  it('delegate mismatch in the middle is reported on parent[0]', () => {
    const links = specs();
    links[1].body.delegator = 'did:web:other.example';
    // Keep the leaf's delegator equal to the middle's delegate, so only the middle link breaks.
    const broken = buildDelegationChain(links, crypto);
    const report = verifyTypedContract(broken.contract, { parents: broken.parents }, ctx);
    expect(report.status).toBe('MISMATCH');
    expect(failing(report)).toEqual(['parent[0]', 'parent[0].rule.parent_delegate']);
    expect(errorsOf(report)).toEqual([['delegator_not_parent_delegate', '/parents/0/body/delegator']]);
  });

  it('scope widening is MISMATCH at the widened scope', () => {
    const links = specs();
    links[2].body.scope = ['a', 'c'];
    const leafWidens = buildDelegationChain(links, crypto);
    const leafReport = verifyTypedContract(leafWidens.contract, { parents: leafWidens.parents }, ctx);
    expect(failing(leafReport)).toEqual(['rule.scope_within_parent']);
    expect(errorsOf(leafReport)).toEqual([['scope_not_in_parent', '/body/scope/1']]);

    const middle = specs();
    middle[1].body.scope = ['a', 'b', 'd'];
    const middleWidens = buildDelegationChain(middle, crypto);
    const middleReport = verifyTypedContract(middleWidens.contract, { parents: middleWidens.parents }, ctx);
    expect(middleReport.status).toBe('MISMATCH');
    expect(failing(middleReport)).toEqual(['parent[0]', 'parent[0].rule.scope_within_parent']);
    expect(errorsOf(middleReport)).toEqual([['scope_not_in_parent', '/parents/0/body/scope/2']]);
  });

  it('scopes compare exactly: no case folding, no prefixes', () => {
    const links = specs();
    links[2].body.scope = ['A'];
    const broken = buildDelegationChain(links, crypto);
    expect(verifyTypedContract(broken.contract, { parents: broken.parents }, ctx).status).toBe('MISMATCH');
  });

  it('a window outside the parent is MISMATCH at the bound that leaves it', () => {
    const late = specs();
    late[2].body.not_after = '2026-11-30T00:00:00.000000001Z';
    const lateChain = buildDelegationChain(late, crypto);
    const lateReport = verifyTypedContract(lateChain.contract, { parents: lateChain.parents }, ctx);
    expect(failing(lateReport)).toEqual(['rule.window_within_parent']);
    expect(errorsOf(lateReport)).toEqual([['window_outside_parent', '/body/not_after']]);

    const early = specs();
    early[1].body.not_before = '2025-12-31T23:59:59.999Z';
    const earlyChain = buildDelegationChain(early, crypto);
    const earlyReport = verifyTypedContract(earlyChain.contract, { parents: earlyChain.parents }, ctx);
    expect(failing(earlyReport)).toEqual(['parent[0]', 'parent[0].rule.window_within_parent']);
    expect(errorsOf(earlyReport)).toEqual([['window_outside_parent', '/parents/0/body/not_before']]);
  });

  it('a window equal to the parent window is within it', () => {
    const links = specs();
    links[2].body.not_before = links[1].body.not_before;
    links[2].body.not_after = links[1].body.not_after;
    const edge = buildDelegationChain(links, crypto);
    expect(verifyTypedContract(edge.contract, { parents: edge.parents }, ctx).status).toBe('PASS');
  });

  it('a parent other than the one parent_sha256 names is MISMATCH on the link that names it', () => {
    // A validly signed middle with the same rights but another contract_id: consistent, yet not the bound parent.
    const [, middle] = specs();
    const rootHash = typedContractSha256(chain.parents[1]!, crypto);
    const substitute = signTypedContract(
      {
        contract_type: 'authority.delegation',
        contract_id: 'dlg-middle-2',
        issued_at: middle.issued_at,
        issuer: middle.issuer,
        body: { ...middle.body, parent_sha256: rootHash },
      },
      signers.middle.seed,
      signers.middle.key_id,
      crypto,
    );
    const report = verifyTypedContract(chain.contract, { parents: [substitute, chain.parents[1]!] }, ctx);
    expect(report.status).toBe('MISMATCH');
    expect(failing(report)).toEqual(['rule.parent']);
    expect(errorsOf(report)).toEqual([['parent_sha256_mismatch', '/body/parent_sha256']]);

    const otherRoot = buildDelegationChain([{ ...specs()[0], contract_id: 'dlg-root-2' }], crypto).contract;
    const rootSwap = verifyTypedContract(chain.contract, { parents: [chain.parents[0]!, otherRoot] }, ctx);
    expect(failing(rootSwap)).toEqual(['parent[0]', 'parent[0].rule.parent']);
    expect(errorsOf(rootSwap)).toEqual([['parent_sha256_mismatch', '/parents/0/body/parent_sha256']]);
  });

  it('a parent with a bad signature is INVALID on that parent', () => {
    const links = specs();
    links[0] = { ...links[0], signer: { key_id: signers.root.key_id, seed: new Uint8Array(32).fill(9) } };
    const forged = buildDelegationChain(links, crypto);
    const report = verifyTypedContract(forged.contract, { parents: forged.parents }, ctx);
    expect(report.status).toBe('INVALID');
    expect(failing(report)).toEqual(['parent[1]', 'parent[1].signature']);
    expect(errorsOf(report)).toEqual([['signature_invalid', '/parents/1/sig_b64u']]);
  });

  it('a tampered parent breaks its own digest and the hash its child holds', () => {
    const tampered = structuredClone(chain.parents[0]!);
    (tampered['body'] as JsonObject)['scope'] = ['a', 'b', 'c'];
    const report = verifyTypedContract(chain.contract, { parents: [tampered, chain.parents[1]!] }, ctx);
    expect(report.status).toBe('MISMATCH');
    expect(failing(report)).toEqual(['rule.parent', 'parent[0]', 'parent[0].payload_sha256', 'parent[0].signature']);
  });

  it('a parent with an unknown key is INDETERMINATE on that parent', () => {
    const limited = createVerifyContext(crypto, {
      now,
      advertised: advertised.filter((entry) => entry.key_id !== signers.middle.key_id),
    });
    const report = verifyTypedContract(chain.contract, { parents: chain.parents }, limited);
    expect(report.status).toBe('INDETERMINATE');
    expect(statusOf(report, 'parent[0]')).toBe('unavailable');
    expect(errorsOf(report)).toEqual([['key_unavailable', '/parents/0/key_id']]);
  });

  it('a malformed parent is MALFORMED at its path; the child cannot relate to it', () => {
    const report = verifyTypedContract(
      chain.contract,
      { parents: [{ contract_type: 'authority.delegation' }, chain.parents[1]!] },
      ctx,
    );
    expect(report.status).toBe('MALFORMED');
    expect(statusOf(report, 'parent[0]')).toBe('fail');
    expect(statusOf(report, 'parent[0].schema')).toBe('fail');
    expect(statusOf(report, 'rule.parent_delegate')).toBe('unavailable');
    expect(errorsOf(report)).toContainEqual(['missing_property', '/parents/0/body']);
  });

  it('a parent of another contract type is MALFORMED', () => {
    const demand = signTypedContract(
      {
        contract_type: 'proof.demand',
        contract_id: 'd',
        issued_at: '2026-01-01T00:00:00Z',
        issuer: 'did:web:x.example',
        body: {},
      },
      signers.middle.seed,
      signers.middle.key_id,
      crypto,
    );
    const report = verifyTypedContract(chain.contract, { parents: [demand, chain.parents[1]!] }, ctx);
    expect(report.status).toBe('MALFORMED');
    expect(errorsOf(report)).toContainEqual(['contract_type_mismatch', '/parents/0/contract_type']);
  });

  it(`more than ${MAX_DELEGATION_PARENTS} parents are refused`, () => {
    const parents = Array.from({ length: MAX_DELEGATION_PARENTS + 1 }, () => chain.parents[0]!);
    const report = verifyTypedContract(chain.contract, { parents }, ctx);
    expect(report.status).toBe('MALFORMED');
    expect(errorsOf(report)).toContainEqual(['too_many_parents', '/parents']);
  });

  it('the delegation-link route takes {contract, parents}', () => {
    const body = JSON.stringify({ contract: chain.contract, parents: chain.parents });
    expect(verifyTypedRequest(body, 'delegation-link', ctx).status).toBe('PASS');
    const forged = verifyTypedRequest(
      JSON.stringify({ contract: { ...chain.contract, contract_id: 'dlg-x' }, parents: chain.parents }),
      'delegation-link',
      ctx,
    );
    expect(errorsOf(forged)).toContainEqual(['digest_mismatch', '/contract/payload_sha256']);
    const without = verifyTypedRequest(JSON.stringify({ contract: chain.contract }), 'delegation-link', ctx);
    expect(errorsOf(without)).toEqual([['parent_unavailable', '/contract/body/parent_sha256']]);
  });

  it('not_before equal to not_after is MISMATCH; ordering is at full precision', () => {
    const [root] = specs();
    const equal = buildDelegationChain(
      [{ ...root, body: { ...root.body, not_after: '2026-01-01T00:00:00.000Z' } }],
      crypto,
    );
    const report = verifyDocument(JSON.stringify(equal.contract), ctx);
    expect(report.status).toBe('MISMATCH');
    expect(statusOf(report, 'rule.window_ordered')).toBe('fail');
  });
});
