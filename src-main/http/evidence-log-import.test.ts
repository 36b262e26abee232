/**
 * A bundle the real service served, imported: the service issues a tenant's receipts into its
 * log and serves the period's evidence (GET /tenants/:id/evidence); an auditor's workstation
 * imports the zip and finds it complete for the period, signed by the log key it advertises, and
 * by a pinned key once the auditor pins the key /v1/keys lists (docs/logs.md, "What the import
 * checks").
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uDecode } from '../../src-shared/crypto';
import { getBundle } from '../ledger/index';
import { importEvidence } from '../operations/evidence';
import { openWorkspace } from '../operations/workspace';
import { startLoggedService, type LoggedService } from '../test-support/logged-service';
import { stopTestStores } from '../test-support/service-store';

const LOG_NAME = 'logs.example.com/evroom';

describe('a bundle the service served, imported', () => {
  let served0: LoggedService;
  let directory: string;
  let base: string;

  beforeAll(async () => {
    served0 = await startLoggedService({
      logName: LOG_NAME,
      start: '2026-11-02T10:00:00Z',
      prefix: 'evroom-served-log-',
    });
    ({ directory, base } = served0);
    // Leaves 0-4, issued at 10:00:01 ... 10:00:05.
    for (let second = 1; second <= 5; second += 1) {
      await served0.issueAt(`2026-11-02T10:00:0${second}Z`);
      // A checkpoint at size 2 (signed on demand), for the bundle to prove itself consistent with.
      if (second === 2) expect((await served0.get('log/checkpoint')).status).toBe(200);
    }
  });
  afterAll(async () => {
    await served0.close();
    await stopTestStores();
  });

  async function served(query: string): Promise<string> {
    const response = await served0.get(`evidence${query}`);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(response.status, bytes.toString('utf8')).toBe(200);
    const file = path.join(directory, `served-${Math.random().toString(16).slice(2)}.zip`);
    fs.writeFileSync(file, bytes);
    return file;
  }

  it('is complete for its period, and signed by a pinned key once the auditor pins the log key', async () => {
    const file = await served('?since=2026-11-02T10:00:02Z&until=2026-11-02T10:00:05Z&consistent_with=2');
    const auditor = openWorkspace(path.join(directory, 'auditor'));
    try {
      const result = await importEvidence(auditor, file, { workers: 1 });
      expect(result.findings).toEqual([]);
      expect(result.counts.receipts).toBe(3);
      expect(result.log).toMatchObject({
        status: 'complete',
        signer: 'advertised',
        origin: `${LOG_NAME}/tenants/acme`,
        key_name: LOG_NAME,
        first_index: 1,
        last_index: 3,
        missing_count: 0,
        stale: false,
        sentence: `complete for 2026-11-02T10:00:02Z to 2026-11-02T10:00:05Z at size 5`,
      });
      expect(getBundle(auditor.ledger.readable, result.bundle.id)?.log).toEqual(result.log);

      // The auditor pins the log key as /v1/keys lists it.
      const listing = (await (await fetch(`${base}/v1/keys`)).json()) as {
        keys: { key_id: string; public_key: string; use: string[] }[];
      };
      const logKey = listing.keys.find((entry) => entry.use.includes('log-checkpoints'));
      if (logKey === undefined) throw new Error('/v1/keys lists no log key');
      auditor.trust.pin({ key_id: logKey.key_id, algorithm: 'Ed25519', public_key: b64uDecode(logKey.public_key) });
      const whole = await importEvidence(auditor, await served(''), { workers: 1 });
      expect(whole.findings).toEqual([]);
      expect(whole.log).toMatchObject({
        status: 'complete',
        signer: 'pinned',
        sentence: 'complete for the whole log at size 5',
      });
    } finally {
      auditor.close();
    }
  });
});
