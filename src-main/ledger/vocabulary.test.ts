import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BUNDLE_STATUSES,
  isTenantId,
  KEY_ALGORITHMS,
  REPORT_STATUSES,
  SOURCE_KINDS,
  TRUST_STATUSES,
} from '../../src-shared/api/vocabulary';
import {
  DELIVERY_CHANNELS,
  DELIVERY_STATES,
  MEMO_TIERS,
  PAYMENT_STATES,
  PAYMENT_TERMS,
} from '../../src-shared/api/payments';
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

  it('lists the same payment states, tiers, terms and delivery channels and states (migration 9)', () => {
    expect(checkList('payments', 'state')).toEqual([...PAYMENT_STATES]);
    expect(checkList('payments', 'tier')).toEqual([...MEMO_TIERS]);
    expect(checkList('payments', 'term')).toEqual([...PAYMENT_TERMS]);
    expect(checkList('payments', 'delivery_channel')).toEqual([...DELIVERY_CHANNELS]);
    expect(checkList('payments', 'delivery_state')).toEqual([...DELIVERY_STATES]);
  });

  it('accepts exactly the tenant ids the shared rule accepts (migration 3 spells it in SQL)', () => {
    const file = path.join(directory, 'tenants.sqlite');
    openLedger(file).close();
    const database = new Database(file);
    try {
      const insert = database.prepare("INSERT INTO tenants (id, tier, created_at) VALUES (?, 'free', 0)");
      // Not NUL: SQLite's GLOB and length() stop at it, so the CHECK lets 'a\u0000b' through;
      // insertTenant checks the shared rule first (service-state.test.ts).
      const candidates = ['a', 'acme', 'A.b_c-9', 'x'.repeat(64), '', 'x'.repeat(65), 'has space', 'a/b', 'é', '%41'];
      for (const id of candidates) {
        let stored = true;
        try {
          insert.run(id);
        } catch {
          stored = false;
        }
        expect(stored, JSON.stringify(id)).toBe(isTenantId(id));
      }
    } finally {
      database.close();
    }
  });
});
