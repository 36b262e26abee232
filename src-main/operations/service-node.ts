/**
 * A service node: its id, and the check that it holds the same keys as every other node of its
 * database (docs/deploy.md "The PostgreSQL store").
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { OperationError } from './errors';
import type { ServiceStore } from './service-store';

/** A node as the cluster knows it. */
export interface ServiceNode {
  /** `<hostname>-<pid>-<4 random hex>`. */
  readonly id: string;
  /** When the process started serving (ms). */
  readonly started_at: number;
}

/** A new node id: `<hostname>-<pid>-<4 random hex>` (the host name kept to letters, digits, `.` and `-`). */
export function newNodeId(): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9.-]/g, '-')
      .slice(0, 63) || 'host';
  return `${host}-${process.pid}-${randomBytes(2).toString('hex')}`;
}

/**
 * Registers this node's signing and log key ids, and the id of its payment key secret, with its
 * database (the first node's become the database's), and refuses a node whose keys differ: its
 * receipts, checkpoints and /status would be signed with keys the other nodes do not list, and
 * the keys it sold would not be the ones another node delivers. On SQLite (one node) it always
 * passes.
 *
 * @throws OperationError `service_key_mismatch` naming the key and what to copy
 * @throws StoreUnavailableError when the database cannot be reached
 */
/**
 * The refusal of a data folder whose payment key secret is not the one its database's nodes use
 * (`what` names the file): keys derived under it would not work.
 */
export function paymentSecretMismatch(what: string): OperationError {
  return new OperationError(
    'conflict',
    'service_key_mismatch',
    `${what} is not the payment key secret the database's nodes use: the keys derived under it would not work; copy service/payment-key-secret from a node of the service (mode 600), then try again (docs/deploy.md).`,
  );
}

export async function checkServiceKeys(
  store: ServiceStore,
  keys: { signing: string; log: string; payment?: string },
  node: ServiceNode,
  now: number,
): Promise<void> {
  const mine = [
    { role: 'signing', key_id: keys.signing },
    { role: 'log', key_id: keys.log },
    ...(keys.payment === undefined ? [] : [{ role: 'payment', key_id: keys.payment } as const]),
  ] as const;
  const registered = await store.cluster.claimServiceKeys(mine, node.id, now);
  for (const key of mine) {
    const theirs = registered.find((entry) => entry.role === key.role)?.key_id;
    if (theirs !== undefined && theirs !== key.key_id) {
      if (key.role === 'payment') throw paymentSecretMismatch("This node's service/payment-key-secret");
      const file = key.role === 'signing' ? 'service/signing-key.json' : 'service/log-key.json';
      throw new OperationError(
        'conflict',
        'service_key_mismatch',
        `This node's ${key.role} key (${key.key_id}) is not the one the database's nodes use (${theirs}): ` +
          `every node of one database holds the same service/ folder; copy ${file} (and service/retired/) from a running node ` +
          `to this data folder, then start again (docs/deploy.md).`,
      );
    }
  }
}

/** After `evroom service keys rotate` with a database: the new signing key becomes the registered one. */
export async function registerRotatedKey(
  store: ServiceStore,
  keyId: string,
  node: ServiceNode,
  now: number,
): Promise<void> {
  await store.cluster.replaceServiceKey({ role: 'signing', key_id: keyId }, node.id, now);
}
