import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { signEnvelope } from '../../src-shared/formats/envelope';
import { createVerifyContext } from '../../src-shared/verify/context';
import { verifyDocument } from '../../src-shared/verify/verify';
import { createNodeCryptoProvider } from './node-crypto-provider';
import { toVerifiedReceipt, verifyReceiptBytes, type VerifiedReceipt } from './receipt-facts';
import { verifyReportBytes } from './verify-report';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createHash } from 'node:crypto';
import { crc32, deflateRawSync } from 'node:zlib';
import { DocumentReadError, readDocumentFile } from './read-document';
import {
  createVerifyPool,
  VerifyWorkerUnavailableError,
  WORKER_RESTART_MIN_DELAY_MS,
  type EntryBatch,
  type VerifyPoolEvent,
  type ReceiptKeys,
  type VerifyPool,
  type VerifyRequest,
  type VerifyResponse,
  type VerifyWorkerData,
} from './worker-pool';
import { TSX_BOOTSTRAP, unpackedFromAsar, verifyWorkerSource } from './worker-source';

const portable = createNodeCryptoProvider();
const seed = new Uint8Array(32).fill(4);
const KEY_ID = 'did:svc:acme:k1';
const key = { key_id: KEY_ID, algorithm: 'Ed25519' as const, public_key: portable.ed25519PublicKey(seed) };
// One key, one role (PROTOCOL section 4): the requester and the operator sign with keys of their own.
const requesterSeed = new Uint8Array(32).fill(5);
const operatorSeed = new Uint8Array(32).fill(6);
const roleKeys = [
  {
    key_id: 'did:svc:acme:requester',
    algorithm: 'Ed25519' as const,
    public_key: portable.ed25519PublicKey(requesterSeed),
  },
  {
    key_id: 'did:svc:acme:operator',
    algorithm: 'Ed25519' as const,
    public_key: portable.ed25519PublicKey(operatorSeed),
  },
];

function envelope(index: number): Uint8Array {
  const signed = signEnvelope(
    {
      v: 'svc-receipt-v1',
      receipt_id: `rcp_${index}`,
      issued_at: '2026-11-01T12:00:00Z',
      request: { hash: 'h', origin: 'o', purpose: 'p', policy_hash: 'x' },
    },
    {
      requester: { key_id: 'did:svc:acme:requester', seed: requesterSeed },
      operator: { key_id: 'did:svc:acme:operator', seed: operatorSeed },
      service: { key_id: KEY_ID, seed },
    },
    portable,
  );
  return utf8Encode(JSON.stringify(signed));
}

