import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BUNDLE_STATUSES,
  KEY_ALGORITHMS,
  REPORT_STATUSES,
  SOURCE_KINDS,
  TRUST_STATUSES,
} from '../../src-shared/api/vocabulary';
import { openLedger } from './open-ledger';

// The schema's CHECK constraints spell some lists of the shared vocabulary in SQL; migrations are
// history and are not rewritten, so this holds the schema a new ledger gets to the one list each.
describe('the ledger schema speaks the shared vocabulary', () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-vocabulary-'));
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  function checkList(table: string, column: string): string[] {
    const file = path.join(directory, 'ledger.sqlite');
    if (!fs.existsSync(file)) openLedger(file).close();
    const database = new Database(file, { readonly: true });
    try {
      const { sql } = database
        .prepare('SELECT sql FROM sqlite_master WHERE type = ? AND name = ?')
        .get('table', table) as { sql: string };
      const match = new RegExp(`\\b${column}\\b[^,]*?CHECK \\(${column} IN\\s*\\(([^)]*)\\)`, 's').exec(sql);
      if (!match?.[1]) throw new Error(`no CHECK list for ${table}.${column}`);
      return [...match[1].matchAll(/'([^']*)'/g)].map((value) => value[1] as string);
    } finally {
      database.close();
    }
  }

  it('lists the same statuses, trusts, sources, bundle states and algorithms', () => {
    expect(checkList('receipts', 'status').sort()).toEqual([...REPORT_STATUSES].sort());
    expect(checkList('receipts', 'trust')).toEqual([...TRUST_STATUSES]);
    expect(checkList('receipt_sources', 'kind')).toEqual([...SOURCE_KINDS]);
    expect(checkList('bundles', 'status')).toEqual([...BUNDLE_STATUSES]);
    expect(checkList('keys', 'algorithm')).toEqual([...KEY_ALGORITHMS]);
  });
});
