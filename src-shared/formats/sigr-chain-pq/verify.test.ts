import { describe, expect, it } from 'vitest';
import { b64Encode, createPortableProvider } from '../../crypto';
import { fromPlain } from '../../json';
import { createVerifyContext, type KeyEntry } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import type { Report } from '../../verify/report';
import { verifyDocument } from '../../verify/verify';
import { sigrSuite } from './chain';
import { sigrChainExampleRun } from './example';
import { signSigrChain } from './sign';
import { detectSigrChain, sigrChainChecks } from './verify';

const crypto = createPortableProvider();
const issuer = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x61));
const other = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x62));
const suite = sigrSuite('sha-256', crypto);
if (suite === undefined) throw new Error('suite missing');
const ISSUED_AT = '2026-06-01T12:00:00.000Z';
const valid = signSigrChain(sigrChainExampleRun(suite), issuer.secretKey, issuer.publicKey, crypto, {
  issuedAt: ISSUED_AT,
});
const ctx = createVerifyContext(crypto);

function copy(): JsonObject {
  return JSON.parse(JSON.stringify(valid)) as JsonObject;
}
function envelope(document: JsonObject): JsonObject {
  return document['envelope'] as JsonObject;
}
function step(document: JsonObject, index: number): JsonObject {
  return (envelope(document)['steps'] as JsonObject[])[index] as JsonObject;
}
function verify(document: unknown, context = ctx): Report {
  return verifyDocument(JSON.stringify(document), context);
}
function failing(report: Report): string[] {
  return report.checks.filter((check) => check.status === 'fail').map((check) => check.id);
}
function codes(report: Report): string[] {
  return report.errors.map((error) => error.code);
}

describe('detectSigrChain', () => {
  it('recognizes only envelope.object sigr.chain.receipt', () => {
    expect(detectSigrChain(fromPlain(valid))).toBe('sigr-chain-pq');
    expect(detectSigrChain(fromPlain({ envelope: { object: 'afir.attestation' } }))).toBeUndefined();
    expect(detectSigrChain(fromPlain({ envelope: { version: '1.0.0-typed-pq', steps: [] } }))).toBeUndefined();
    expect(detectSigrChain(fromPlain(envelope(copy())))).toBeUndefined();
    expect(detectSigrChain(fromPlain({ envelope: [] }))).toBeUndefined();
  });
});

