import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECEIPT_EXPORT_COLUMNS } from '../../src-shared/api/receipts-export';
import { insertReceipts, LEDGER_FILE_NAME, openLedger } from '../ledger/index';
import { makeReceipt } from '../ledger/test-support';

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const ROWS = 1_204;

function evroom(home: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', FORCE_COLOR: undefined },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('evroom ledger list --csv / --all --json', () => {
  let home: string;

  beforeAll(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-ledger-export-'));
    // An initialised data folder first (the CLI makes it), then rows straight into its ledger.
    expect(evroom(home, ['ledger', 'stats']).code).toBe(0);
    const ledger = openLedger(path.join(home, LEDGER_FILE_NAME));
    try {
      const receipts = Array.from({ length: ROWS }, (_, index) => ({
        ...makeReceipt(`r${index}`, {
          status: index % 2 === 0 ? 'PASS' : 'MISMATCH',
          receipt_id: index === 3 ? '-1+2' : `rcp_${index}`,
          issued_at: Date.UTC(2026, 0, 1) + index,
        }),
        source: { kind: 'file' as const, ref: 'test' },
      }));
      insertReceipts(ledger.writable, receipts, { at: Date.UTC(2026, 5, 1) });
    } finally {
      ledger.close();
    }
  });
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it('--csv writes every filtered row (beyond one page), neutralising formula-like cells', () => {
    const result = evroom(home, ['ledger', 'list', '--status', 'MISMATCH', '--csv']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\r\n');
    expect(lines[0]).toBe(RECEIPT_EXPORT_COLUMNS.join(','));
    expect(lines.slice(1, -1)).toHaveLength(ROWS / 2);
    expect(lines.slice(1, -1).every((line) => line.includes(',MISMATCH,'))).toBe(true);
    expect(lines.some((line) => line.includes(",'-1+2,"))).toBe(true);
  });

  it('--all --json writes one array of the same columns, in the asked order', () => {
    const result = evroom(home, ['ledger', 'list', '--all', '--json', '--sort', 'issued_at', '--asc']);
    expect(result.code).toBe(0);
    const records = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(records).toHaveLength(ROWS);
    expect(Object.keys(records[0] ?? {})).toEqual([...RECEIPT_EXPORT_COLUMNS]);
    expect(records[3]?.receipt_id).toBe('-1+2');
    expect(records[0]?.issued_at).toBe('2026-01-01T00:00:00.000Z');
  });

  it('refuses what would mix a page and the whole set', () => {
    for (const args of [
      ['--csv', '--json'],
      ['--all'],
      ['--csv', '--limit', '5'],
      ['--all', '--json', '--after', 'x'],
    ]) {
      const result = evroom(home, ['ledger', 'list', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
    }
  });
});
