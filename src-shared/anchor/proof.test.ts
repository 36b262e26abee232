import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { hexEncode } from '../crypto/encoding';
import { anchorTree } from '../crypto/merkle';
import {
  anchorCalldata,
  anchorStepOne,
  anchorVerdict,
  decodeAnchorHash,
  encodeAnchorHash,
  MAX_ANCHOR_PATH_LENGTH,
  readAnchorRecord,
  type AnchorStep,
} from './proof';
import { anchorSuffix, pendingAnchorUrn, resolvedAnchorUrn } from './urn';

// Records are built from a real tree over real SHA-256 digests; every invalid one differs from a
// valid one in exactly one member, so each refusal is the one the test names.

const digestOf = (text: string): Uint8Array => sha256(new TextEncoder().encode(text));
const DIGESTS = ['receipt a', 'receipt b', 'receipt c', 'receipt d', 'receipt e'].map(digestOf);
const TREE = anchorTree(sha256, DIGESTS);
const TX = `0x${'ab'.repeat(32)}`;
const BATCH = '2026-11-23T09:00Z';

function resolved(index: number): Record<string, unknown> {
  const digest = DIGESTS[index] as Uint8Array;
  return {
    svc_anchor: resolvedAnchorUrn({ network: 'base', block_height: 1234, tx_hash: TX, suffix: anchorSuffix(digest) }),
    batch_id: BATCH,
    network: 'base',
    block_height: 1234,
    tx_hash: TX,
    merkle_root: encodeAnchorHash(TREE.root),
    merkle_path: (TREE.paths[index] as Uint8Array[]).map(encodeAnchorHash),
    verified_at: '2026-11-23T09:01:02Z',
  };
}

function pending(index: number): Record<string, unknown> {
  return {
    svc_anchor: pendingAnchorUrn(BATCH, anchorSuffix(DIGESTS[index] as Uint8Array)),
    batch_id: BATCH,
    eta_seconds: 60,
  };
}

