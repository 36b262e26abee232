/**
 * The service's signing keys, in the data folder's `service/` (files 0600, folder 0700).
 *
 * One Ed25519 key signs receipts, typed contracts, /status and tenant evidence; it is made on
 * the service's first start (`service/signing-key.json`). `evroom service keys rotate` moves it
 * to `service/retired/` and makes a new one: a retired key is still listed by /v1/keys (as
 * `retired`), so what it signed keeps verifying. Key ids are did:key names, which any verifier
 * decodes offline; being listed confers no trust.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { KeyEntry } from '../../src-shared/verify/context';
import { createPrivateKey, readPrivateKeyFile, writePrivateKeyFile, type PrivateKey } from '../core/private-key-file';
import { newNodeId, registerRotatedKey } from './service-node';
import type { ServiceStore } from './service-store';
import type { Workspace } from './workspace';

/** The folder of the service's keys inside the data folder. */
export const SERVICE_KEYS_FOLDER = 'service';
const ACTIVE_FILE = 'signing-key.json';
const RETIRED_FOLDER = 'retired';
const LABEL = 'Evidence Room service signing key';

/** A key the service lists. */
export interface ServiceKey extends KeyEntry {
  active: boolean;
  created_at?: string;
  /** For a retired key: when it was retired (from its file name). */
  retired_at?: string;
}

/** The active key (with its seed) and every key to list. */
export interface ServiceKeys {
  active: PrivateKey;
  listed: ServiceKey[];
}

function folderOf(workspace: Workspace): string {
  return path.join(workspace.dataDirectory, SERVICE_KEYS_FOLDER);
}

function retiredKeys(workspace: Workspace): ServiceKey[] {
  const folder = path.join(folderOf(workspace), RETIRED_FOLDER);
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder)
    .filter((name) => /^retired-\d{8}T\d{6}Z(?:-\d+)?\.json$/.test(name))
    .sort()
    .map((name) => {
      const { key } = readPrivateKeyFile(path.join(folder, name), workspace.crypto);
      key.seed.fill(0);
      const stamp = /^retired-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(name);
      return {
        key_id: key.key_id,
        algorithm: key.algorithm,
        public_key: key.public_key,
        active: false,
        ...(key.created_at !== undefined ? { created_at: key.created_at } : {}),
        ...(stamp ? { retired_at: `${stamp[1]}-${stamp[2]}-${stamp[3]}T${stamp[4]}:${stamp[5]}:${stamp[6]}Z` } : {}),
      };
    });
}

/**
 * The service's keys, making the signing key on first use.
 *
 * @param workspace - The open workspace (its data folder holds the keys).
 * @returns The active key (wipe its seed when the service stops) and every key to list.
 * @throws PrivateKeyFileError when a key file exists but cannot be used (it is never replaced).
 */
export function loadServiceKeys(workspace: Workspace): ServiceKeys {
  const file = path.join(folderOf(workspace), ACTIVE_FILE);
  let active: PrivateKey;
  if (fs.existsSync(file)) {
    active = readPrivateKeyFile(file, workspace.crypto).key;
  } else {
    active = createPrivateKey('Ed25519', workspace.crypto, { label: LABEL, createdAt: new Date() });
    writePrivateKeyFile(file, active);
  }
  const listed: ServiceKey[] = [
    {
      key_id: active.key_id,
      algorithm: active.algorithm,
      public_key: active.public_key,
      active: true,
      ...(active.created_at !== undefined ? { created_at: active.created_at } : {}),
    },
    ...retiredKeys(workspace),
  ];
  return { active, listed };
}

/**
 * Retires the active signing key and makes a new one, then tells the service's store: the key
 * registry the nodes check on start (PostgreSQL; docs/deploy.md) and the service's audit rows.
 * Open the store first, so an unreachable database stops the rotation before any file changes.
 *
 * @returns the new key's id and the retired one's
 */
export async function rotateServiceKey(
  workspace: Workspace,
  store: ServiceStore,
  now = new Date(),
): Promise<{ key_id: string; retired_key_id: string }> {
  const { active } = loadServiceKeys(workspace);
  const retiredId = active.key_id;
  active.seed.fill(0);
  const folder = folderOf(workspace);
  const retiredFolder = path.join(folder, RETIRED_FOLDER);
  fs.mkdirSync(retiredFolder, { recursive: true, mode: 0o700 });
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  let target = path.join(retiredFolder, `retired-${stamp}.json`);
  for (let n = 1; fs.existsSync(target); n += 1) target = path.join(retiredFolder, `retired-${stamp}-${n}.json`);
  fs.renameSync(path.join(folder, ACTIVE_FILE), target);
  const next = createPrivateKey('Ed25519', workspace.crypto, { label: LABEL, createdAt: now });
  writePrivateKeyFile(path.join(folder, ACTIVE_FILE), next);
  next.seed.fill(0);
  await registerRotatedKey(store, next.key_id, { id: newNodeId(), started_at: now.getTime() }, now.getTime());
  await store.identity.appendAudit({
    action: 'service-key-rotate',
    subject: next.key_id,
    details: { retired: retiredId },
    at: now.getTime(),
  });
  return { key_id: next.key_id, retired_key_id: retiredId };
}
