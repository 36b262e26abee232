import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { LedgerError } from './errors';
import { openLedger, openLedgerReadOnly, openReadSnapshot } from './open-ledger';
import { countReceipts, insertReceipts } from './receipts';
import { makeReceipt, makeTemporaryDirectory, makeTemporaryLedger } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporary(): ReturnType<typeof makeTemporaryLedger> {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  return made;
}

describe('openLedger', () => {
  it('uses WAL, foreign keys, full sync and a busy timeout on its connections', () => {
    const { ledger } = temporary();
    expect(ledger.writable.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(ledger.readable.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(ledger.writable.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(ledger.readable.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(ledger.writable.pragma('synchronous', { simple: true })).toBe(2);
    expect(ledger.writable.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(ledger.writable.pragma('trusted_schema', { simple: true })).toBe(0);
    expect(ledger.writable.pragma('cache_size', { simple: true })).toBe(-64 * 1024);
    expect(ledger.readable.pragma('cache_size', { simple: true })).toBe(-64 * 1024);
  });

  it('enforces foreign keys', () => {
    const { ledger } = temporary();
    expect(() =>
      ledger.writable
        .prepare("INSERT INTO receipt_sources (receipt, kind, ref, imported_at) VALUES (999, 'file', 'x', 1)")
        .run(),
    ).toThrow(/FOREIGN KEY/);
  });

  it('creates the file and its WAL companions readable by the owner only', () => {
    const { ledger, file } = temporary();
    insertReceipts(ledger.writable, [makeReceipt('perm')]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    for (const companion of [`${file}-wal`, `${file}-shm`]) {
      expect(fs.existsSync(companion)).toBe(true);
      expect(fs.statSync(companion).mode & 0o777).toBe(0o600);
    }
  });

  it('tightens an existing file that others could read', () => {
    const { directory, cleanup } = makeTemporaryDirectory();
    cleanups.push(cleanup);
    const file = path.join(directory, 'ledger.sqlite');
    fs.writeFileSync(file, '', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    openLedger(file).close();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('gives a readable handle that cannot write, even with raw SQL', () => {
    const { ledger } = temporary();
    expect(() => ledger.readable.exec('CREATE TABLE sneaky (x INTEGER)')).toThrow(/readonly/i);
    expect(() => insertReceipts(ledger.readable as never, [makeReceipt('r')])).toThrow(LedgerError);
    expect(countReceipts(ledger.readable)).toBe(0);
  });

  it('lets the reader see what the writer committed', () => {
    const { ledger } = temporary();
    insertReceipts(ledger.writable, [makeReceipt('a'), makeReceipt('b')]);
    expect(countReceipts(ledger.readable)).toBe(2);
  });

  it('rolls a whole batch back when the transaction throws', () => {
    const { ledger } = temporary();
    insertReceipts(ledger.writable, [makeReceipt('kept')]);
    expect(() =>
      ledger.runInTransaction((database) => {
        insertReceipts(database, [makeReceipt('lost-1'), makeReceipt('lost-2')]);
        expect(countReceipts(database)).toBe(3);
        throw new Error('crash in the middle of a batch');
      }),
    ).toThrow('crash in the middle of a batch');
    expect(countReceipts(ledger.readable)).toBe(1);
  });

  it('leaves no trace of a batch when the process dies inside its transaction', () => {
    const { directory, cleanup } = makeTemporaryDirectory();
    cleanups.push(cleanup);
    const file = path.join(directory, 'ledger.sqlite');
    const here = path.dirname(fileURLToPath(import.meta.url));
    const script = path.join(directory, 'crash.ts');
    // The child commits one batch, then is killed (SIGKILL: no cleanup of any kind) halfway
    // through a second one.
    fs.writeFileSync(
      script,
      `
      import { openLedger } from ${JSON.stringify(path.join(here, 'open-ledger.ts'))};
      import { insertReceipts } from ${JSON.stringify(path.join(here, 'receipts.ts'))};
      import { makeReceipt } from ${JSON.stringify(path.join(here, 'test-support.ts'))};
      const ledger = openLedger(${JSON.stringify(file)});
      ledger.runInTransaction((db) => insertReceipts(db, [makeReceipt('first-1'), makeReceipt('first-2')]));
      ledger.runInTransaction((db) => {
        insertReceipts(db, Array.from({ length: 500 }, (_, i) => makeReceipt('second-' + i)));
        process.kill(process.pid, 'SIGKILL');
      });
      `,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 60_000 });
    expect(child.signal).toBe('SIGKILL');
    const ledger = openLedger(file);
    cleanups.unshift(() => ledger.close());
    expect(countReceipts(ledger.readable)).toBe(2);
  });

  it('closes once and refuses work after closing', () => {
    const made = makeTemporaryLedger();
    cleanups.push(() => fs.rmSync(made.directory, { recursive: true, force: true }));
    made.ledger.close();
    made.ledger.close();
    expect(made.ledger.closed).toBe(true);
    expect(made.ledger.readable.open).toBe(false);
    for (const attempt of [() => made.ledger.runInTransaction(() => 1), () => countReceipts(made.ledger.readable)]) {
      try {
        attempt();
        expect.unreachable();
      } catch (error) {
        expect((error as LedgerError).code).toBe('closed');
      }
    }
  });

  it('opens read-only for readers of an existing ledger', () => {
    const { ledger, file } = temporary();
    insertReceipts(ledger.writable, [makeReceipt('x')]);
    const reader = openLedgerReadOnly(file);
    expect(countReceipts(reader.readable)).toBe(1);
    expect(() => reader.readable.exec('DELETE FROM receipts')).toThrow(/readonly/i);
    reader.close();
  });

  it('keeps a read snapshot as it was when opened, until it is closed', () => {
    const { ledger, file } = temporary();
    insertReceipts(ledger.writable, [makeReceipt('a')]);
    const snapshot = openReadSnapshot(file);
    insertReceipts(ledger.writable, [makeReceipt('b'), makeReceipt('c')]);
    // The shared reader sees the new commit; the snapshot does not, however often it reads.
    expect(countReceipts(ledger.readable)).toBe(3);
    expect(countReceipts(snapshot.readable)).toBe(1);
    expect(() => snapshot.readable.exec('DELETE FROM receipts')).toThrow(/readonly/i);
    snapshot.close();
    expect(snapshot.closed).toBe(true);
    snapshot.close();
    expect(snapshot.readable.open).toBe(false);
    const later = openReadSnapshot(file);
    expect(countReceipts(later.readable)).toBe(3);
    later.close();
    expect(() => openReadSnapshot(path.join(path.dirname(file), 'missing.sqlite'))).toThrow(LedgerError);
  });

  it('refuses bad arguments', () => {
    expect(() => openLedger(42 as unknown as string)).toThrow(TypeError);
    expect(() => openLedger('')).toThrow(RangeError);
    expect(() => openLedger(':memory:')).toThrow(RangeError);
    expect(() => openLedger('/tmp/x.sqlite', { cacheMiB: 0 })).toThrow(RangeError);
    expect(() => openLedger('/tmp/x.sqlite', { busyTimeoutMs: -1 })).toThrow(RangeError);
    expect(() => openLedger('/nonexistent-dir-evroom/x.sqlite')).toThrow(LedgerError);
  });
});