describe('verifySigrChain', () => {
  it('passes a sealed run, every link checked, what is unsigned listed unchecked', () => {
    const report = verify(valid);
    expect(report).toMatchObject({ format: 'sigr-chain-pq', status: 'PASS', trust: { status: 'unpinned' } });
    expect(report.checks.map((check) => check.id)).toEqual(sigrChainChecks(5));
    expect(report.checks.filter((check) => check.status === 'unchecked').map((check) => check.id)).toEqual([
      'step_io',
      'issued_at',
    ]);
    expect(report.checks.filter((check) => check.status === 'pass')).toHaveLength(sigrChainChecks(5).length - 2);
  });

  it('is trusted only when a pinned ML-DSA-65 entry holds the inline key bytes', () => {
    const entry = (publicKey: Uint8Array): KeyEntry => ({
      key_id: 'did:svc:test:sigr',
      algorithm: 'ML-DSA-65',
      public_key: publicKey,
      status: 'pinned',
      label: 'SiGR issuer',
    });
    const pinned = verify(valid, createVerifyContext(crypto, { pinned: [entry(issuer.publicKey)] }));
    expect(pinned).toMatchObject({ status: 'PASS', trust: { status: 'trusted', key_id: 'did:svc:test:sigr' } });
    const otherPinned = verify(valid, createVerifyContext(crypto, { pinned: [entry(other.publicKey)] }));
    expect(otherPinned.trust.status).toBe('unpinned');
    const advertised = verify(valid, createVerifyContext(crypto, { advertised: [entry(issuer.publicKey)] }));
    expect(advertised.trust.status).toBe('unpinned');
  });

  it('says which link breaks', () => {
    const cases: [string, (document: JsonObject) => void, string[]][] = [
      ['io_digest', (d) => (step(d, 1)['io_digest'] = 'f'.repeat(64)), ['step.1.commit_digest']],
      ['kind', (d) => (step(d, 1)['kind'] = 'retrieval'), ['step.1.commit_digest']],
      ['seq', (d) => (step(d, 4)['seq'] = 9), ['step.4.commit_digest']],
      [
        'commit_digest',
        (d) => (step(d, 0)['commit_digest'] = 'e'.repeat(64)),
        ['step.0.commit_digest', 'step.1.parent_commit_root', 'step.2.parent_commit_root', 'causal_root'],
      ],
      [
        'parent rewritten',
        (d) => (step(d, 4)['parents'] = ['s1']),
        ['step.4.parent_commit_root', 'step.4.commit_digest'],
      ],
      ['causal_root', (d) => (envelope(d)['causal_root'] = 'd'.repeat(64)), ['causal_root', 'payload_digest']],
      ['run_id', (d) => (envelope(d)['run_id'] = 'run-2'), ['payload_digest']],
      ['agent_ref', (d) => (envelope(d)['agent_ref'] = 'someone'), ['payload_digest']],
      ['step_count', (d) => (envelope(d)['step_count'] = 4), ['step_count', 'payload_digest']],
      ['payload_digest', (d) => (envelope(d)['payload_digest'] = 'c'.repeat(64)), ['payload_digest', 'signature']],
    ];
    for (const [name, change, checks] of cases) {
      const document = copy();
      change(document);
      const report = verify(document);
      expect(report.status, name).toBe('MISMATCH');
      expect(failing(report), name).toEqual(checks);
    }
  });

  it('answers INVALID for a bad signature over consistent content, whoever made it', () => {
    const flipped = copy();
    const signature = envelope(flipped)['envelope_signature'] as string;
    envelope(flipped)['envelope_signature'] = (signature.startsWith('A') ? 'B' : 'A') + signature.slice(1);
    expect(verify(flipped)).toMatchObject({ status: 'INVALID', trust: { status: 'unattributed' } });
    // Another key's signature, and another key swapped in with the payload redone.
    const forged = signSigrChain(sigrChainExampleRun(suite), other.secretKey, other.publicKey, crypto, {
      issuedAt: ISSUED_AT,
    });
    const swapped = copy();
    envelope(swapped)['envelope_signature'] = envelope(forged)['envelope_signature'] ?? null;
    expect(failing(verify(swapped))).toEqual(['signature']);
    const keySwapped = copy();
    envelope(keySwapped)['public_key'] = b64Encode(other.publicKey);
    envelope(keySwapped)['payload_digest'] = envelope(forged)['payload_digest'] ?? null;
    const report = verify(keySwapped);
    expect(report.status).toBe('INVALID');
    expect(failing(report)).toEqual(['signature']);
  });

  it('answers MISMATCH for a parent that is not a step and for a cycle, saying where', () => {
    const dropped = copy();
    envelope(dropped)['steps'] = (envelope(dropped)['steps'] as JsonObject[]).filter(
      (entry) => entry['step_id'] !== 's3',
    );
    const report = verify(dropped);
    expect(report.status).toBe('MISMATCH');
    expect(report.errors[0]).toMatchObject({ code: 'chain_parent_unknown', path: '/envelope/steps/2/parents/1' });
    expect(failing(report)).toEqual(['graph', 'step.2.parent_commit_root', 'step_count', 'causal_root']);
    const cycle = copy();
    step(cycle, 0)['parents'] = ['s5'];
    const cyclic = verify(cycle);
    expect(cyclic.status).toBe('MISMATCH');
    expect(cyclic.errors.find((error) => error.code === 'chain_cycle')?.message).toContain('"s1" → "s5" → "s4"');
    const self = copy();
    step(self, 0)['parents'] = ['s1'];
    expect(codes(verify(self))).toContain('chain_cycle');
  });

  it('refuses what the format does not have, and steps sharing an id', () => {
    const cases: [string, (document: JsonObject) => void, string][] = [
      ['top-level member', (d) => (d['note'] = 1), 'unknown_property'],
      ['envelope member', (d) => (envelope(d)['note'] = 1), 'unknown_property'],
      ['step member', (d) => (step(d, 2)['note'] = 1), 'unknown_property'],
      ['missing member', (d) => delete step(d, 2)['io_digest'], 'missing_property'],
      ['step object', (d) => (step(d, 0)['object'] = 'sigr.chain.other'), 'invalid_value'],
      ['kind', (d) => (step(d, 0)['kind'] = 'browse'), 'invalid_value'],
      ['seq', (d) => (step(d, 0)['seq'] = 2 ** 31), 'invalid_type'],
      ['seq fraction', (d) => (step(d, 0)['seq'] = 0.5), 'invalid_type'],
      ['step_id', (d) => (step(d, 0)['step_id'] = ''), 'invalid_type'],
      ['duplicate id', (d) => (step(d, 1)['step_id'] = 's3'), 'duplicate_step_id'],
      ['parents', (d) => (step(d, 1)['parents'] = 's1'), 'invalid_parents'],
      ['digest case', (d) => (step(d, 1)['io_digest'] = 'A'.repeat(64)), 'invalid_digest'],
      ['digest length', (d) => (envelope(d)['causal_root'] = 'a'.repeat(96)), 'invalid_digest'],
      ['no steps', (d) => (envelope(d)['steps'] = []), 'invalid_steps'],
      ['run_id', (d) => (envelope(d)['run_id'] = 7), 'invalid_type'],
      ['step_count', (d) => (envelope(d)['step_count'] = -1), 'invalid_type'],
      ['issued_at', (d) => (envelope(d)['issued_at'] = 'yesterday'), 'invalid_timestamp'],
      ['public key', (d) => (envelope(d)['public_key'] = 'AAAA'), 'invalid_public_key'],
      ['signature', (d) => (envelope(d)['envelope_signature'] = 'AAAA'), 'invalid_signature_encoding'],
      ['ok', (d) => (d['ok'] = 'yes'), 'invalid_type'],
    ];
    for (const [name, change, code] of cases) {
      const document = copy();
      change(document);
      const report = verify(document);
      expect(report.status, name).toBe('MALFORMED');
      expect(report.trust.status, name).toBe('not_applicable');
      expect(codes(report), name).toContain(code);
    }
  });

  it('answers UNSUPPORTED for another version, scheme or hash suite, and executes nothing', () => {
    const cases: [string, (document: JsonObject) => void, string][] = [
      ['version', (d) => (envelope(d)['version'] = '2.0.0-typed-pq'), 'unsupported_version'],
      ['scheme', (d) => (envelope(d)['sig_scheme'] = 'slh-dsa'), 'unsupported_scheme'],
      ['suite', (d) => (envelope(d)['hash_suite'] = 'sha3-256'), 'unsupported_hash_suite'],
    ];
    for (const [name, change, code] of cases) {
      const document = copy();
      change(document);
      const report = verify(document);
      expect(report.status, name).toBe('UNSUPPORTED');
      expect(codes(report), name).toEqual([code]);
      expect(report.trust.status).toBe('not_applicable');
      expect(report.checks.find((check) => check.id === 'signature')?.status).toBe('unsupported');
    }
  });

  it('accepts the producer answer members and the order of steps and parents as written', () => {
    const answer = { ok: true, product: 'SiGR Chain', patent_pending: 'x', ...copy(), timing_us: { sign_us: 1.5 } };
    expect(verify(answer).status).toBe('PASS');
    const reordered = copy();
    (envelope(reordered)['steps'] as JsonObject[]).reverse();
    step(reordered, 1)['parents'] = ['s3', 's2'];
    expect(verify(reordered).status).toBe('PASS');
    const upper = copy();
    envelope(upper)['hash_suite'] = 'SHA-256';
    expect(verify(upper).status).toBe('PASS');
    const trust = copy();
    envelope(trust)['trust'] = { object: 'hive.qpuf.attestation' };
    const withTrust = verify(trust);
    expect(withTrust.status).toBe('PASS');
    expect(withTrust.checks.find((check) => check.id === 'trust_block')?.status).toBe('unchecked');
  });

  it('checks a deep chain of the most steps without recursion', () => {
    const steps = Array.from({ length: 1024 }, (_, index) => ({
      step_id: `s${index}`,
      kind: 'reason',
      seq: index,
      parents: index === 0 ? [] : [`s${index - 1}`],
      io_digest: '0'.repeat(64),
    }));
    const deep = signSigrChain({ run_id: 'deep', agent_ref: 'a', steps }, issuer.secretKey, issuer.publicKey, crypto, {
      issuedAt: ISSUED_AT,
    });
    expect(verify(deep).status).toBe('PASS');
    step(deep, 0)['parents'] = ['s1023'];
    expect(codes(verify(deep))).toContain('chain_cycle');
    const tooMany = JSON.parse(JSON.stringify(deep)) as JsonObject;
    (envelope(tooMany)['steps'] as JsonObject[]).push({ ...step(deep, 1), step_id: 'extra' });
    expect(codes(verify(tooMany))).toContain('invalid_steps');
  });
});
