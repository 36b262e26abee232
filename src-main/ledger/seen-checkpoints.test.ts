import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  listConsistencyResults,
  listSeenCheckpoints,
  listSeenOrigins,
  recordConsistencyResult,
  recordSeenCheckpointRow,
} from './seen-checkpoints';
import { makeTemporaryLedger } from './test-support';
import type { Ledger } from './open-ledger';

const ORIGIN = 'evroom.test/key/tenants/acme';
const ROOT_A = 'a'.repeat(64);
const ROOT_B = 'b'.repeat(64);
const KEY = 'c'.repeat(64);
const OTHER_KEY = 'd'.repeat(64);

describe('seen checkpoints (migration 13)', () => {
  let ledger: Ledger;
  let dispose: () => void;

  beforeEach(() => {
    ({ ledger, dispose } = makeTemporaryLedger());
  });
  afterEach(() => dispose());

  const checkpoint = (
    size: number,
    root: string,
    extra: { source?: string; cosignatures?: number; note?: string; key?: string } = {},
  ) =>
    recordSeenCheckpointRow(ledger.writable, {
      origin: ORIGIN,
      key_name: 'evroom.test/key',
      log_key: extra.key ?? KEY,
      tree_size: size,
      root,
      note: extra.note ?? `note ${size} ${root.slice(0, 4)}\n`,
      cosignatures: extra.cosignatures ?? 0,
      source: extra.source ?? 'bundle:1',
      seen_at: 1000 + size,
    });

  it('keeps one row per origin, size and root: the first sighting, the note with the most cosignatures', () => {
    expect(checkpoint(5, ROOT_A).inserted).toBe(true);
    expect(checkpoint(5, ROOT_A, { source: 'api:http://x', note: 'with one\n', cosignatures: 1 })).toMatchObject({
      inserted: false,
      record: { source: 'bundle:1', note: 'with one\n', cosignatures: 1 },
    });
    expect(checkpoint(5, ROOT_A, { source: 'bundle:3', note: 'plain\n' }).record.note).toBe('with one\n');
    // Another root for the same size is kept beside it: the evidence of a split view.
    expect(checkpoint(5, ROOT_B).inserted).toBe(true);
    checkpoint(9, ROOT_A);
    expect(listSeenCheckpoints(ledger.readable, ORIGIN).map((row) => [row.tree_size, row.root])).toEqual([
      [9, ROOT_A],
      [5, ROOT_A],
      [5, ROOT_B],
    ]);
    expect(listSeenOrigins(ledger.readable)).toEqual([ORIGIN]);
  });

  it('a pair found inconsistent stays so; a consistent one becomes inconsistent when a proof fails', () => {
    const pair = {
      origin: ORIGIN,
      log_key: KEY,
      from_size: 3,
      from_root: ROOT_A,
      to_size: 9,
      to_root: ROOT_B,
      source: 'bundle:1',
    };
    expect(recordConsistencyResult(ledger.writable, { ...pair, result: 'consistent' }).result).toBe('consistent');
    expect(
      recordConsistencyResult(ledger.writable, { ...pair, result: 'inconsistent', source: 'api:x' }),
    ).toMatchObject({ result: 'inconsistent', source: 'api:x' });
    expect(recordConsistencyResult(ledger.writable, { ...pair, result: 'consistent' }).result).toBe('inconsistent');
    expect(listConsistencyResults(ledger.readable, ORIGIN)).toHaveLength(1);
  });

  it('refuses bad input and writes nothing', () => {
    expect(() => checkpoint(-1, ROOT_A)).toThrow(RangeError);
    expect(() => checkpoint(1, 'A'.repeat(64))).toThrow(RangeError);
    expect(() =>
      recordSeenCheckpointRow(ledger.writable, {
        origin: 'has space/tenants/x',
        key_name: 'k',
        log_key: KEY,
        tree_size: 1,
        root: ROOT_A,
        note: 'n\n',
        cosignatures: 0,
        source: 'bundle:1',
      }),
    ).toThrow(/no spaces/);
    expect(() =>
      recordConsistencyResult(ledger.writable, {
        origin: ORIGIN,
        log_key: KEY,
        from_size: 9,
        from_root: ROOT_A,
        to_size: 3,
        to_root: ROOT_B,
        result: 'consistent',
        source: 'x',
      }),
    ).toThrow(RangeError);
    expect(() => checkpoint(1, ROOT_A, { key: 'C'.repeat(64) })).toThrow(/log_key/);
    expect(() => checkpoint(1, ROOT_A, { key: 'c'.repeat(62) })).toThrow(/log_key/);
    expect(listSeenOrigins(ledger.readable)).toEqual([]);
  });

  it('keeps the checkpoints and proofs of one origin apart by the key that verified them', () => {
    checkpoint(5, ROOT_A);
    // The same checkpoint verified by another key is another row; so is another root under it.
    expect(checkpoint(5, ROOT_A, { key: OTHER_KEY }).inserted).toBe(true);
    checkpoint(5, ROOT_B, { key: OTHER_KEY });
    expect(listSeenCheckpoints(ledger.readable, ORIGIN)).toHaveLength(3);
    expect(listSeenCheckpoints(ledger.readable, ORIGIN, KEY).map((row) => row.root)).toEqual([ROOT_A]);
    expect(listSeenCheckpoints(ledger.readable, ORIGIN, OTHER_KEY).map((row) => row.log_key)).toEqual([
      OTHER_KEY,
      OTHER_KEY,
    ]);
    const pair = { origin: ORIGIN, from_size: 3, from_root: ROOT_A, to_size: 5, to_root: ROOT_A, source: 'bundle:1' };
    recordConsistencyResult(ledger.writable, { ...pair, log_key: KEY, result: 'consistent' });
    expect(
      recordConsistencyResult(ledger.writable, { ...pair, log_key: OTHER_KEY, result: 'inconsistent' }).result,
    ).toBe('inconsistent');
    expect(listConsistencyResults(ledger.readable, ORIGIN, KEY)).toMatchObject([{ result: 'consistent' }]);
    expect(listConsistencyResults(ledger.readable, ORIGIN)).toHaveLength(2);
  });
});
