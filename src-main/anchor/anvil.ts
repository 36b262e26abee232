/**
 * The embedded local chain: anvil from npm (`@foundry-rs/anvil-<os>-<arch>`), on 127.0.0.1.
 *
 * `startAnvil` starts it on a free port with its state in a file (so anchors survive a restart:
 * anvil loads the file at start and writes it every `stateIntervalSeconds` and on a clean exit)
 * and resolves once anvil prints the address it listens on. The binary is found, in order, at
 * `EVROOM_ANVIL_BIN`, in the npm package of this platform, or as `anvil` on the PATH.
 *
 * Only src-main/anchor talks to a chain (ARCHITECTURE); this module only runs the process.
 */
import { DomainError } from '../../src-shared/api/domain-error';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The network name of the embedded chain in resolved URNs. */
export const EMBEDDED_NETWORK = 'anvil-local';
/** anvil's default chain id. */
export const EMBEDDED_CHAIN_ID = 31337;

const PACKAGE_PLATFORMS: Record<string, string> = {
  'linux-x64': 'linux-amd64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'darwin-amd64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-amd64',
};

/** Why the embedded chain could not start. */
export class AnvilError extends DomainError {
  override readonly code = 'anchoring_unavailable';
  constructor(message: string) {
    super(message);
    this.name = 'AnvilError';
  }
}

/**
 * Where the anvil binary is.
 *
 * @param env - The environment (for `EVROOM_ANVIL_BIN`).
 * @returns The path or command name.
 * @throws AnvilError when no binary is found.
 */
export function anvilBinary(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.EVROOM_ANVIL_BIN;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!existsSync(fromEnv)) throw new AnvilError(`EVROOM_ANVIL_BIN names ${fromEnv}, which does not exist.`);
    return fromEnv;
  }
  const platform = PACKAGE_PLATFORMS[`${process.platform}-${process.arch}`];
  if (platform !== undefined) {
    const require = createRequire(import.meta.url);
    try {
      const manifest = require.resolve(`@foundry-rs/anvil-${platform}/package.json`);
      const binary = path.join(path.dirname(manifest), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
      if (existsSync(binary)) return binary;
    } catch {
      // Not installed for this platform: try the PATH.
    }
  }
  const onPath = (env.PATH ?? '')
    .split(path.delimiter)
    .map((folder) => path.join(folder, 'anvil'))
    .find((candidate) => existsSync(candidate));
  if (onPath !== undefined) return onPath;
  throw new AnvilError(
    `No anvil binary for ${process.platform}-${process.arch}: install @foundry-rs/anvil-${platform ?? '<platform>'} (npm), put anvil on the PATH, set EVROOM_ANVIL_BIN, or point at another chain with --chain-rpc.`,
  );
}

/** A running anvil. */
export interface AnvilProcess {
  /** `http://127.0.0.1:<port>` */
  rpcUrl: string;
  port: number;
  child: ChildProcess;
  /** Stops it cleanly (SIGTERM: anvil writes its state), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** How to start anvil. */
export interface AnvilOptions {
  /** The state file (loaded if it exists, written on exit and every interval). */
  stateFile?: string;
  /** Seconds between state writes; default 1. */
  stateIntervalSeconds?: number;
  /** Port; default 0 (a free one). */
  port?: number;
  /** Seconds between blocks; default none (a block per transaction). */
  blockTimeSeconds?: number;
  /** How long to wait for it to listen; default 20 s. */
  startTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * Starts anvil on 127.0.0.1.
 *
 * @param options - See {@link AnvilOptions}.
 * @returns The running process and its RPC URL.
 * @throws AnvilError when the binary is missing, exits, or does not listen in time.
 */
export async function startAnvil(options: AnvilOptions = {}): Promise<AnvilProcess> {
  const binary = anvilBinary(options.env);
  const args = ['--host', '127.0.0.1', '--port', String(options.port ?? 0), '--chain-id', String(EMBEDDED_CHAIN_ID)];
  if (options.stateFile !== undefined) {
    args.push('--state', options.stateFile, '--state-interval', String(options.stateIntervalSeconds ?? 1));
  }
  if (options.blockTimeSeconds !== undefined) args.push('--block-time', String(options.blockTimeSeconds));
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new AnvilError(`anvil did not start within ${options.startTimeoutMs ?? 20_000} ms.`));
    }, options.startTimeoutMs ?? 20_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.length > 65_536) output = output.slice(-8192);
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new AnvilError(`anvil could not start: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const last = output.trim().split('\n').slice(-3).join(' ').slice(0, 500);
      reject(
        new AnvilError(`anvil exited (${signal ?? `code ${code}`}) before listening${last === '' ? '' : `: ${last}`}`),
      );
    });
  });
  // Keep draining its output so a full pipe never blocks it.
  child.stdout?.on('data', () => undefined);
  child.stderr?.on('data', () => undefined);
  let stopped: Promise<void> | undefined;
  return {
    rpcUrl: `http://127.0.0.1:${port}`,
    port,
    child,
    stop(graceMs = 5000) {
      stopped ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      });
      return stopped;
    },
  };
}
