import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppApiAnswer } from '../../src-shared/api/contract';
import { b64uEncode, utf8Encode } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { createAppApi } from '../appapi/app-api';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { bundleParts, keyEntryFor, zipBundle } from '../evidence/test-support';
import { ledgerFileIn, ledgerStats, openLedgerReadOnly } from '../ledger';
import { importEvidence } from '../operations/evidence';
import { openWorkspace } from '../operations/workspace';
import { startLocalWebMode } from './web-mode';

// One behaviour behind every door: the same trust change, made through the CLI, through local
// web mode's HTTP API and through the handler the desktop app's IPC calls, re-judges the same
// stored receipts the same way. Each door starts from the same ledger (a bundle of receipts by
// one issuer, imported with no key pinned) and is observed through the ledger file itself.

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const node = createNodeCryptoProvider();
// This seed's public key in base64url starts with '-': the CLI must take it as an option's value.
const issuerSeed = new Uint8Array(32).fill(41);
const bundleSeed = new Uint8Array(32).fill(42);
const ISSUER = 'did:svc:acme:issuer';
const RECEIPTS = 5;

type TrustChange = { action: 'pin' } | { action: 'revoke' } | { action: 'unpin' };

/** A door: something that applies a trust change to a data folder and says whether it worked. */
interface Door {
  name: string;
  open(home: string): Promise<{ apply(change: TrustChange): Promise<void>; close(): Promise<void> }>;
}

const publicKey = b64uEncode(node.ed25519PublicKey(issuerSeed));

function cliDoor(): Door {
  return {
    name: 'CLI (evroom trust)',
    open: async (home) => ({
      apply: async (change) => {
        const args =
          change.action === 'pin'
            ? ['trust', 'pin', '--key-id', ISSUER, '--public-key', publicKey]
            : change.action === 'revoke'
              ? ['trust', 'revoke', ISSUER, '--reason', 'test']
              : ['trust', 'unpin', ISSUER];
        const result = spawnSync(process.execPath, [BIN, ...args], {
          encoding: 'utf8',
          env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
        });
        expect(result.stderr).toBe('');
        expect(result.status).toBe(0);
      },
      close: async () => undefined,
    }),
  };
}

function apiInput(change: TrustChange): [string, unknown] {
  if (change.action === 'pin') return ['trust.pin', { key_id: ISSUER, algorithm: 'Ed25519', public_key: publicKey }];
  if (change.action === 'revoke') return ['trust.revoke', { key_id: ISSUER, reason: 'test' }];
  return ['trust.unpin', { key_id: ISSUER }];
}

function ipcDoor(): Door {
  return {
    name: 'desktop app (the IPC handler’s answer)',
    open: async (home) => {
      const api = createAppApi({ mode: 'electron', dataDirectory: home });
      return {
        apply: async (change) => {
          const answer = await api.answer(...apiInput(change));
          expect(answer.ok).toBe(true);
        },
        close: async () => api.close(),
      };
    },
  };
}