describe('readAnchorRecord', () => {
  it('reads a resolved record with its hashes decoded', () => {
    const read = readAnchorRecord(resolved(2));
    expect(read.status).toBe('resolved');
    if (read.status !== 'resolved') return;
    expect(read.record).toMatchObject({
      network: 'base',
      block_height: 1234,
      tx_hash: TX,
      batch_id: BATCH,
      verified_at: '2026-11-23T09:01:02Z',
      suffix: anchorSuffix(DIGESTS[2] as Uint8Array),
    });
    expect(read.record.merkle_root).toEqual(TREE.root);
    expect(read.record.merkle_path).toEqual(TREE.paths[2]);
  });

  it('reads a resolved record without the optional batch_id and verified_at as null', () => {
    const { batch_id: _batch, verified_at: _at, ...bare } = resolved(0);
    const read = readAnchorRecord(bare);
    expect(read).toMatchObject({ status: 'resolved', record: { batch_id: null, verified_at: null } });
  });

  it('reads a pending record, with or without batch_id and eta_seconds', () => {
    expect(readAnchorRecord(pending(1))).toEqual({
      status: 'pending',
      record: {
        svc_anchor: pending(1).svc_anchor,
        batch_id: BATCH,
        eta_seconds: 60,
        suffix: anchorSuffix(DIGESTS[1] as Uint8Array),
      },
    });
    expect(readAnchorRecord({ svc_anchor: pending(1).svc_anchor })).toMatchObject({
      status: 'pending',
      record: { batch_id: BATCH, eta_seconds: null },
    });
  });

  const INVALID: [string, unknown, string, RegExp][] = [
    ['not an object (null)', null, '', /must be a JSON object/],
    ['not an object (array)', [resolved(0)], '', /must be a JSON object/],
    ['not an object (string)', 'urn:svc:anchor:x', '', /must be a JSON object/],
    ['no svc_anchor', { ...resolved(0), svc_anchor: undefined }, '/svc_anchor', /must be an anchor URN/],
    [
      'svc_anchor not a URN',
      { ...resolved(0), svc_anchor: 'urn:svc:anchor:base:1234' },
      '/svc_anchor',
      /must be an anchor URN/,
    ],
    [
      'svc_anchor with upper-case hex',
      { ...resolved(0), svc_anchor: String(resolved(0).svc_anchor).toUpperCase() },
      '/svc_anchor',
      /must be an anchor URN/,
    ],
    [
      'pending: batch_id of another batch',
      { ...pending(0), batch_id: '2026-11-23T09:01Z' },
      '/batch_id',
      /not the batch the URN names/,
    ],
    ['pending: eta_seconds negative', { ...pending(0), eta_seconds: -1 }, '/eta_seconds', /non-negative integer/],
    ['pending: eta_seconds fractional', { ...pending(0), eta_seconds: 1.5 }, '/eta_seconds', /non-negative integer/],
    ['pending: eta_seconds a string', { ...pending(0), eta_seconds: '60' }, '/eta_seconds', /non-negative integer/],
    [
      'network differs from the URN',
      { ...resolved(0), network: 'base-sepolia' },
      '/network',
      /not the network the URN names \(base\)/,
    ],
    ['network missing', { ...resolved(0), network: undefined }, '/network', /not the network/],
    [
      'block_height differs',
      { ...resolved(0), block_height: 1235 },
      '/block_height',
      /not the block the URN names \(1234\)/,
    ],
    ['block_height as a string', { ...resolved(0), block_height: '1234' }, '/block_height', /not the block/],
    [
      'tx_hash differs',
      { ...resolved(0), tx_hash: `0x${'cd'.repeat(32)}` },
      '/tx_hash',
      /not the transaction the URN names/,
    ],
    [
      'merkle_root without sha256:',
      { ...resolved(0), merkle_root: hexEncode(TREE.root) },
      '/merkle_root',
      /sha256: and 64 lowercase hex/,
    ],
    [
      'merkle_root in upper case',
      { ...resolved(0), merkle_root: `sha256:${hexEncode(TREE.root).toUpperCase()}` },
      '/merkle_root',
      /lowercase hex/,
    ],
    [
      'merkle_root too short',
      { ...resolved(0), merkle_root: `sha256:${hexEncode(TREE.root).slice(2)}` },
      '/merkle_root',
      /64 lowercase hex/,
    ],
    ['merkle_path missing', { ...resolved(0), merkle_path: undefined }, '/merkle_path', /must be an array/],
    [
      'merkle_path an object',
      { ...resolved(0), merkle_path: { 0: encodeAnchorHash(TREE.root) } },
      '/merkle_path',
      /must be an array/,
    ],
    [
      'merkle_path too long',
      {
        ...resolved(0),
        merkle_path: Array.from({ length: MAX_ANCHOR_PATH_LENGTH + 1 }, () => encodeAnchorHash(TREE.root)),
      },
      '/merkle_path',
      /at most 64/,
    ],
    [
      'merkle_path element not a hash',
      { ...resolved(0), merkle_path: [encodeAnchorHash(TREE.root), 'sha256:00'] },
      '/merkle_path/1',
      /Each merkle_path element/,
    ],
    [
      'merkle_path element a number',
      { ...resolved(0), merkle_path: [7] },
      '/merkle_path/0',
      /Each merkle_path element/,
    ],
    [
      'batch_id not a batch minute',
      { ...resolved(0), batch_id: '2026-02-30T09:00Z' },
      '/batch_id',
      /YYYY-MM-DDThh:mmZ/,
    ],
    ['verified_at not a string', { ...resolved(0), verified_at: 1234 }, '/verified_at', /timestamp string/],
  ];

  it.each(INVALID)('refuses a record whose %s', (_name, record, path, message) => {
    const read = readAnchorRecord(record);
    expect(read.status).toBe('invalid');
    if (read.status !== 'invalid') return;
    expect(read.path).toBe(path);
    expect(read.message).toMatch(message);
  });
});

