/**
 * Reading what `strace -f -e trace=socket,connect,bind` saw a process tree do with sockets, to
 * prove a command works offline (issue "Hardening", the offline proof).
 *
 * The rule: no connect() to an inet (IPv4 or IPv6) address at all, and an inet socket only when
 * it is bound to 127.0.0.1 (local web mode's own listener, `allowedListeners` of them). Unix
 * sockets (tsx's compile cache, worker plumbing) are not network. A UDP socket that sends
 * without connect() still counts: it is an inet socket never bound to 127.0.0.1.
 */
import { spawn, spawnSync } from 'node:child_process';

/** What a trace shows. */
export interface NetworkUse {
  /** inet or inet6 sockets created. */
  inetSockets: number;
  /** Binds to 127.0.0.1. */
  loopbackBinds: number;
  /** The trace lines that break the rule, as strace printed them. */
  violations: string[];
}

/**
 * Reads a trace.
 *
 * @param trace - strace's output (`-f`, lines may carry a pid first).
 * @param allowedListeners - How many 127.0.0.1 listeners the process may open (0 for the CLI).
 * @returns The counts and the offending lines.
 */
export function readNetworkTrace(trace: string, allowedListeners: number): NetworkUse {
  let inetSockets = 0;
  let loopbackBinds = 0;
  const violations: string[] = [];
  for (const line of trace.split('\n')) {
    if (/\bsocket\(AF_INET6?,/.test(line)) inetSockets += 1;
    else if (/\bconnect\(\d+, \{sa_family=AF_INET6?,/.test(line)) violations.push(line);
    else if (/\bbind\(\d+, \{sa_family=AF_INET,[^}]*inet_addr\("127\.0\.0\.1"\)/.test(line)) loopbackBinds += 1;
    else if (/\bbind\(\d+, \{sa_family=AF_INET6?,/.test(line)) violations.push(line);
  }
  if (loopbackBinds > allowedListeners)
    violations.push(`${loopbackBinds} sockets bound to 127.0.0.1, ${allowedListeners} allowed`);
  if (inetSockets > loopbackBinds)
    violations.push(
      `${inetSockets} inet sockets created, only ${loopbackBinds} of them bound to 127.0.0.1 as a listener`,
    );
  return { inetSockets, loopbackBinds, violations };
}

/** Whether strace can run here. */
export function straceAvailable(): boolean {
  return spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;
}

/** The strace arguments that put a command under watch, writing the trace to `output`. */
export function straceArguments(output: string, command: string, args: readonly string[]): string[] {
  return ['-f', '-qq', '-e', 'trace=socket,connect,bind', '-e', 'signal=none', '-o', output, command, ...args];
}

/**
 * Runs a command to its end under strace.
 *
 * @returns Its exit code and output (the trace is in `output`).
 */
export function runTraced(
  output: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('strace', straceArguments(output, command, args), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