function webDoor(rendererDirectory: string): Door {
  return {
    name: 'local web mode (HTTP on 127.0.0.1)',
    open: async (home) => {
      const web = await startLocalWebMode({ dataDirectory: home, rendererDirectory, port: 0 });
      const token = /#token=([A-Za-z0-9_-]+)/.exec(web.url)?.[1] ?? '';
      return {
        apply: async (change) => {
          const [method, input] = apiInput(change);
          const response = await fetch(`http://127.0.0.1:${web.port}/api/${method}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify(input),
          });
          const answer = (await response.json()) as AppApiAnswer;
          expect(response.status).toBe(200);
          expect(answer.ok).toBe(true);
        },
        close: () => web.close(),
      };
    },
  };
}

function byTrust(home: string): Record<string, number> {
  const ledger = openLedgerReadOnly(ledgerFileIn(home));
  try {
    return ledgerStats(ledger.readable).byTrust as Record<string, number>;
  } finally {
    ledger.close();
  }
}

describe('every door re-judges stored trust the same way', () => {
  let directory: string;
  let bundle: string;
  let rendererDirectory: string;

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-doors-'));
    rendererDirectory = path.join(directory, 'renderer');
    fs.mkdirSync(rendererDirectory);
    fs.writeFileSync(path.join(rendererDirectory, 'index.html'), '<!doctype html><title>probe</title>');
    const receipts = Array.from({ length: RECEIPTS }, (_, index) => ({
      stem: `r${index}`,
      bytes: utf8Encode(signClassical({ sequence: index }, issuerSeed, node)),
    }));
    const parts = bundleParts(receipts, {
      keyId: 'did:svc:acme:bundler',
      keys: [keyEntryFor('did:svc:acme:bundler', bundleSeed, node)],
    });
    bundle = path.join(directory, 'bundle.zip');
    fs.writeFileSync(bundle, zipBundle(parts, { seed: bundleSeed, keyId: 'did:svc:acme:bundler' }, node));
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  const doors = (): Door[] => [cliDoor(), ipcDoor(), webDoor(rendererDirectory)];

  it.each([0, 1, 2])(
    'door %i: pin, revoke, unpin re-judge the imported receipts',
    async (index) => {
      const door = doors()[index] as Door;
      const home = path.join(directory, `home-${index}`);
      const seeded = openWorkspace(home);
      await importEvidence(seeded, bundle);
      seeded.close();
      expect(byTrust(home), door.name).toEqual({ unpinned: RECEIPTS });

      const open = await door.open(home);
      try {
        await open.apply({ action: 'pin' });
        expect(byTrust(home), `${door.name} after pin`).toEqual({ trusted: RECEIPTS });
        await open.apply({ action: 'revoke' });
        expect(byTrust(home), `${door.name} after revoke`).toEqual({ revoked: RECEIPTS });
        await open.apply({ action: 'unpin' });
        expect(byTrust(home), `${door.name} after unpin`).toEqual({ unpinned: RECEIPTS });
      } finally {
        await open.close();
      }
    },
    120_000,
  );

  it('answers a refusal with the same envelope through IPC and HTTP', async () => {
    const home = path.join(directory, 'home-refusal');
    const api = createAppApi({ mode: 'electron', dataDirectory: home });
    const web = await startLocalWebMode({
      dataDirectory: path.join(directory, 'home-refusal-web'),
      rendererDirectory,
      port: 0,
    });
    try {
      const ipc = await api.answer('trust.unpin', { key_id: ISSUER });
      const token = /#token=([A-Za-z0-9_-]+)/.exec(web.url)?.[1] ?? '';
      const response = await fetch(`http://127.0.0.1:${web.port}/api/trust.unpin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ key_id: ISSUER }),
      });
      const http = (await response.json()) as AppApiAnswer;
      expect(response.status).toBe(404);
      expect(ipc).toEqual({
        ok: false,
        error: {
          code: 'unknown_key',
          message: `The key ${ISSUER} is not in the trust store.`,
          details: [{ path: '/key_id', message: 'not in the trust store' }],
        },
      });
      expect(http).toEqual(ipc);
      const cli = spawnSync(process.execPath, [BIN, 'trust', 'unpin', ISSUER], {
        encoding: 'utf8',
        env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
      });
      expect(cli.status).toBe(2);
      expect(cli.stderr).toContain('(unknown_key)');
    } finally {
      api.close();
      await web.close();
    }
  }, 60_000);

  it('pins under any DID method or an opaque id through IPC and HTTP, and refuses a bad id alike, changing nothing', async () => {
    const home = path.join(directory, 'home-ids');
    const seeded = openWorkspace(home);
    await importEvidence(seeded, bundle);
    seeded.close();
    const api = createAppApi({ mode: 'electron', dataDirectory: home });
    const web = await startLocalWebMode({
      dataDirectory: path.join(directory, 'home-ids-web'),
      rendererDirectory,
      port: 0,
    });
    const token = /#token=([A-Za-z0-9_-]+)/.exec(web.url)?.[1] ?? '';
    const overHttp = async (method: string, input: unknown): Promise<AppApiAnswer> => {
      const response = await fetch(`http://127.0.0.1:${web.port}/api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(input),
      });
      return (await response.json()) as AppApiAnswer;
    };
    try {
      const refusals: [string, RegExp][] = [
        ['acme key', /must not contain spaces/],
        ['acme\u0007', /U\+0007, a control character/],
        ['k'.repeat(257), /at most 256 characters; this one has 257/],
        ['', /must not be empty/],
        ['did::acme', /method is empty/],
        ['did:hive:', /method-specific id is empty/],
      ];
      for (const [keyId, reason] of refusals) {
        const input = { key_id: keyId, algorithm: 'Ed25519', public_key: publicKey };
        const ipc = await api.answer('trust.pin', input);
        expect(ipc, JSON.stringify(keyId)).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
        expect(ipc.ok ? '' : ipc.error.message, JSON.stringify(keyId)).toMatch(reason);
        expect(ipc.ok ? [] : ipc.error.details).toEqual([{ path: '/key_id', message: expect.any(String) }]);
        expect(await overHttp('trust.pin', input)).toEqual(ipc);
      }
      expect(byTrust(home)).toEqual({ unpinned: RECEIPTS });
      expect(await api.answer('trust.list', {})).toMatchObject({ ok: true, result: { pinned: [] } });

      // The same issuer key pinned under a did:hive id: its receipts are re-judged trusted.
      const pinned = await api.answer('trust.pin', {
        key_id: 'did:hive:acme-issuer',
        algorithm: 'Ed25519',
        public_key: publicKey,
      });
      expect(pinned).toMatchObject({ ok: true, result: { key_id: 'did:hive:acme-issuer' } });
      expect(byTrust(home)).toEqual({ trusted: RECEIPTS });
      // An opaque id over HTTP, on another data folder.
      const opaque = await overHttp('trust.pin', {
        key_id: 'test-key-001',
        algorithm: 'Ed25519',
        public_key: publicKey,
        label: 'Test key',
      });
      expect(opaque).toMatchObject({ ok: true, result: { key_id: 'test-key-001', label: 'Test key' } });
      expect(await overHttp('trust.unpin', { key_id: 'test-key-001' })).toMatchObject({ ok: true });
    } finally {
      api.close();
      await web.close();
    }
  }, 60_000);
});