describe('anchorStepOne', () => {
  it('passes for every digest of the batch with its own record', () => {
    DIGESTS.forEach((digest, index) => {
      const one = anchorStepOne(sha256, digest, resolved(index));
      expect(one.step.status).toBe('pass');
      expect(one.step.step).toBe(1);
      expect(one.step.detail).toContain(`sha256:${hexEncode(digest)}`);
      expect(one.pending).toBe(false);
      expect(one.resolved?.merkle_root).toEqual(TREE.root);
    });
  });

  it('a pending record with the receipt’s suffix is unchecked and pending, not passed', () => {
    const one = anchorStepOne(sha256, DIGESTS[3] as Uint8Array, pending(3));
    expect(one).toMatchObject({
      step: { step: 1, status: 'unchecked', detail: expect.stringMatching(/pending in batch 2026-11-23T09:00Z/) },
      resolved: null,
      pending: true,
    });
  });

  it('fails when the URN suffix is another receipt’s (resolved or pending)', () => {
    for (const record of [resolved(1), pending(1)]) {
      const one = anchorStepOne(sha256, DIGESTS[0] as Uint8Array, record);
      expect(one).toMatchObject({
        step: { status: 'fail', detail: expect.stringMatching(/anchors another receipt/) },
        resolved: null,
        pending: false,
      });
    }
  });

  it('fails when the path does not fold to the root: another path, a changed element, a missing step, another root', () => {
    const digest = DIGESTS[0] as Uint8Array;
    const record = resolved(0);
    const path = record.merkle_path as string[];
    const changed = [...path];
    changed[0] = `sha256:${'0'.repeat(64)}`;
    const variants = [
      { ...record, merkle_path: resolved(1).merkle_path },
      { ...record, merkle_path: changed },
      { ...record, merkle_path: path.slice(0, -1) },
      { ...record, merkle_path: [...path, path[0]] },
      { ...record, merkle_root: encodeAnchorHash(digestOf('another root')) },
    ];
    for (const variant of variants) {
      const one = anchorStepOne(sha256, digest, variant);
      expect(one.step.status).toBe('fail');
      expect(one.step.detail).toMatch(
        /^Folding merkle_path \(\d+ steps\) from the receipt's leaf gives sha256:[0-9a-f]{64}, not merkle_root sha256:[0-9a-f]{64}\.$/,
      );
      expect(one.resolved).toBeNull();
    }
  });

  it('fails, naming the member, for an invalid record', () => {
    const one = anchorStepOne(sha256, DIGESTS[0] as Uint8Array, { ...resolved(0), tx_hash: 'nope' });
    expect(one.step).toEqual({
      step: 1,
      status: 'fail',
      detail: expect.stringMatching(/^The anchor record is not usable at \/tx_hash: /),
    });
    expect(anchorStepOne(sha256, DIGESTS[0] as Uint8Array, 'x').step.detail).toMatch(/not usable at \/: /);
  });

  it('refuses a digest that is not 32 bytes', () => {
    expect(() => anchorStepOne(sha256, new Uint8Array(31), resolved(0))).toThrow(RangeError);
    expect(() => anchorStepOne(sha256, 'digest' as unknown as Uint8Array, resolved(0))).toThrow(RangeError);
  });

  it('a one-digest batch has an empty path and its leaf is the root', () => {
    const digest = digestOf('alone');
    const tree = anchorTree(sha256, [digest]);
    const record = {
      ...resolved(0),
      svc_anchor: resolvedAnchorUrn({ network: 'base', block_height: 1234, tx_hash: TX, suffix: anchorSuffix(digest) }),
      merkle_root: encodeAnchorHash(tree.root),
      merkle_path: [],
    };
    expect(anchorStepOne(sha256, digest, record).step.status).toBe('pass');
  });
});

describe('anchorVerdict', () => {
  const step = (n: 1 | 2 | 3, status: AnchorStep['status']): AnchorStep => ({ step: n, status, detail: '' });
  it.each([
    [['pass', 'pass', 'pass'], false, 'verified'],
    [['pass', 'unchecked', 'unchecked'], false, 'verified_offline'],
    [['pass', 'pass', 'unchecked'], false, 'failed'],
    [['pass', 'unchecked', 'pass'], false, 'failed'],
    [['pass', 'pass', 'fail'], false, 'failed'],
    [['pass', 'fail', 'unchecked'], false, 'failed'],
    [['fail', 'unchecked', 'unchecked'], false, 'failed'],
    [['unchecked', 'unchecked', 'unchecked'], true, 'pending'],
    [['unchecked', 'unchecked', 'unchecked'], false, 'failed'],
    [['fail', 'unchecked', 'unchecked'], true, 'failed'],
  ] as const)('%j (pending %s) is %s', (statuses, isPending, verdict) => {
    expect(
      anchorVerdict(
        statuses.map((status, index) => step((index + 1) as 1 | 2 | 3, status)),
        isPending,
      ),
    ).toBe(verdict);
  });
});

describe('anchor hashes and calldata', () => {
  it('encodes and decodes sha256:<hex> and refuses every other spelling', () => {
    const bytes = digestOf('x');
    expect(decodeAnchorHash(encodeAnchorHash(bytes))).toEqual(bytes);
    for (const bad of [
      hexEncode(bytes),
      `SHA256:${hexEncode(bytes)}`,
      `sha256:${hexEncode(bytes).toUpperCase()}`,
      `sha256:${hexEncode(bytes)} `,
      `sha256:${hexEncode(bytes).slice(1)}`,
      7,
      null,
    ]) {
      expect(decodeAnchorHash(bad)).toBeUndefined();
    }
    expect(() => encodeAnchorHash(new Uint8Array(31))).toThrow(RangeError);
  });

  it('the calldata is EVRA, version 1, then the root', () => {
    expect(anchorCalldata(TREE.root)).toBe(`0x4556524101${hexEncode(TREE.root)}`);
    expect(() => anchorCalldata(new Uint8Array(33))).toThrow(RangeError);
  });
});
