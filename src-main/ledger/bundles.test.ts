import { afterEach, describe, expect, it } from 'vitest';
import { getBundle, insertBundle, listBundles, updateBundle } from './bundles';
import { LedgerError } from './errors';
import { MIGRATIONS } from './migrations/index';
import { openLedger, type Ledger } from './open-ledger';
import { makeTemporaryLedger, sha256Hex } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporary(): Ledger {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  return made.ledger;
}

const manifest = '{"bundle_format":"evroom.evidence/1","tenant_id":"t1","files":[]}';

describe('bundles', () => {
  it('records a bundle as partial, finds it again by hash, and completes it', () => {
    const ledger = temporary();
    const bundle = {
      bundle_sha256: sha256Hex('zip-1'),
      file_name: 'evidence.zip',
      tenant_id: 't1',
      generated_at: 1_700_000_000_000,
      manifest_json: manifest,
      signature: { status: 'pass', key_id: 'did:svc:evroom:k1' },
    };
    expect(insertBundle(ledger.writable, bundle, { at: 10 })).toEqual({ id: 1, created: true });
    expect(insertBundle(ledger.writable, { ...bundle, file_name: 'again.zip' }, { at: 11 })).toEqual({
      id: 1,
      created: false,
    });
    const stored = getBundle(ledger.readable, 1);
    expect(stored).toMatchObject({
      status: 'partial',
      file_name: 'evidence.zip',
      imported_at: 10,
      findings: [],
      counts: {},
      manifest_json: manifest,
      signature: { status: 'pass', key_id: 'did:svc:evroom:k1' },
    });
    updateBundle(ledger.writable, 1, {
      status: 'complete',
      counts: { receipts: 3, created: 2 },
      findings: [{ code: 'extra_file', path: 'x' }],
    });
    expect(getBundle(ledger.readable, bundle.bundle_sha256)).toMatchObject({
      status: 'complete',
      counts: { receipts: 3, created: 2 },
      findings: [{ code: 'extra_file', path: 'x' }],
    });
    expect(getBundle(ledger.readable, 2)).toBeUndefined();
  });

  it('keeps a bundle’s log completeness, null without log files (migration 12)', () => {
    const ledger = temporary();
    const bundle = { bundle_sha256: sha256Hex('zip-log'), manifest_json: manifest, signature: null };
    const { id } = insertBundle(ledger.writable, bundle, { at: 10 });
    expect(getBundle(ledger.readable, id)?.log).toBeNull();
    expect(listBundles(ledger.readable).rows[0]?.log).toBeNull();
    const log = { status: 'complete', tree_size: 8, sentence: 'complete for the start to size 8 at size 8' };
    updateBundle(ledger.writable, id, { status: 'complete', log });
    expect(getBundle(ledger.readable, id)?.log).toEqual(log);
    expect(listBundles(ledger.readable).rows[0]?.log).toEqual(log);
    // Other changes leave it as it is; null clears it.
    updateBundle(ledger.writable, id, { counts: { receipts: 1 } });
    expect(getBundle(ledger.readable, id)?.log).toEqual(log);
    updateBundle(ledger.writable, id, { log: null });
    expect(getBundle(ledger.readable, id)?.log).toBeNull();
  });

  it('upgrades a ledger written before migration 12: its bundles have no log completeness', () => {
    const made = makeTemporaryLedger({ migrations: MIGRATIONS.slice(0, 11) });
    cleanups.push(made.dispose);
    insertBundle(made.ledger.writable, { bundle_sha256: sha256Hex('old'), manifest_json: manifest, signature: null });
    made.ledger.close();
    const ledger = openLedger(made.file);
    cleanups.unshift(() => ledger.close());
    expect(ledger.schemaVersion).toBe(MIGRATIONS.length); // upgraded through 12 to the newest
    expect(getBundle(ledger.readable, 1)).toMatchObject({ status: 'partial', log: null });
    expect(() => ledger.writable.prepare(`UPDATE bundles SET log_json = '{not json'`).run()).toThrow(/CHECK/);
  });

  it('pages newest import first, per tenant', () => {
    const ledger = temporary();
    for (let index = 0; index < 7; index += 1) {
      insertBundle(
        ledger.writable,
        {
          bundle_sha256: sha256Hex(`zip-${index}`),
          tenant_id: index % 2 === 0 ? 'even' : 'odd',
          manifest_json: manifest,
          signature: null,
        },
        // Two bundles per instant: the id breaks the tie.
        { at: Math.floor(index / 2) },
      );
    }
    const first = listBundles(ledger.readable, { limit: 3 });
    expect(first.rows.map((row) => row.id)).toEqual([7, 6, 5]);
    const second = listBundles(ledger.readable, { limit: 3, after: first.nextCursor ?? '' });
    expect(second.rows.map((row) => row.id)).toEqual([4, 3, 2]);
    const third = listBundles(ledger.readable, { limit: 3, after: second.nextCursor ?? '' });
    expect(third).toMatchObject({ nextCursor: null });
    expect(third.rows.map((row) => row.id)).toEqual([1]);
    expect(listBundles(ledger.readable, { tenant_id: 'odd' }).rows.map((row) => row.id)).toEqual([6, 4, 2]);
    expect(() => listBundles(ledger.readable, { tenant_id: 'odd', after: first.nextCursor ?? '' })).toThrow(
      LedgerError,
    );
  });

  it('refuses bad input and writes nothing', () => {
    const ledger = temporary();
    const good = { bundle_sha256: sha256Hex('z'), manifest_json: manifest, signature: null };
    expect(() => insertBundle(ledger.writable, { ...good, bundle_sha256: 'zz' })).toThrow(RangeError);
    expect(() => insertBundle(ledger.writable, { ...good, manifest_json: '{not json' })).toThrow(RangeError);
    expect(() => insertBundle(ledger.writable, { ...good, status: 'done' as 'complete' })).toThrow(RangeError);
    expect(() => insertBundle(ledger.writable, { ...good, generated_at: 1.5 })).toThrow(RangeError);
    expect(listBundles(ledger.readable).rows).toHaveLength(0);
    try {
      updateBundle(ledger.writable, 4, { status: 'complete' });
      expect.unreachable();
    } catch (error) {
      expect((error as LedgerError).code).toBe('not_found');
    }
  });
});
