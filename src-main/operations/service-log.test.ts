import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { parseNote, verifyNote, parseVkey } from '../../src-shared/crypto/signed-note';
import { tlogLeafHash, tlogVerifyConsistency, tlogVerifyInclusion } from '../../src-shared/crypto/tlog';
import { jcs } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres';
import { OperationError } from './errors';
import { issueProfile, type EmitRequest, type Issued, type IssuingKey } from './service-issue';
import { loadServiceKeys } from './service-keys';
import { loadLogKey, openServiceLog, type ServiceLog } from './service-log';
import { openServiceStore, type ServiceStore } from './service-store';
import { openWorkspace, type Workspace } from './workspace';

// Two service nodes on one PostgreSQL database (two stores over one database, the same key
// files): receipts issued through both count against one quota and land in one log per tenant,
// and either node's log signs, proves and serves what the other stored.

const NOW = new Date('2026-06-01T12:00:00.000Z');
const request = (input: string): EmitRequest => ({
  agent_did: 'did:web:agent.example.com',
  input,
  content_type: 'text/plain',
});

describe('issuing and logging through two nodes on one PostgreSQL database', () => {
  let postgres: TestPostgres;
  let directory: string;
  let workspace: Workspace;
  let signer: IssuingKey;
  let nodes: ServiceStore[];
  let logs: ServiceLog[];

  beforeAll(async () => {
    postgres = await startTestPostgres();
  });
  afterAll(async () => {
    await postgres.stop();
  });
  beforeEach(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-service-log-'));
    workspace = openWorkspace(path.join(directory, 'home'));
    signer = loadServiceKeys(workspace).active;
    const url = await postgres.createDatabase();
    nodes = [await openServiceStore(workspace, url), await openServiceStore(workspace, url)];
    logs = nodes.map((store) => openServiceLog(workspace, loadLogKey(workspace), { store }));
    await nodes[0]?.identity.createTenant({ id: 'acme', tier: 'pro', at: NOW.getTime() });
  });
  afterEach(async () => {
    for (const log of logs) log.close();
    for (const store of nodes) await store.close();
    workspace.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  const node = (index: number): ServiceStore => nodes[index % 2] as ServiceStore;
  const log = (index: number): ServiceLog => logs[index % 2] as ServiceLog;

  it('counts one quota across both, and each signs and proves the log the other grew', async () => {
    const quota = { subject: 'tenant:acme', period: '2026-06', limit: 7 };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, index) =>
        issueProfile(workspace, signer, 'nano', request(`receipt ${index}`), {
          now: NOW,
          ref: 'tenant:acme',
          quota,
          store: node(index),
        }),
      ),
    );
    const issued = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    expect(issued).toHaveLength(7);
    expect(issued.map((item) => item.quotaUsed).sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected')
        expect(outcome.reason instanceof OperationError && outcome.reason.code === 'quota_exceeded').toBe(true);
    }

    // Node 1 signs the log node 0 and node 1 grew; node 0 then finds nothing left to sign.
    expect(await log(1).signGrown(NOW)).toBe(1);
    expect(await log(0).signGrown(NOW)).toBe(0);
    const checkpoint = await log(0).freshCheckpoint('acme', NOW);
    expect(checkpoint.tree_size).toBe(7);
    const served = await log(1).servedNote(checkpoint);
    const verified = verifyNote(workspace.crypto, parseNote(served), [parseVkey(workspace.crypto.sha256, log(0).vkey)]);
    expect(verified.map((entry) => entry.status)).toEqual(['valid']);

    // Every issued receipt is in the log once, proved by either node against the signed root.
    const leafOf = (item: Issued) => tlogLeafHash(workspace.crypto.sha256, utf8Encode(jcs(item.document as JsonValue)));
    const found = new Set<number>();
    for (let index = 0; index < 7; index += 1) {
      const proof = await log(index).inclusion('acme', index, 7);
      const hashes = proof.hashes.map((hash) => Uint8Array.from(Buffer.from(hash, 'hex')));
      const holders = issued.filter((item) =>
        tlogVerifyInclusion(workspace.crypto.sha256, leafOf(item), index, 7, hashes, checkpoint.root),
      );
      expect(holders).toHaveLength(1);
      found.add(issued.indexOf(holders[0] as Issued));
    }
    expect(found.size).toBe(7);

    // A later size, signed by the other node, is consistent with the first.
    await issueProfile(workspace, signer, 'nano', request('one more'), {
      now: NOW,
      ref: 'tenant:acme',
      quota: { ...quota, limit: 8 },
      store: node(1),
    });
    const later = await log(0).freshCheckpoint('acme', NOW);
    expect(later.tree_size).toBe(8);
    const consistency = await log(1).consistency('acme', 7, 8);
    expect(
      tlogVerifyConsistency(
        workspace.crypto.sha256,
        7,
        8,
        checkpoint.root,
        later.root,
        consistency.hashes.map((hash) => Uint8Array.from(Buffer.from(hash, 'hex'))),
      ),
    ).toBe(true);
  });
});
