/**
 * Anchoring, composed for the service: which chain, which account, and the engine over them.
 *
 * - Embedded (the default): anvil from npm on 127.0.0.1 with its state in
 *   `<data>/anchor/anvil-state.json` (anchors survive a restart), network name `anvil-local`.
 *   The anchor account's key is made on first start in `<data>/anchor/anchor-key` (mode 0600,
 *   `0x` + 64 hex) and the account is funded with anvil_setBalance at every start. A small
 *   watchdog process stops anvil if the service dies without stopping it (SIGKILL, a crash).
 * - Any EVM JSON-RPC: `rpcUrl`, a network name, and a key file (0600) read with
 *   readAnchorKeyFile; the account must hold funds for gas. A chain that does not answer at
 *   start is not fatal: the engine keeps batches pending and retries.
 *
 * The private key stays in the viem account; it is never logged or printed.
 */
import { DomainError } from '../../src-shared/api/domain-error';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { isAnchorNetwork } from '../../src-shared/anchor/urn';
import type { ServiceStore } from '../ledger/store';
import { EMBEDDED_NETWORK, startAnvil, type AnvilProcess } from './anvil';
import { anchorAccount, ChainClient, ChainError, readAnchorKeyFile } from './chain';
import { AnchorEngine } from './engine';
import { embeddedStablecoin, namedStablecoin, StablecoinChain } from './stablecoin';

/** The folder of anchoring's files inside the data folder. */
export const ANCHOR_FOLDER = 'anchor';
/** The embedded chain's state file, in {@link ANCHOR_FOLDER}. */
export const ANVIL_STATE_FILE = 'anvil-state.json';
/** The embedded anchor account's key file, in {@link ANCHOR_FOLDER}. */
export const ANCHOR_KEY_FILE = 'anchor-key';

/** Which chain to anchor on. */
export type AnchorChainConfig =
  | { kind: 'embedded' }
  | {
      kind: 'rpc';
      rpcUrl: string;
      network: string;
      keyFile: string;
      /** The stablecoin API keys are bought with and the treasury they are paid to; none: no payments. */
      stablecoin?: { token: string; treasury: string };
    };

/** How to anchor. */
export interface AnchoringConfig {
  chain: AnchorChainConfig;
  /** Seconds a batch stays open (fractions allowed); default 60. */
  intervalSeconds?: number;
  /** Blocks before a batch resolves; default 1. */
  confirmations?: number;
  /** Where chain errors go, one line each. */
  log?: (line: string) => void;
  /** This node's id (the anchoring lease's holder when it writes the batches); default one made by the engine. */
  node?: string;
}

/** Anchoring, running. */
export interface Anchoring {
  engine: AnchorEngine;
  network: string;
  /** The chain's JSON-RPC (for counterparties' steps 2-3). */
  rpcUrl: string;
  /** The token API keys are bought with, on this chain (docs/payments.md); undefined: no payments. */
  payments: StablecoinChain | undefined;
  /** Stops the engine (waiting for a pass in flight), then the embedded chain if any. */
  close(): Promise<void>;
}

/** Why anchoring cannot start. */
export class AnchoringConfigError extends DomainError {
  override readonly code = 'anchoring_unavailable';
  override readonly kind = 'invalid_input';
  constructor(message: string) {
    super(message);
    this.name = 'AnchoringConfigError';
  }
}

