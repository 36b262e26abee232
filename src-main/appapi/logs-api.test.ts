import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppApiResults, ImportProgress } from '../../src-shared/api/contract';
import { createPortableProvider } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { exportTenantEvidence } from '../operations/evidence';
import { createTenant } from '../operations/service-admin';
import { workspaceServiceStore } from '../operations/service-store';
import { issueProfile } from '../operations/service-issue';
import { loadServiceKeys } from '../operations/service-keys';
import { openWorkspace } from '../operations/workspace';
import { createAppApi, type AppApiDispatcher } from './app-api';

// The logs methods of the app API (issue 28) as both transports reach them: untrusted inputs in,
// over a real ledger in a temporary data folder.
const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(11);

describe('app API: logs', () => {
  let home: string;
  let scratch: string;
  let api: AppApiDispatcher;
  const call = <M extends keyof AppApiResults>(method: M, input?: unknown) =>
    api(method, input) as Promise<AppApiResults[M]>;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'evroom-logs-api-'));
    scratch = mkdtempSync(join(tmpdir(), 'evroom-logs-scratch-'));
    api = createAppApi({ mode: 'web', dataDirectory: home });
  });

  afterEach(() => {
    api.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses a logs.detail input that names no origin line, before reading anything', async () => {
    const refusals: [unknown, string][] = [
      [{}, 'origin is required: the log’s origin line'],
      [undefined, 'origin is required: the log’s origin line'],
      [{ origin: '' }, 'origin must not be empty'],
      [{ origin: 42 }, 'origin must be a string'],
      [{ origin: 'evroom.local/abc/tenants/acme extra' }, 'origin must contain no spaces and no “+”'],
      [{ origin: 'evroom.local/abc/tenants/acme\n' }, 'origin must contain no spaces and no “+”'],
      [{ origin: 'evroom.local/a+b/tenants/acme' }, 'origin must contain no spaces and no “+”'],
      [{ origin: 'evroom.local/abc/tenants/acme\u0000' }, 'origin must contain no control characters'],
      [{ origin: 'x'.repeat(513) }, 'origin must be at most 512 characters'],
      [{ origin: 'evroom.local/x', other: 1 }, 'unknown member "other"'],
    ];
    for (const [input, words] of refusals) {
      expect(await api.answer('logs.detail', input), JSON.stringify(input)).toMatchObject({
        ok: false,
        error: { code: 'invalid_request', message: expect.stringContaining(words) },
      });
    }
    await expect(api('logs.list', { origin: 'x' })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('lists no log and finds none in a fresh ledger; the overview has no split view', async () => {
    expect(await call('logs.list')).toEqual([]);
    expect(await call('logs.list', {})).toEqual([]);
    await expect(api('logs.detail', { origin: 'evroom.local/0123456789abcdef/tenants/acme' })).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('evroom.local/0123456789abcdef/tenants/acme'),
    });
    expect((await call('overview')).splitViews).toEqual([]);
  });

  async function importFile(file: string): Promise<void> {
    let progress: ImportProgress = api.desktop.importFile(file);
    while (progress.state === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      progress = await call('imports.progress', { jobId: progress.jobId });
    }
    expect(progress.state).toBe('done');
  }

  it('gives a bundle without log files no completeness (log: null), in the list and the detail', async () => {
    await call('verify', { text: signClassical('{"sequence":1}', seed, crypto), save: true });
    const file = join(scratch, 'no-log.zip');
    await api.desktop.exportTo(file);
    await importFile(file);
    const [bundle] = await call('bundles.list');
    expect(bundle).toBeDefined();
    expect(bundle?.log).toBeNull();
    expect((await call('bundles.get', { id: bundle?.id })).log).toBeNull();
    expect((await call('overview')).recentImports[0]?.log).toBeNull();
  });

  it('gives a served tenant’s bundle the completeness its import stored, in the list, the detail and the overview', async () => {
    // A service's data folder: three receipts issued for acme go into its log, and the tenant's
    // evidence is exported as `evroom export --tenant` (and the evidence route) writes it.
    const served = openWorkspace(join(scratch, 'service'));
    try {
      const keys = loadServiceKeys(served);
      await createTenant(workspaceServiceStore(served), 'acme', 'scale');
      for (let index = 0; index < 3; index += 1)
        await issueProfile(
          served,
          keys.active,
          'standard',
          { agent_did: 'did:web:agent.example.com', input: `log ${index}`, content_type: 'text/plain' },
          { now: new Date(Date.UTC(2026, 10, 2, 10, 0, index)), ref: 'tenant:acme' },
        );
      await exportTenantEvidence(served, {
        out: join(scratch, 'served.zip'),
        tenantId: 'acme',
        since: null,
        until: null,
      });
    } finally {
      served.close();
    }
    await importFile(join(scratch, 'served.zip'));
    const [bundle] = await call('bundles.list');
    expect(bundle?.log).toMatchObject({
      status: 'complete',
      origin: expect.stringMatching(/^evroom\.local\/[0-9a-f]{16}\/tenants\/acme$/),
      key_name: expect.stringMatching(/^evroom\.local\/[0-9a-f]{16}$/),
      tree_size: 3,
      signer: 'advertised',
      first_index: 0,
      last_index: 2,
      missing: [],
      missing_count: 0,
      stale: false,
      sentence: expect.stringMatching(/^complete for .* at size 3$/),
    });
    expect((await call('bundles.get', { id: bundle?.id })).log).toEqual(bundle?.log);
    expect((await call('overview')).recentImports[0]?.log).toEqual(bundle?.log);

    // The import recorded its checkpoint: the log is listed, and its page has the checkpoint.
    const origin = bundle?.log?.origin ?? '';
    const logs = await call('logs.list');
    expect(logs).toEqual([
      expect.objectContaining({
        origin,
        signer: 'advertised',
        checkpoints: 1,
        latest: expect.objectContaining({ tree_size: 3, source: `bundle:${bundle?.id}` }),
      }),
    ]);
    const detail = await call('logs.detail', { origin });
    expect(detail.history.map((checkpoint) => checkpoint.tree_size)).toEqual([3]);
    expect(detail.history[0]?.note).toContain(`${origin}\n3\n`);
    expect((await call('overview')).splitViews).toEqual([]);
  });
});
