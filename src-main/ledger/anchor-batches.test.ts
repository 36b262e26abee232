import { afterEach, describe, expect, it } from 'vitest';
import {
  anchorBacklog,
  closeAnchorBatch,
  findQueuedAnchor,
  getOpenAnchorBatch,
  highestRecordedNonce,
  listBatchHashes,
  listUnfinishedAnchorBatches,
  markAnchorBatchPosted,
  queueAnchorHash,
  recordAnchorBatchError,
  recordAnchorTransaction,
  resolveAnchorBatch,
} from './anchor-batches';
import { getAnchor } from './anchors';
import { LedgerError } from './errors';
import { openLedger, type Ledger } from './open-ledger';
import { makeTemporaryLedger, sha256Hex } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporary(): { ledger: Ledger; file: string } {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  return { ledger: made.ledger, file: made.file };
}

const AT = Date.UTC(2026, 10, 23, 9, 15, 30);
const TX = (byte: string): string => `0x${byte.repeat(32)}`;
const SENDER = `0x${'12'.repeat(20)}`;

describe('anchor batches', () => {
  it('queues hashes into one open batch with pending anchors rows, the same digest once', () => {
    const { ledger } = temporary();
    const a = sha256Hex('a');
    const first = queueAnchorHash(ledger.writable, { digest: a, at: AT, interval_ms: 60_000, tenant_id: 'acme' });
    expect(first).toMatchObject({
      outcome: 'queued',
      svc_anchor: `urn:svc:anchor:pending:2026-11-23T09:15Z:${a.slice(0, 16)}`,
      batch: { state: 'open', batch_id: '2026-11-23T09:15Z', hash_count: 1, closes_at: AT + 60_000 },
    });
    const again = queueAnchorHash(ledger.writable, { digest: a, at: AT + 1000, interval_ms: 60_000 });
    expect(again).toMatchObject({
      outcome: 'existing',
      svc_anchor: first.svc_anchor,
      batch: { id: first.batch.id, hash_count: 1 },
    });
    // A later minute still joins the batch that is open: the batch id is its opening minute.
    const b = queueAnchorHash(ledger.writable, { digest: sha256Hex('b'), at: AT + 45_000, interval_ms: 60_000 });
    expect(b).toMatchObject({
      outcome: 'queued',
      batch: { id: first.batch.id, batch_id: '2026-11-23T09:15Z', hash_count: 2 },
    });
    expect(getAnchor(ledger.readable, first.svc_anchor)).toMatchObject({
      status: 'pending',
      receipt_sha256: a,
      record: { svc_anchor: first.svc_anchor, batch_id: '2026-11-23T09:15Z', eta_seconds: 60 },
    });
    expect(findQueuedAnchor(ledger.readable, first.svc_anchor)).toMatchObject({
      hash: { digest: a, tenant_id: 'acme' },
      batch: { id: first.batch.id },
    });
    expect(listBatchHashes(ledger.readable, first.batch.id).map((hash) => hash.digest)).toEqual([a, sha256Hex('b')]);
  });

  it('reports a second digest with the same suffix as a conflict and writes nothing', () => {
    const { ledger } = temporary();
    const a = sha256Hex('a');
    queueAnchorHash(ledger.writable, { digest: a, at: AT, interval_ms: 60_000 });
    const twin = `${a.slice(0, 16)}${'0'.repeat(48)}`;
    expect(queueAnchorHash(ledger.writable, { digest: twin, at: AT, interval_ms: 60_000 })).toMatchObject({
      outcome: 'conflict',
    });
    expect(anchorBacklog(ledger.readable).pending_hashes).toBe(1);
  });

  it('refuses bad input before writing', () => {
    const { ledger } = temporary();
    expect(() => queueAnchorHash(ledger.writable, { digest: 'ABC', at: AT, interval_ms: 60_000 })).toThrow(RangeError);
    expect(() => queueAnchorHash(ledger.writable, { digest: sha256Hex('a'), at: AT, interval_ms: 0 })).toThrow(
      RangeError,
    );
    expect(getOpenAnchorBatch(ledger.readable)).toBeUndefined();
  });

  it('moves a batch open -> closed -> signed -> posted -> resolved, in that order only, and survives reopening the file', () => {
    const { ledger, file } = temporary();
    const digests = [sha256Hex('x'), sha256Hex('y')];
    const queued = digests.map((digest) => queueAnchorHash(ledger.writable, { digest, at: AT, interval_ms: 1000 }));
    const id = queued[0]!.batch.id;
    const tx = {
      merkle_root: sha256Hex('root'),
      network: 'anvil-local',
      raw_tx: '0x02f0aa',
      tx_hash: TX('ab'),
      nonce: 0,
      sender: SENDER,
    };
    expect(() => recordAnchorTransaction(ledger.writable, id, tx)).toThrow(/open, not closed or signed/);
    expect(() => markAnchorBatchPosted(ledger.writable, id)).toThrow(RangeError);
    closeAnchorBatch(ledger.writable, id, { at: AT + 1000 });
    expect(getOpenAnchorBatch(ledger.readable)).toBeUndefined();
    // The next hash opens a new batch.
    const next = queueAnchorHash(ledger.writable, { digest: sha256Hex('z'), at: AT + 2000, interval_ms: 1000 });
    expect(next.batch.id).not.toBe(id);
    expect(() => recordAnchorTransaction(ledger.writable, id, { ...tx, raw_tx: '0xZZ' })).toThrow(/raw_tx/);
    const signed = recordAnchorTransaction(ledger.writable, id, tx, { at: AT + 1500 });
    expect(signed).toMatchObject({ state: 'signed', nonce: 0, tx_hash: TX('ab'), broadcast_at: null });
    expect(highestRecordedNonce(ledger.readable, 'anvil-local', SENDER)).toBe(0);
    recordAnchorBatchError(ledger.writable, id, { message: 'The chain does not answer', next_attempt_at: AT + 5000 });
    expect(anchorBacklog(ledger.readable)).toMatchObject({
      pending_hashes: 3,
      batches: { open: 1, signed: 1 },
      last_error: 'The chain does not answer',
      next_attempt_at: AT + 5000,
    });
    // One nonce, one batch.
    closeAnchorBatch(ledger.writable, next.batch.id, { at: AT + 3000 });
    expect(() => recordAnchorTransaction(ledger.writable, next.batch.id, { ...tx, tx_hash: TX('cd') })).toThrow(
      LedgerError,
    );
    ledger.close();
    const reopened = openLedger(file);
    cleanups.unshift(() => reopened.close());
    expect(
      listUnfinishedAnchorBatches(reopened.readable).map((batch) => [batch.id, batch.state, batch.raw_tx]),
    ).toEqual([
      [id, 'signed', '0x02f0aa'],
      [next.batch.id, 'closed', null],
    ]);
    const posted = markAnchorBatchPosted(reopened.writable, id, { at: AT + 6000 });
    expect(posted).toMatchObject({ state: 'posted', attempts: 0, last_error: null });
    const records = queued.map((entry, index) => {
      const urn = `urn:svc:anchor:anvil-local:7:${TX('ab')}:${digests[index]!.slice(0, 16)}`;
      return { pending: entry.svc_anchor, svc_anchor: urn, record: { svc_anchor: urn, block_height: 7 } };
    });
    expect(() => resolveAnchorBatch(reopened.writable, id, { block_height: 7, records: records.slice(1) })).toThrow(
      /cover exactly/,
    );
    expect(getAnchor(reopened.readable, queued[1]!.svc_anchor)?.status).toBe('pending');
    // Records made one at a time as they are written: as many as the hashes but one of them twice
    // is refused too, and the record written before it is rolled back.
    const twice = { count: records.length, record: () => records[0]! };
    expect(() => resolveAnchorBatch(reopened.writable, id, { block_height: 7, records: twice })).toThrow(
      /cover exactly/,
    );
    expect(getAnchor(reopened.readable, queued[0]!.svc_anchor)?.status).toBe('pending');
    const asked: number[] = [];
    const source = {
      count: records.length,
      record: (index: number) => {
        asked.push(index);
        return records[index]!;
      },
    };
    const resolved = resolveAnchorBatch(reopened.writable, id, { block_height: 7, records: source }, { at: AT + 7000 });
    expect(asked).toEqual(records.map((_, index) => index));
    expect(resolved).toMatchObject({ state: 'resolved', block_height: 7 });
    expect(getAnchor(reopened.readable, queued[0]!.svc_anchor)).toMatchObject({
      status: 'resolved',
      svc_anchor: records[0]!.svc_anchor,
    });
    expect(anchorBacklog(reopened.readable)).toMatchObject({ pending_hashes: 1, batches: { resolved: 1, closed: 1 } });
  });
});