/** The embedded account's key, made on first use (0600 in a 0700 folder). */
function embeddedKey(folder: string): `0x${string}` {
  const file = path.join(folder, ANCHOR_KEY_FILE);
  if (!fs.existsSync(file)) {
    try {
      fs.writeFileSync(file, `${generatePrivateKey()}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return readAnchorKeyFile(file);
}

// The child is signalled only while it is still the process the watchdog was started for: its
// pid, and on Linux its start time (/proc/PID/stat, field 22), so a pid the system has given to
// another process since is never signalled.
const WATCHDOG = `
const fs = require('fs');
const parent = Number(process.argv[1]);
const child = Number(process.argv[2]);
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (error) { return error.code === 'EPERM'; } };
const startOf = (pid) => { try { const stat = fs.readFileSync('/proc/' + pid + '/stat', 'utf8'); return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]; } catch { return undefined; } };
const born = startOf(child);
const same = () => alive(child) && (born === undefined || startOf(child) === born);
const signal = (name) => { if (same()) { try { process.kill(child, name); } catch {} } };
const timer = setInterval(() => {
  if (!same()) process.exit(0);
  if (process.ppid !== parent) {
    clearInterval(timer);
    signal('SIGTERM');
    setTimeout(() => { signal('SIGKILL'); process.exit(0); }, 5000).unref();
  }
}, 500);
`;

/**
 * Starts a watchdog that stops `child` (SIGTERM, so anvil writes its state; SIGKILL after 5 s)
 * once this process is gone, whatever way it died.
 *
 * @returns the watchdog process (kill it when `child` is stopped normally)
 */
export function startWatchdog(child: ChildProcess): ChildProcess | undefined {
  if (child.pid === undefined || process.platform === 'win32') return undefined;
  const watchdog = spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), String(child.pid)], {
    stdio: 'ignore',
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  return watchdog;
}

/**
 * Starts anchoring over the service store.
 *
 * @param dataDirectory - The data folder (embedded chain state and key live in its anchor/).
 * @param store - The service store (batches and hashes; the anchoring lease).
 * @param config - See {@link AnchoringConfig}.
 * @returns the running engine and how to stop it
 * @throws AnchoringConfigError for a bad network name, interval or confirmations; ChainError
 *   for an unusable key file or RPC URL; AnvilError when the embedded chain cannot start
 */
export async function startAnchoring(
  dataDirectory: string,
  store: ServiceStore,
  config: AnchoringConfig,
): Promise<Anchoring> {
  const intervalSeconds = config.intervalSeconds ?? 60;
  if (!Number.isFinite(intervalSeconds) || intervalSeconds < 0.01 || intervalSeconds > 86_400)
    throw new AnchoringConfigError('The anchor interval must be from 0.01 to 86400 seconds.');
  const confirmations = config.confirmations ?? 1;
  if (!Number.isSafeInteger(confirmations) || confirmations < 1 || confirmations > 1000)
    throw new AnchoringConfigError('confirmations must be a whole number from 1 to 1000.');
  let anvil: AnvilProcess | undefined;
  let watchdog: ChildProcess | undefined;
  let chain: ChainClient;
  let network: string;
  let privateKey: `0x${string}`;
  if (config.chain.kind === 'rpc') {
    if (!isAnchorNetwork(config.chain.network))
      throw new AnchoringConfigError(
        `The chain name ${JSON.stringify(config.chain.network)} must be lowercase letters, digits and inner hyphens, start with a letter, be at most 64 characters, and not be "pending".`,
      );
    network = config.chain.network;
    chain = new ChainClient(config.chain.rpcUrl);
    privateKey = readAnchorKeyFile(config.chain.keyFile);
  } else {
    const folder = path.join(dataDirectory, ANCHOR_FOLDER);
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    privateKey = embeddedKey(folder);
    anvil = await startAnvil({ stateFile: path.join(folder, ANVIL_STATE_FILE) });
    watchdog = startWatchdog(anvil.child);
    network = EMBEDDED_NETWORK;
    chain = new ChainClient(anvil.rpcUrl);
  }
  const account = anchorAccount(privateKey);
  const stopChain = async (): Promise<void> => {
    await anvil?.stop();
    if (watchdog !== undefined && watchdog.exitCode === null) watchdog.kill('SIGKILL');
  };
  if (anvil !== undefined) {
    try {
      await chain.fundOnDevelopmentChain(account.address);
    } catch (error) {
      await stopChain();
      throw error instanceof ChainError
        ? new AnchoringConfigError(`The embedded chain did not take the anchor account's funds: ${error.message}`)
        : error;
    }
  }
  let payments: StablecoinChain | undefined;
  try {
    if (anvil !== undefined)
      payments = new StablecoinChain(
        chain,
        await embeddedStablecoin(chain, path.join(dataDirectory, ANCHOR_FOLDER), network),
      );
    else if (config.chain.kind === 'rpc' && config.chain.stablecoin !== undefined)
      payments = new StablecoinChain(
        chain,
        await namedStablecoin(chain, network, config.chain.stablecoin.token, config.chain.stablecoin.treasury),
      );
  } catch (error) {
    await stopChain();
    throw error instanceof ChainError
      ? new AnchoringConfigError(`The payment token could not be set up: ${error.message}`)
      : error;
  }
  const engine = new AnchorEngine({
    store,
    ...(config.node === undefined ? {} : { node: config.node }),
    chain,
    account,
    network,
    intervalMs: intervalSeconds * 1000,
    confirmations,
    ...(config.log === undefined ? {} : { log: config.log }),
  });
  engine.start();
  return {
    engine,
    network,
    rpcUrl: chain.rpcUrl,
    payments,
    close: async () => {
      await engine.stop();
      await stopChain();
    },
  };
}
