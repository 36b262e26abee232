import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countReceipts, getReceipt, listTlogLeaves, quotaUsed, tlogSize } from '../ledger';
import { execute } from '../ledger/database';
import { sql } from '../ledger/sql';
import { createVerifyPool, type VerifyPool } from '../core/worker-pool';
import { OperationError } from './errors';
import { issueProfile, type EmitRequest, type IssuingKey } from './service-issue';
import { createTenant } from './service-admin';
import { workspaceServiceStore } from './service-store';
import { loadServiceKeys } from './service-keys';
import { openWorkspace, type Workspace } from './workspace';

// The service's group commit, on a real ledger: the receipts issued in one turn of the event
// loop are stored in one transaction, each refused on its own (a used-up quota, a row the ledger
// refuses) without taking the others with it.

const NOW = new Date('2026-06-01T12:00:00.000Z');
const request = (input: string): EmitRequest => ({
  agent_did: 'did:web:agent.example.com',
  input,
  content_type: 'text/plain',
});

describe('issuing receipts together', () => {
  let directory: string;
  let workspace: Workspace;
  let signer: IssuingKey;

  beforeEach(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-service-issue-'));
    workspace = openWorkspace(path.join(directory, 'home'));
    signer = loadServiceKeys(workspace).active;
    // The tenant whose log its receipts go to (a tenant's receipt is appended in its transaction).
    await createTenant(workspaceServiceStore(workspace), 'acme', 'pro');
  });
  afterEach(() => {
    workspace.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  const settle = (promises: Promise<unknown>[]) => Promise.allSettled(promises);

  it('stores every receipt of one turn, each with its own row, and counts the quota up to its limit', async () => {
    const quota = { subject: 'tenant:acme', period: '2026-06', limit: 3 };
    const outcomes = await settle(
      Array.from({ length: 5 }, (_, index) =>
        issueProfile(workspace, signer, 'standard', request(`text ${index}`), { now: NOW, ref: 'tenant:acme', quota }),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    const issued = outcomes.flatMap((outcome) =>
      outcome.status === 'fulfilled'
        ? [outcome.value as { id: number; receipt_sha256: string; quotaUsed: number }]
        : [],
    );
    expect(issued.map((item) => item.quotaUsed)).toEqual([1, 2, 3]);
    expect(new Set(issued.map((item) => item.id)).size).toBe(3);
    for (const item of issued) {
      const row = getReceipt(workspace.ledger.readable, item.id);
      expect(row?.receipt_sha256).toBe(item.receipt_sha256);
      expect(row?.status).toBe('PASS');
      expect(row?.sources).toEqual([expect.objectContaining({ kind: 'service', ref: 'tenant:acme' })]);
    }
    const refused = outcomes[3];
    expect(
      refused?.status === 'rejected' &&
        refused.reason instanceof OperationError &&
        refused.reason.code === 'quota_exceeded',
    ).toBe(true);
    expect(countReceipts(workspace.ledger.readable)).toBe(3);
    expect(quotaUsed(workspace.ledger.readable, 'tenant:acme', '2026-06')).toBe(3);
    // The ledger's counts saw every row of the batch.
    expect(countReceipts(workspace.ledger.readable, { status: 'PASS' })).toBe(3);
    // The tenant's log holds the three stored receipts, in the order they were issued, and
    // nothing of the two its quota refused.
    expect(listTlogLeaves(workspace.ledger.readable, 'acme', 0, 10).map((leaf) => leaf.receipt)).toEqual(
      issued.map((item) => item.id),
    );
  });

  it('refuses only the receipt whose row the ledger refuses, and does not count it against the quota', async () => {
    // A trigger on the writing connection stands for a row the ledger refuses.
    workspace.ledger.runInTransaction((database) => {
      execute(
        database,
        sql`CREATE TEMP TRIGGER refuse_marked BEFORE INSERT ON main.receipts WHEN instr(CAST(NEW.raw AS TEXT), 'refuse-me') > 0 BEGIN SELECT RAISE(ABORT, 'refused for the test'); END`,
      );
    });
    const quota = { subject: 'tenant:acme', period: '2026-06', limit: 10 };
    const inputs = ['first', 'refuse-me', 'third'];
    const outcomes = await settle(
      inputs.map((input) =>
        issueProfile(
          workspace,
          signer,
          'standard',
          { ...request(input), agent_did: `did:web:${input}.example.com` },
          { now: NOW, ref: 'tenant:acme', quota },
        ),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(countReceipts(workspace.ledger.readable)).toBe(2);
    expect(tlogSize(workspace.ledger.readable, 'acme')).toBe(2);
    expect(quotaUsed(workspace.ledger.readable, 'tenant:acme', '2026-06')).toBe(2);
    expect(
      outcomes.flatMap((outcome) =>
        outcome.status === 'fulfilled' ? [(outcome.value as { quotaUsed: number }).quotaUsed] : [],
      ),
    ).toEqual([1, 2]);
  });

  describe('with the check of what was signed on a worker', () => {
    let pool: VerifyPool;
    beforeEach(() => {
      pool = createVerifyPool({ size: 1 });
    });
    afterEach(async () => {
      await pool.close();
    });

    it('appends a tenant’s receipts to its log in the order they were signed, whichever check ends first', async () => {
      // The first is checked on the worker, the second here (at once): the second's check ends first.
      const first = issueProfile(workspace, signer, 'nano', request('signed first'), {
        now: new Date('2026-06-01T12:00:01.000Z'),
        ref: 'tenant:acme',
        pool,
      });
      const second = issueProfile(workspace, signer, 'nano', request('signed second'), {
        now: new Date('2026-06-01T12:00:02.000Z'),
        ref: 'tenant:acme',
      });
      const [a, b] = await Promise.all([first, second]);
      const leaves = listTlogLeaves(workspace.ledger.readable, 'acme', 0, 10);
      expect(leaves.map((leaf) => leaf.receipt)).toEqual([a.id, b.id]);
      expect(leaves.map((leaf) => leaf.issued_at)).toEqual([
        Date.parse('2026-06-01T12:00:01Z'),
        Date.parse('2026-06-01T12:00:02Z'),
      ]);
    });

    it('stores the same rows as when it runs here', async () => {
      const here = await Promise.all(
        ['nano', 'standard', 'pq'].map((profile) =>
          issueProfile(workspace, signer, profile as 'nano', request(`here ${profile}`), { now: NOW, ref: 'public' }),
        ),
      );
      const worker = await Promise.all(
        ['nano', 'standard', 'pq'].map((profile) =>
          issueProfile(workspace, signer, profile as 'nano', request(`here ${profile}`), {
            now: NOW,
            ref: 'public',
            pool,
          }),
        ),
      );
      const rows = [...here, ...worker].map((item) => getReceipt(workspace.ledger.readable, item.id));
      expect(rows.every((row) => row?.status === 'PASS')).toBe(true);
      // Same content, same instant: the documents differ only in their ids, and their reports in the fields that name them.
      const shape = (row: (typeof rows)[number]) =>
        JSON.stringify(row?.report).replaceAll(/rcp_[0-9A-Za-z]+|[0-9a-f]{64}/g, '*');
      expect(rows.slice(3).map(shape)).toEqual(rows.slice(0, 3).map(shape));
    });
  });
});
