import { describe, expect, it } from 'vitest';
import type { LogCompleteness } from '../api/logs-contract';
import { createPortableProvider, hexEncode, utf8Encode } from '../crypto';
import { tlogLeafHash } from '../crypto/tlog';
import { issueProfileReceipt } from '../formats/profile';
import { jcsTree, parseJsonBytes } from '../json';
import type { KeyEntry } from '../verify/context';
import { FindingList } from './bundle-findings';
import { checkLogEvidence, LogEvidenceCheck, parseLogEvidence, type LogReceipt } from './log-evidence';
import { logKeyEntry, makeLogEvidence, signedCheckpoint, type LogEvidenceSpec } from './log-test-support';

const crypto = createPortableProvider();
const sha256 = (data: Uint8Array): Uint8Array => crypto.sha256(data);
const issuerSeed = new Uint8Array(32).fill(41);
const logKey = { seed: new Uint8Array(32).fill(51), name: 'evroom.test/log' };

/** Receipt `index` of the log, issued at 12:00:<index> on 2026-11-01. */
function receipt(index: number): Uint8Array {
  const document = issueProfileReceipt(
    'standard',
    {
      agent_did: 'did:web:agent.example.com',
      content: { sha256: hexEncode(sha256(utf8Encode(`content ${index}`))), type: 'application/json' },
      smsh: { sealed: false, declaration: 'none' },
      hktn_context: { reputation_tier: 'gold' },
    },
    issuerSeed,
    'did:svc:acme:k1',
    crypto,
    { now: new Date(Date.UTC(2026, 10, 1, 12, 0, index)) },
  );
  return utf8Encode(JSON.stringify(document));
}

const LOG = Array.from({ length: 8 }, (_, index) => receipt(index));
const SINCE = '2026-11-01T12:00:02Z';
const UNTIL = '2026-11-01T12:00:06Z';

function asLogReceipt(bytes: Uint8Array, path: string): LogReceipt {
  const canonical = utf8Encode(jcsTree(parseJsonBytes(bytes)));
  return { path, receipt_sha256: hexEncode(sha256(canonical)), leaf_hash: tlogLeafHash(sha256, canonical) };
}

/** The period 12:00:02 to 12:00:06: leaves 2..5, boundaries 1 and 6, of a log of 8. */
function spec(changes: Partial<LogEvidenceSpec> = {}): LogEvidenceSpec {
  return {
    crypto,
    key: logKey,
    tenant: 'acme',
    log: LOG,
    period: { since: SINCE, until: UNTIL },
    first: 2,
    last: 5,
    before: 1,
    after: 6,
    ...changes,
  };
}

const keysFile = utf8Encode(JSON.stringify({ keys: [logKeyEntry(crypto, logKey, 'did:svc:acme:log')] }));

interface Run {
  log: LogCompleteness | null;
  codes: string[];
  findings: FindingList;
}

function run(
  files: { checkpoint?: string; proofs?: unknown; proofsText?: string },
  options: {
    receipts?: number[];
    documents?: readonly Uint8Array[];
    pinned?: KeyEntry[];
    keys?: Uint8Array | undefined;
    tenant?: string;
  } = {},
): Run {
  const findings = new FindingList();
  const indices = options.receipts ?? [2, 3, 4, 5];
  const proofs =
    options.receipts === undefined && files.proofs === undefined && files.proofsText === undefined
      ? undefined
      : (files.proofsText ?? (files.proofs === undefined ? undefined : JSON.stringify(files.proofs)));
  const log = checkLogEvidence(
    crypto,
    {
      checkpoint: files.checkpoint === undefined ? undefined : utf8Encode(files.checkpoint),
      proofs: proofs === undefined ? undefined : utf8Encode(proofs),
      pinned: options.pinned ?? [],
      keysFile: 'keys' in options ? options.keys : keysFile,
      tenantId: options.tenant ?? 'acme',
      receipts: indices.map((index) =>
        asLogReceipt((options.documents ?? LOG)[index] as Uint8Array, `receipts/r${index}.json`),
      ),
    },
    findings,
  );
  return { log, codes: findings.listed.map((finding) => finding.code), findings };
}