describe('createVerifyPool', () => {
  let pool: VerifyPool;

  beforeAll(() => {
    pool = createVerifyPool({ size: 2, advertised: [key, ...roleKeys] });
  });
  afterAll(async () => {
    await pool.close();
  });

  it('gives the same reports as verifying on this thread, in order, with identity and ids', async () => {
    const documents = [
      utf8Encode(signClassical({ sequence: 1, amount: '1.50' }, seed, portable)),
      envelope(1),
      utf8Encode('{"not":"a receipt"}'),
      utf8Encode('{"a":1,"a":2}'),
      new Uint8Array([0xff, 0xfe]),
    ];
    const results = await pool.verify(documents);
    const context = createVerifyContext(createNodeCryptoProvider(), { advertised: [key, ...roleKeys] });
    expect(results).toHaveLength(documents.length);
    results.forEach((result, index) => {
      const local = verifyReceiptBytes(documents[index]!, context);
      expect(result).toEqual(toVerifiedReceipt(local));
      expect(JSON.parse(result.report.json)).toEqual(local.report);
      expect(result.report.status).toBe(verifyDocument(documents[index]!, context).status);
    });
    expect(results.map((result) => result.report.status)).toEqual([
      'PASS',
      'PASS',
      'MALFORMED',
      'MALFORMED',
      'MALFORMED',
    ]);
    expect(results[1]).toMatchObject({
      receipt_id: 'rcp_1',
      problem: '',
      report: { trust: { status: 'unpinned', key_id: KEY_ID } },
    });
    // A report that is not PASS carries its first problem for findings.
    expect(results[3]?.problem).toMatch(/duplicate member name/);
    expect(results[4]?.problem).toMatch(/not valid UTF-8/);
  });

  it('in report mode gives each report as verifyReportBytes makes it on this thread, in order', async () => {
    const documents = [
      envelope(2),
      utf8Encode(signClassical({ sequence: 2, amount: '2.00' }, seed, portable).replace('2.00', '2.01')),
      utf8Encode('<!doctype html><html><body>not a report</body></html>'),
      utf8Encode('{"a":1,"a":2}'),
    ];
    const results = await pool.reports(documents);
    const context = createVerifyContext(createNodeCryptoProvider(), { advertised: [key, ...roleKeys] });
    expect(results).toHaveLength(documents.length);
    results.forEach((result, index) => {
      const local = verifyReportBytes(documents[index]!, context);
      expect(JSON.parse(result.json)).toEqual(JSON.parse(JSON.stringify(local)));
      expect(result).toMatchObject({ status: local.status, trust: local.trust.status });
    });
    expect(results.map((result) => result.status)).toEqual(['PASS', 'MISMATCH', 'MALFORMED', 'MALFORMED']);
    expect(results[2]?.json).toBe(JSON.stringify(verifyReportBytes(documents[2]!, context)));
  });

  it('in files mode reads each file itself and gives its report, or why it could not be read, in order', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'pool-files-'));
    try {
      const documents = [
        envelope(5),
        utf8Encode(signClassical({ sequence: 5, amount: '5.00' }, seed, portable).replace('5.00', '5.01')),
        utf8Encode('{"a":1,"a":2}'),
      ];
      const paths = documents.map((document, index) => {
        const path = join(directory, `d${index}.json`);
        writeFileSync(path, document);
        return path;
      });
      writeFileSync(join(directory, 'empty.json'), '');
      const inputs = [
        paths[0]!,
        join(directory, 'missing.json'),
        paths[1]!,
        directory,
        join(directory, 'empty.json'),
        paths[2]!,
      ];
      const results = await pool.reportFiles(inputs);
      const context = createVerifyContext(createNodeCryptoProvider(), { advertised: [key, ...roleKeys] });
      expect(results).toHaveLength(inputs.length);
      expect(results[1]).toEqual({ error: `${inputs[1]}: no such file` });
      expect(results[3]).toEqual({ error: `${directory}: is a directory, not a file` });
      expect(results[4]).toEqual({ error: `${inputs[4]}: is empty; expected a JSON document` });
      [0, 2, 5].forEach((at, index) => {
        const local = verifyReportBytes(documents[index]!, context);
        expect(results[at]).toEqual({ json: JSON.stringify(local), status: local.status, trust: local.trust.status });
      });
      expect(results.map((result) => ('status' in result ? result.status : 'error'))).toEqual([
        'PASS',
        'error',
        'MISMATCH',
        'error',
        'error',
        'MALFORMED',
      ]);
      // Each answer is what reading the file on this thread gives.
      expect(() => readDocumentFile(inputs[1]!)).toThrow(new DocumentReadError(`${inputs[1]}: no such file`));
      await expect(pool.reportFiles([paths[0]!, ''])).rejects.toThrow(TypeError);
      await expect(pool.reportFiles('x' as never)).rejects.toThrow(TypeError);
      expect(await pool.reportFiles([])).toEqual([]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('in entries mode inflates, checks and hashes zip entries, then compares and verifies them, stopping at the first broken rule', async () => {
    const documents = [
      envelope(7),
      utf8Encode(signClassical({ sequence: 7, amount: '7.00' }, seed, portable)),
      utf8Encode('{"a":1,"a":2}'),
    ];
    const stored = [deflateRawSync(documents[0]!), new Uint8Array(documents[1]!), deflateRawSync(documents[2]!)];
    const batchOf = (verify: boolean, crcs = documents.map((document) => crc32(document))): EntryBatch => {
      const offsets = new Uint32Array(stored.length + 1);
      stored.forEach((bytes, index) => (offsets[index + 1] = offsets[index]! + bytes.length));
      const bytes = new Uint8Array(offsets[stored.length]!);
      stored.forEach((part, index) => bytes.set(part, offsets[index]));
      return {
        bytes,
        offsets,
        names: ['receipts/a.json', 'receipts/b.json', 'receipts/c.json'],
        methods: Uint8Array.of(8, 0, 8),
        sizes: Float64Array.from(documents.map((document) => document.length)),
        crcs: Uint32Array.from(crcs),
        maxEntryBytes: 1 << 20,
        verify,
      };
    };
    const digests = Buffer.concat(documents.map((document) => createHash('sha256').update(document).digest()));

    const checked = await pool.entries(batchOf(false));
    expect(checked.failure).toBeUndefined();
    expect(Buffer.from(checked.digests!).equals(digests)).toBe(true);

    // A CRC-32 that differs: the entries before it are answered, the failure names the entry.
    const badCrc = await pool.entries(batchOf(false, [crc32(documents[0]!), 1234, crc32(documents[2]!)]));
    expect(badCrc.failure).toEqual({
      index: 1,
      code: 'zip_crc_mismatch',
      message: 'Entry "receipts/b.json": its data does not match its CRC-32.',
      entry: 'receipts/b.json',
    });
    expect(Buffer.from(badCrc.digests!.subarray(0, 32)).equals(digests.subarray(0, 32))).toBe(true);

    const context = createVerifyContext(createNodeCryptoProvider(), { advertised: [key, ...roleKeys] });
    const out = new Uint8Array(4096);
    const verified = await pool.entries({ ...batchOf(true), expected: new Uint8Array(digests), out });
    expect(out.byteLength).toBe(0); // transferred, and given back as `data`
    expect(verified.failure).toBeUndefined();
    expect(verified.data!.byteLength).toBe(4096);
    documents.forEach((document, index) => {
      const data = verified.data!.subarray(verified.dataOffsets![index], verified.dataOffsets![index + 1]);
      expect(Buffer.from(data).equals(Buffer.from(document))).toBe(true);
      expect(verified.results![index]).toEqual(toVerifiedReceipt(verifyReceiptBytes(document, context)));
    });
    expect(verified.results!.map((result) => result.report.status)).toEqual(['PASS', 'PASS', 'MALFORMED']);

    // A digest that is not the one first read: the zip changed on disk.
    const changed = new Uint8Array(digests);
    changed[32 * 2] = changed[32 * 2]! ^ 1;
    const late = await pool.entries({ ...batchOf(true), expected: changed, out: new Uint8Array(4096) });
    expect(late.results).toHaveLength(2);
    expect(late.failure).toEqual({
      index: 2,
      code: 'zip_changed',
      message: 'Entry "receipts/c.json" changed on disk during the import.',
      entry: 'receipts/c.json',
    });

    await expect(pool.entries({ ...batchOf(true), out: new Uint8Array(10) })).rejects.toThrow(TypeError);
  });

  it('verifies many batches concurrently on both workers', async () => {
    const documents = Array.from({ length: 600 }, (_, index) => envelope(index));
    const batches = [documents.slice(0, 200), documents.slice(200, 400), documents.slice(400)];
    const results = (await Promise.all(batches.map((batch) => pool.verify(batch)))).flat();
    expect(results).toHaveLength(600);
    expect(results.every((result) => result.report.status === 'PASS')).toBe(true);
    expect(new Set(results.map((result) => result.receipt_sha256)).size).toBe(600);
    expect(results.map((result) => result.receipt_id)).toEqual(documents.map((_, index) => `rcp_${index}`));
  });

  it('judges trust by the pinned keys it was started with', async () => {
    const pinnedPool = createVerifyPool({
      size: 1,
      pinned: [{ ...key, status: 'pinned', label: 'Acme' }],
      advertised: roleKeys,
    });
    try {
      const [result] = await pinnedPool.verify([envelope(7)]);
      expect(result?.report.trust).toEqual({ status: 'trusted', key_id: KEY_ID });
      expect(JSON.parse(result?.report.json ?? '{}')).toMatchObject({ trust: { status: 'trusted', label: 'Acme' } });
    } finally {
      await pinnedPool.close();
    }
  });

  it('in receipt mode verifies one document with the keys and instant of the message, sending keys again only when they change', async () => {
    const single = createVerifyPool({ size: 1 });
    try {
      const document = envelope(9);
      const unpinned = { pinned: [], advertised: [key, ...roleKeys] };
      const pinned = { pinned: [{ ...key, status: 'pinned' as const, label: 'Acme' }], advertised: roleKeys };
      const now = new Date('2026-11-02T00:00:00Z');
      const answers = [
        single.receipt(document, unpinned, now),
        single.receipt(document, unpinned, now),
        single.receipt(document, pinned, now),
      ];
      const [first, again, trusted] = await Promise.all(answers);
      const local = (keys: ReceiptKeys) =>
        toVerifiedReceipt(verifyReceiptBytes(document, createVerifyContext(portable, { ...keys, now })));
      expect(first).toEqual(local(unpinned));
      // The second message carried no keys: the worker kept the first ones.
      expect(again).toEqual(first);
      expect(trusted).toEqual(local(pinned));
      expect(trusted?.report.trust).toEqual({ status: 'trusted', key_id: KEY_ID });
      // The instant is the message's: a pinned key whose window closed before it is expired.
      const closed = {
        pinned: [{ ...key, status: 'pinned' as const, not_after: '2026-11-01T00:00:00Z' }],
        advertised: roleKeys,
      };
      const late = await single.receipt(document, closed, now);
      expect(late).toEqual(local(closed));
      expect(late.report.trust.status).not.toBe('trusted');
      const early = new Date('2026-10-31T00:00:00Z');
      expect((await single.receipt(document, closed, early)).report.trust.status).toBe('trusted');
      await expect(single.receipt('x' as never, unpinned, now)).rejects.toThrow(TypeError);
      await expect(single.receipt(document, {} as never, now)).rejects.toThrow(TypeError);
    } finally {
      await single.close();
    }
    await expect(single.receipt(envelope(1), { pinned: [], advertised: [] }, new Date())).rejects.toThrow(/closed/);
  });

  it('answers single documents of both kinds asked for in one turn, each its own answer, and refuses those still waiting when closed', async () => {
    const single = createVerifyPool({ size: 1 });
    const now = new Date('2026-11-02T00:00:00Z');
    const document = envelope(11);
    const requestKeys = { pinned: [], advertised: [key, ...roleKeys], listed: [] };
    const receiptKeys = { pinned: [], advertised: [key, ...roleKeys] };
    const badKeys = utf8Encode(`{"document": ${new TextDecoder().decode(document)}, "keys": {"keys": 5}}`);
    try {
      const [asked, issued, refused, malformed] = await Promise.all([
        single.request(document, requestKeys, now),
        single.receipt(document, receiptKeys, now),
        single.request(badKeys, requestKeys, now),
        single.request(utf8Encode('{"a":1,"a":2}'), requestKeys, now),
      ]);
      const context = createVerifyContext(portable, { ...receiptKeys, now });
      expect(asked).toEqual({ json: JSON.stringify(verifyReportBytes(document, context)) });
      expect(issued).toEqual(toVerifiedReceipt(verifyReceiptBytes(document, context)));
      expect(refused).toMatchObject({ keyError: { path: expect.any(String), message: expect.any(String) } });
      expect(JSON.parse((malformed as { json: string }).json)).toMatchObject({ status: 'MALFORMED' });
      // The expectation is attached before closing: the refusal comes while close() is awaited.
      const waiting = expect(single.request(document, requestKeys, now)).rejects.toThrow(/closed/);
      await single.close();
      await waiting;
    } finally {
      await single.close();
    }
  });

  it('answers an empty batch at once and refuses work after close', async () => {
    const small = createVerifyPool({ size: 1 });
    expect(await small.verify([])).toEqual([]);
    await small.close();
    await small.close();
    await expect(small.verify([envelope(1)])).rejects.toThrow(/closed/);
  });

  it('checks its options', () => {
    expect(() => createVerifyPool({ size: 0 })).toThrow(RangeError);
    expect(() => createVerifyPool({ size: 1.5 })).toThrow(TypeError);
    expect(() => createVerifyPool({ pinned: {} as never })).toThrow(TypeError);
    expect(() => createVerifyPool({ now: new Date(Number.NaN) })).toThrow(TypeError);
    // Keys a thread cannot be given: thrown at once, not retried as a worker that stopped.
    expect(() => createVerifyPool({ size: 2, pinned: [{ ...key, check: () => true }] as never })).toThrow(
      /could not be cloned/,
    );
  });
});

describe('a pool whose worker stops', () => {
  // Workers are stopped with the pool's own terminateWorker: a real thread termination, which
  // the pool meets exactly as it meets a crash (an 'exit' it did not ask for in close()).

  it('fails only the calls the stopped worker held, answers the others, and runs later calls on its replacement', async () => {
    const events: VerifyPoolEvent[] = [];
    const pool = createVerifyPool({
      size: 2,
      advertised: [key, ...roleKeys],
      onEvent: (event) => events.push(event),
    });
    try {
      // Both workers answer first, so the load below meets two running workers.
      await Promise.all([pool.verify([envelope(0)]), pool.verify([envelope(0)])]);
      const before = pool.stats();
      expect(before.workers.map((worker) => worker.answered)).toEqual([1, 1]);
      // Batches of 100 documents: a worker takes tens of milliseconds over one, far longer than
      // posting them all and stopping worker 0 takes, so it has answered none when it stops.
      const documents = Array.from({ length: 200 }, (_, index) => envelope(index));
      const idOf = (batch: number, item: number) => `rcp_${(batch * 100 + item) % 200}`;
      const batches = Array.from({ length: 12 }, (_, batch) =>
        Array.from({ length: 100 }, (_, item) => documents[(batch * 100 + item) % 200]!),
      );
      // The least busy worker takes each batch, ties going to the first: worker 0 holds the
      // even batches, worker 1 the odd ones.
      const calls = batches.map((batch) => pool.verify(batch));
      const held = pool.stats().workers.map((worker) => worker.inFlight);
      expect(held).toEqual([6, 6]);
      const stopped = pool.terminateWorker(0);
      const settled = await Promise.allSettled(calls);
      await stopped;
      expect(settled.map((outcome) => outcome.status)).toEqual(
        batches.map((_, index) => (index % 2 === 0 ? 'rejected' : 'fulfilled')),
      );
      settled.forEach((outcome, index) => {
        if (index % 2 === 0) {
          expect(outcome.status, `batch ${index}`).toBe('rejected');
          const reason = (outcome as PromiseRejectedResult).reason as unknown;
          expect(reason).toBeInstanceOf(VerifyWorkerUnavailableError);
          expect(reason).toMatchObject({ reason: 'worker_lost', message: expect.stringMatching(/stopped/) });
        } else {
          expect(outcome.status, `batch ${index}`).toBe('fulfilled');
          const results = (outcome as PromiseFulfilledResult<VerifiedReceipt[]>).value;
          expect(results.map((result) => result.receipt_id)).toEqual(
            batches[index]!.map((_, item) => idOf(index, item)),
          );
          expect(results.every((result) => result.report.status === 'PASS')).toBe(true);
        }
      });
      // Replaced at once (its first stop), in the same slot, by another thread.
      const exits = events.filter((event) => event.kind === 'worker_exit');
      expect(exits).toEqual([
        {
          kind: 'worker_exit',
          index: 0,
          threadId: before.workers[0]!.threadId,
          reason: 'terminated on request',
          restartInMs: 0,
        },
      ]);
      expect(events.filter((event) => event.kind === 'unavailable' || event.kind === 'available')).toEqual([]);
      const after = pool.stats();
      expect(after.available).toBe(true);
      expect(after.workers[0]).toMatchObject({ index: 0, restarts: 1, inFlight: 0 });
      expect(after.workers[0]!.threadId).not.toBeNull();
      expect(after.workers[0]!.threadId).not.toBe(before.workers[0]!.threadId);
      expect(after.workers[1]).toMatchObject({ threadId: before.workers[1]!.threadId, restarts: 0 });

      // Every later call is answered, and the replacement answers its share.
      const again = await Promise.all(batches.slice(0, 6).map((batch) => pool.verify(batch)));
      expect(again.flat().map((result) => result.receipt_id)).toEqual(
        batches.slice(0, 6).flatMap((batch, index) => batch.map((_, item) => idOf(index, item))),
      );
      const shares = pool.stats().workers.map((worker) => worker.answered);
      expect(shares[0]).toBeGreaterThanOrEqual(2);
      expect(shares[0]! + shares[1]!).toBe(6 + 7);
      expect(await pool.reports([envelope(3)])).toHaveLength(1);
    } finally {
      await pool.close();
    }
  });

  it('sends its replacement the keys of single documents again', async () => {
    const pool = createVerifyPool({ size: 1 });
    try {
      const now = new Date('2026-11-02T00:00:00Z');
      const pinned = { pinned: [{ ...key, status: 'pinned' as const, label: 'Acme' }], advertised: roleKeys };
      const document = envelope(21);
      const first = await pool.receipt(document, pinned, now);
      expect(first.report.trust).toEqual({ status: 'trusted', key_id: KEY_ID });
      const threadId = pool.stats().workers[0]!.threadId;
      await pool.terminateWorker(0);
      // The same keys object: the replacement was never given it, so it goes with the document.
      expect(await pool.receipt(document, pinned, now)).toEqual(first);
      const answered = pool.stats().workers[0]!;
      expect(answered.threadId).not.toBe(threadId);
      expect(answered.answered).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('replaces a worker that stops as soon as it starts with growing waits, never in a hot loop, and refuses calls while none runs', async () => {
    const events: { at: number; event: VerifyPoolEvent }[] = [];
    let crashing = true;
    const started = Date.now();
    const pool: ReturnType<typeof createVerifyPool> = createVerifyPool({
      size: 1,
      onEvent: (event) => {
        events.push({ at: Date.now(), event });
        // Each worker is stopped the moment it starts, as a worker that crashes on start is.
        if (event.kind === 'worker_start' && crashing) setImmediate(() => void pool.terminateWorker(event.index));
      },
    });
    try {
      const exits = () => events.filter(({ event }) => event.kind === 'worker_exit');
      // Six starts and five stops take 0 + 100 + 200 + 400 ms of waits and more.
      for (let waited = 0; exits().length < 5 && waited < 10_000; waited += 5)
        await new Promise((resolve) => setTimeout(resolve, 5));
      crashing = false;
      expect(exits()).toHaveLength(5);
      const elapsed = Date.now() - started;
      const delays = exits().map(({ event }) => (event as { restartInMs: number }).restartInMs);
      const base = WORKER_RESTART_MIN_DELAY_MS;
      expect(delays).toEqual([0, base, base * 2, base * 4, base * 8]);
      // The waits were real: each start came at least its delay after the stop before it.
      const starts = events.filter(({ event }) => event.kind === 'worker_start');
      exits().forEach(({ at }, index) => {
        const next = starts[index + 1];
        if (next !== undefined) expect(next.at - at).toBeGreaterThanOrEqual(delays[index]! - 2);
      });
      expect(elapsed).toBeGreaterThanOrEqual(base * 7 - 10);
      // Not a hot loop: one start per stop, and no more.
      expect(starts.length).toBeLessThanOrEqual(exits().length + 1);
      // While it waited, the pool said it had no worker, and refused calls at once.
      expect(pool.available).toBe(false);
      expect(pool.stats()).toMatchObject({ available: false, workers: [{ threadId: null, restarts: 5 }] });
      await expect(pool.verify([envelope(1)])).rejects.toMatchObject({ reason: 'no_worker' });
      await expect(pool.request(envelope(1), { pinned: [], advertised: [], listed: [] }, new Date())).rejects.toThrow(
        VerifyWorkerUnavailableError,
      );
      const availability = events
        .map(({ event }) => event.kind)
        .filter((kind) => kind === 'available' || kind === 'unavailable');
      expect(availability).toEqual([
        'unavailable',
        'available',
        'unavailable',
        'available',
        'unavailable',
        'available',
        'unavailable',
      ]);
      // The next worker, no longer stopped, answers.
      for (let waited = 0; !pool.available && waited < 10_000; waited += 5)
        await new Promise((resolve) => setTimeout(resolve, 5));
      const [result] = await pool.verify([envelope(2)]);
      expect(result?.receipt_id).toBe('rcp_2');
      expect(events.at(-1)?.event.kind).toBe('available');
    } finally {
      await pool.close();
    }
  });
});

describe('the worker code', () => {
  async function verifyOn(worker: Worker, document: Uint8Array): Promise<VerifyResponse> {
    const bytes = document.slice().buffer;
    const answer = new Promise<VerifyResponse>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    const request: VerifyRequest = { id: 1, bytes, offsets: Uint32Array.of(0, document.length) };
    worker.postMessage(request, [bytes]);
    return answer;
  }
  const data: VerifyWorkerData = { pinned: [], advertised: [key, ...roleKeys], secrets: [], now: Date.now() };

  it('is, from source, the worker module bundled in memory: no tsx loader', async () => {
    const source = verifyWorkerSource();
    expect(source.kind).toBe('code');
    if (source.kind !== 'code') return;
    expect(source.code).not.toMatch(/tsx\/esm/);
    const worker = new Worker(source.code, { eval: true, workerData: data });
    try {
      const response = await verifyOn(worker, envelope(3));
      expect('results' in response && (response.results[0] as VerifiedReceipt | undefined)?.report.status).toBe('PASS');
    } finally {
      await worker.terminate();
    }
  });

  it('falls back to the tsx bootstrap, which verifies the same way', async () => {
    const worker = new Worker(TSX_BOOTSTRAP, { workerData: data });
    try {
      const response = await verifyOn(worker, envelope(4));
      expect('results' in response && (response.results[0] as VerifiedReceipt | undefined)?.report.status).toBe('PASS');
    } finally {
      await worker.terminate();
    }
  });
});

describe('unpackedFromAsar', () => {
  it('moves a file inside app.asar to app.asar.unpacked, and leaves other files alone', () => {
    expect(
      unpackedFromAsar(new URL('file:///opt/Evidence%20Room/resources/app.asar/out/main/verify-worker.js')).href,
    ).toBe('file:///opt/Evidence%20Room/resources/app.asar.unpacked/out/main/verify-worker.js');
    expect(unpackedFromAsar(new URL('file:///repo/out/main/verify-worker.js')).href).toBe(
      'file:///repo/out/main/verify-worker.js',
    );
    expect(() => unpackedFromAsar(new URL('https://example.com/app.asar/x.js'))).toThrow(TypeError);
  });
});