describe('a bundle’s log evidence', () => {
  it('is complete when every leaf of the period is there, included and bounded', () => {
    const fixture = makeLogEvidence(spec());
    const { log, codes } = run({ checkpoint: fixture.checkpoint, proofs: fixture.proofs });
    expect(codes).toEqual([]);
    expect(log).toMatchObject({
      status: 'complete',
      signer: 'advertised',
      origin: 'evroom.test/log/tenants/acme',
      key_name: 'evroom.test/log',
      tree_size: 8,
      root_hex: hexEncode(fixture.tree.root(8)),
      first_index: 2,
      last_index: 5,
      missing: [],
      missing_count: 0,
      stale: false,
      sentence: `complete for ${SINCE} to ${UNTIL} at size 8`,
    });
  });

  it('is signed by a pinned key when the trust store holds the log key', () => {
    const fixture = makeLogEvidence(spec());
    const pinned: KeyEntry[] = [
      { key_id: 'did:svc:acme:log', algorithm: 'Ed25519', public_key: crypto.ed25519PublicKey(logKey.seed) },
    ];
    expect(run({ checkpoint: fixture.checkpoint, proofs: fixture.proofs }, { pinned }).log?.signer).toBe('pinned');
    // Without the bundle's keys too: the pinned key alone is enough.
    const alone = run({ checkpoint: fixture.checkpoint, proofs: fixture.proofs }, { pinned, keys: undefined });
    expect(alone.codes).toEqual([]);
    expect(alone.log?.signer).toBe('pinned');
    // Revoked: the checkpoint is refused.
    const revoked = run(
      { checkpoint: fixture.checkpoint, proofs: fixture.proofs },
      { pinned: [{ ...(pinned[0] as KeyEntry), status: 'revoked' }] },
    );
    expect(revoked.codes).toEqual(['log_checkpoint_invalid']);
    expect(revoked.log?.status).toBe('invalid');
  });

  it('covers the log from its start and to its end', () => {
    const fixture = makeLogEvidence(
      spec({ period: { since: null, until: null }, first: 0, last: 7, before: null, after: null }),
    );
    const { log, codes } = run(
      { checkpoint: fixture.checkpoint, proofs: fixture.proofs },
      { receipts: [0, 1, 2, 3, 4, 5, 6, 7] },
    );
    expect(codes).toEqual([]);
    expect(log?.sentence).toBe('complete for the whole log at size 8');
  });

  it('is complete for an empty period whose boundaries are adjacent', () => {
    const fixture = makeLogEvidence(
      spec({
        period: { since: '2026-11-01T12:00:03.500Z', until: '2026-11-01T12:00:03.900Z' },
        first: null,
        last: null,
        before: 3,
        after: 4,
      }),
    );
    const { log, codes } = run({ checkpoint: fixture.checkpoint, proofs: fixture.proofs }, { receipts: [] });
    expect(codes).toEqual([]);
    expect(log).toMatchObject({ status: 'complete', first_index: null, last_index: null });
  });

  it('is complete for an empty log: size 0, no leaf, no boundary (not stale)', () => {
    for (const period of [
      { since: null, until: null },
      { since: SINCE, until: UNTIL },
    ]) {
      const fixture = makeLogEvidence(spec({ log: [], period, first: null, last: null, before: null, after: null }));
      const { log, codes } = run({ checkpoint: fixture.checkpoint, proofs: fixture.proofs }, { receipts: [] });
      expect(codes).toEqual([]);
      expect(log).toMatchObject({ status: 'complete', stale: false, tree_size: 0, first_index: null });
    }
    const whole = makeLogEvidence(
      spec({ log: [], period: { since: null, until: null }, first: null, last: null, before: null, after: null }),
    );
    expect(run({ checkpoint: whole.checkpoint, proofs: whole.proofs }, { receipts: [] }).log?.sentence).toBe(
      'complete for the whole log at size 0',
    );
    // A size-0 checkpoint under a bundle whose period holds a leaf is still stale.
    const stale = makeLogEvidence(spec({ size: 0, before: null, after: null, first: 0, last: 0 }));
    expect(run({ checkpoint: stale.checkpoint, proofs: stale.proofs }, { receipts: [0] }).codes).toEqual([
      'log_checkpoint_stale',
    ]);
  });

  it('names a receipt removed from the bundle as missing, by its index', () => {
    const fixture = makeLogEvidence(spec());
    // The receipt file is gone, its leaf still listed.
    const gone = run({ checkpoint: fixture.checkpoint, proofs: fixture.proofs }, { receipts: [2, 4, 5] });
    expect(gone.codes).toEqual(['log_leaf_missing']);
    expect(gone.log).toMatchObject({
      status: 'incomplete',
      missing: [3],
      missing_count: 1,
      sentence: 'incomplete: 1 leaf missing (index 3)',
    });
    // The leaf is gone too: the indices are not contiguous.
    const leaves = (fixture.proofs['leaves'] as unknown[]).filter((_, position) => position !== 1);
    const both = run(
      { checkpoint: fixture.checkpoint, proofs: { ...fixture.proofs, leaves } },
      { receipts: [2, 4, 5] },
    );
    expect(both.codes).toEqual(['log_leaf_missing']);
    expect(both.log).toMatchObject({ status: 'incomplete', missing: [3] });
    expect(both.findings.listed[0]?.message).toBe('Leaf 3 is missing from the bundle.');
  });

  it('lists many missing leaves in its sentence with an ellipsis', () => {
    const log = Array.from({ length: 30 }, (_, index) => receipt(index));
    const fixture = makeLogEvidence(
      spec({ log, period: { since: null, until: null }, first: 0, last: 29, before: null, after: null }),
    );
    const { log: result } = run(
      { checkpoint: fixture.checkpoint, proofs: fixture.proofs },
      { receipts: [0], documents: log },
    );
    expect(result?.missing_count).toBe(29);
    expect(result?.sentence).toBe('incomplete: 29 leaves missing (indices 1, 2, 3, 4, 5, 6, 7, 8, 9, 10…)');
  });

  it('fails a reordered or duplicated leaf', () => {
    const fixture = makeLogEvidence(spec());
    const leaves = fixture.proofs['leaves'] as { index: number; receipt_sha256: string; inclusion: string[] }[];
    const swapped = [leaves[0], leaves[2], leaves[1], leaves[3]];
    const reordered = run({ checkpoint: fixture.checkpoint, proofs: { ...fixture.proofs, leaves: swapped } });
    expect(reordered.codes).toEqual(['log_leaf_order']);
    expect(reordered.log?.status).toBe('invalid');

    // Two leaves' receipts exchanged, indices in order: their inclusion proofs fail.
    const exchanged = leaves.map((leaf) => ({ ...leaf }));
    [exchanged[1]!.receipt_sha256, exchanged[2]!.receipt_sha256] = [
      leaves[2]!.receipt_sha256,
      leaves[1]!.receipt_sha256,
    ];
    const crossed = run({ checkpoint: fixture.checkpoint, proofs: { ...fixture.proofs, leaves: exchanged } });
    expect(crossed.codes).toEqual(['log_proof_invalid', 'log_proof_invalid']);

    const twice = run({
      checkpoint: fixture.checkpoint,
      proofs: { ...fixture.proofs, leaves: [...leaves, leaves[3]] },
    });
    expect(twice.codes).toEqual(['log_leaf_duplicate']);
    expect(twice.log?.status).toBe('invalid');

    // One receipt at two indices.
    const sameReceipt = leaves.map((leaf) => ({ ...leaf }));
    sameReceipt[2]!.receipt_sha256 = leaves[1]!.receipt_sha256;
    expect(run({ checkpoint: fixture.checkpoint, proofs: { ...fixture.proofs, leaves: sameReceipt } }).codes).toContain(
      'log_leaf_duplicate',
    );
  });

  it('fails a checkpoint signed over a different tree', () => {
    const fixture = makeLogEvidence(spec());
    const other = makeLogEvidence(spec({ log: [...LOG.slice(0, 7), receipt(40)] }));
    // The checkpoint is another tree's: it is not the one proofs.json names.
    const mismatch = run({ checkpoint: other.checkpoint, proofs: fixture.proofs });
    expect(mismatch.codes).toEqual(['log_checkpoint_invalid']);
    expect(mismatch.log?.status).toBe('invalid');
    // proofs.json names the other root too: every inclusion proof fails against it.
    const forged = run({ checkpoint: other.checkpoint, proofs: { ...fixture.proofs, root: other.proofs['root'] } });
    expect(forged.codes).toEqual([
      'log_proof_invalid',
      'log_proof_invalid',
      'log_proof_invalid',
      'log_proof_invalid',
      'log_proof_invalid',
      'log_proof_invalid',
    ]);
  });

  it('fails a checkpoint whose signature does not verify', () => {
    const fixture = makeLogEvidence(spec());
    const lines = fixture.checkpoint.split('\n');
    const signature = lines[lines.length - 2] as string;
    const flipped = signature.slice(0, -4) + (signature.slice(-4, -3) === 'A' ? 'B' : 'A') + signature.slice(-3);
    lines[lines.length - 2] = flipped;
    const { codes, log } = run({ checkpoint: lines.join('\n'), proofs: fixture.proofs });
    expect(codes).toEqual(['log_checkpoint_invalid']);
    expect(log?.status).toBe('invalid');
  });

  it('finds a stale checkpoint: a receipt at an index at or past its size', () => {
    const fixture = makeLogEvidence(spec({ size: 5, after: null }));
    const { codes, log } = run({ checkpoint: fixture.checkpoint, proofs: fixture.proofs });
    expect(codes).toEqual(['log_checkpoint_stale']);
    expect(log).toMatchObject({ status: 'invalid', stale: true, tree_size: 5 });
  });

  it('fails wrong boundaries', () => {
    const fixture = makeLogEvidence(spec());
    // The leaf before the period was issued inside it.
    const early = run({
      checkpoint: fixture.checkpoint,
      proofs: { ...fixture.proofs, period: { since: '2026-11-01T12:00:01Z', until: UNTIL } },
    });
    expect(early.codes).toEqual(['log_boundary_invalid']);
    expect(early.log?.status).toBe('invalid');
    // The leaf after the period was issued inside it.
    const late = run({
      checkpoint: fixture.checkpoint,
      proofs: { ...fixture.proofs, period: { since: SINCE, until: '2026-11-01T12:00:07Z' } },
    });
    expect(late.codes).toEqual(['log_boundary_invalid']);
    // No leaf before, though the period does not start at the log's start.
    expect(run({ checkpoint: fixture.checkpoint, proofs: { ...fixture.proofs, before: null } }).codes).toEqual([
      'log_boundary_invalid',
    ]);
    // A boundary that is not adjacent.
    const far = makeLogEvidence(spec({ before: 0 }));
    expect(run({ checkpoint: far.checkpoint, proofs: far.proofs }).codes).toEqual(['log_boundary_invalid']);
    // A boundary whose proof fails.
    const after = { ...(fixture.proofs['after'] as Record<string, unknown>), inclusion: [] };
    expect(run({ checkpoint: fixture.checkpoint, proofs: { ...fixture.proofs, after } }).codes).toEqual([
      'log_proof_invalid',
    ]);
  });

  it('needs a known log key', () => {
    const fixture = makeLogEvidence(spec());
    const { codes, log } = run({ checkpoint: fixture.checkpoint, proofs: fixture.proofs }, { keys: undefined });
    expect(codes).toEqual(['log_key_unknown']);
    expect(log).toMatchObject({ status: 'invalid', signer: 'unknown' });
    // A key advertised under another name does not sign it.
    const otherName = utf8Encode(
      JSON.stringify({ keys: [logKeyEntry(crypto, { ...logKey, name: 'evroom.test/other' }, 'did:svc:acme:log')] }),
    );
    expect(run({ checkpoint: fixture.checkpoint, proofs: fixture.proofs }, { keys: otherName }).codes).toEqual([
      'log_key_unknown',
    ]);
  });

  it('refuses a keys file entry whose vkey is not its key', () => {
    const fixture = makeLogEvidence(spec());
    const entry = logKeyEntry(crypto, logKey, 'did:svc:acme:log');
    const other = logKeyEntry(crypto, { ...logKey, seed: new Uint8Array(32).fill(52) }, 'x');
    const keys = utf8Encode(JSON.stringify({ keys: [{ ...entry, public_key: other['public_key'] }] }));
    expect(run({ checkpoint: fixture.checkpoint, proofs: fixture.proofs }, { keys }).codes).toEqual([
      'keys_invalid',
      'log_key_unknown',
    ]);
  });

  it('finds a receipt the log does not hold', () => {
    const fixture = makeLogEvidence(spec());
    const { codes, log } = run(
      { checkpoint: fixture.checkpoint, proofs: fixture.proofs },
      { receipts: [2, 3, 4, 5, 7] },
    );
    expect(codes).toEqual(['log_receipt_unlogged']);
    expect(log?.status).toBe('invalid');
  });

  it('checks the carried consistency proofs', () => {
    const fixture = makeLogEvidence(spec({ consistentWith: [3, 8] }));
    expect(run({ checkpoint: fixture.checkpoint, proofs: fixture.proofs }).codes).toEqual([]);
    const consistency = (fixture.proofs['consistency'] as Record<string, unknown>[]).map((proof) => ({
      ...proof,
      from_root: hexEncode(new Uint8Array(32).fill(7)),
    }));
    expect(run({ checkpoint: fixture.checkpoint, proofs: { ...fixture.proofs, consistency } }).codes).toEqual([
      'log_proof_invalid',
      'log_proof_invalid',
    ]);
  });

  it('offers its checkpoint for the workstation to record only when it verified', () => {
    const fixture = makeLogEvidence(spec({ consistentWith: [3, 5] }));
    const consistency = fixture.proofs['consistency'] as Record<string, unknown>[];
    const broken = [consistency[0], { ...consistency[1], from_root: hexEncode(new Uint8Array(32).fill(7)) }];
    const check = (proofs: unknown, keys: Uint8Array | undefined): LogEvidenceCheck => {
      const made = new LogEvidenceCheck(crypto, {
        checkpoint: utf8Encode(fixture.checkpoint),
        proofs: utf8Encode(JSON.stringify(proofs)),
        pinned: [],
        keysFile: keys,
        tenantId: 'acme',
      });
      expect(made.seenCheckpoint()).toBeUndefined(); // not before finish
      made.finish(new FindingList());
      return made;
    };
    const seen = check({ ...fixture.proofs, consistency: broken }, keysFile).seenCheckpoint();
    expect(seen).toMatchObject({
      note: fixture.checkpoint,
      origin: 'evroom.test/log/tenants/acme',
      key_name: 'evroom.test/log',
      log_key: crypto.ed25519PublicKey(logKey.seed),
      size: 8,
      root: fixture.tree.root(8),
    });
    // Only the proof that verified goes with it.
    expect(seen?.consistency.map((proof) => proof.from_size)).toEqual([3]);
    expect(check(fixture.proofs, undefined).seenCheckpoint()).toBeUndefined();
  });

  it('is of the bundle’s tenant', () => {
    const fixture = makeLogEvidence(spec());
    expect(run({ checkpoint: fixture.checkpoint, proofs: fixture.proofs }, { tenant: 'globex' }).codes).toEqual([
      'log_checkpoint_invalid',
    ]);
  });

  it('turns malformed files into findings, never a crash', () => {
    const fixture = makeLogEvidence(spec());
    const broken: [string, string][] = [
      ['not JSON', '{"format": '],
      ['an unknown member', JSON.stringify({ ...fixture.proofs, extra: 1 })],
      ['another format', JSON.stringify({ ...fixture.proofs, format: 'evroom.log-evidence/2' })],
      [
        'a hash in capitals',
        JSON.stringify({ ...fixture.proofs, root: (fixture.proofs['root'] as string).toUpperCase() }),
      ],
      ['a negative index', JSON.stringify({ ...fixture.proofs, first_index: -1 })],
      ['a fractional size', JSON.stringify({ ...fixture.proofs, tree_size: 8.5 })],
      ['last before first', JSON.stringify({ ...fixture.proofs, first_index: 5, last_index: 2 })],
      ['one of first and last', JSON.stringify({ ...fixture.proofs, first_index: null })],
      ['a period that is not one', JSON.stringify({ ...fixture.proofs, period: { since: UNTIL, until: SINCE } })],
      [
        'a receipt that is a string',
        JSON.stringify({ ...fixture.proofs, before: { index: 1, receipt: 'x', inclusion: [] } }),
      ],
      ['a leaf without its proof', JSON.stringify({ ...fixture.proofs, leaves: [{ index: 2, receipt_sha256: 'ab' }] })],
      ['a duplicate member', JSON.stringify(fixture.proofs).replace('{', '{"origin":"a",')],
      ['an array', '[]'],
      [
        'too long a proof',
        JSON.stringify({
          ...fixture.proofs,
          consistency: [
            { from_size: 1, from_root: fixture.proofs['root'], proof: Array(65).fill(fixture.proofs['root']) },
          ],
        }),
      ],
    ];
    for (const [what, text] of broken) {
      const { codes, log } = run({ checkpoint: fixture.checkpoint, proofsText: text });
      expect(codes, what).toEqual(['log_evidence_invalid']);
      expect(log?.status, what).toBe('invalid');
      expect(log?.sentence, what).toMatch(/^invalid: log\/proofs\.json/);
    }
    // A checkpoint that is not one, and one file without the other.
    expect(run({ checkpoint: 'not a note', proofs: fixture.proofs }).codes).toEqual(['log_checkpoint_invalid']);
    expect(run({ checkpoint: fixture.checkpoint }).codes).toEqual(['log_evidence_invalid']);
    expect(run({ proofs: fixture.proofs }).codes).toEqual(['log_evidence_invalid']);
  });

  it('is null for a bundle without log files', () => {
    expect(run({}).log).toBeNull();
  });

  it('derives a boundary’s issuing instant as the ledger does', () => {
    const fixture = makeLogEvidence(spec());
    const parsed = parseLogEvidence(sha256, utf8Encode(JSON.stringify(fixture.proofs)));
    expect(parsed.before?.issued_at).toBe(Date.UTC(2026, 10, 1, 12, 0, 1));
    expect(parsed.after?.issued_at).toBe(Date.UTC(2026, 10, 1, 12, 0, 6));
    expect(parsed.before?.leafHash).toEqual(fixture.tree.node(0, 1));
  });

  it('signs with the service’s one key for every tenant', () => {
    // Another tenant's checkpoint, same key: valid signature, but not this bundle's log.
    const fixture = makeLogEvidence(spec());
    const root = fixture.tree.root(8);
    const note = signedCheckpoint(crypto, logKey, 'evroom.test/log/tenants/globex', 8, root);
    expect(run({ checkpoint: note, proofs: fixture.proofs }).codes).toEqual(['log_checkpoint_invalid']);
  });
});
