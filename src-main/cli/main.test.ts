import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatHelp } from './arguments';
import { COMMANDS, runCli } from './main';
import type { Terminal } from './terminal';

/** A terminal whose output is kept as text. */
function captureTerminal(): { terminal: Terminal; out: () => string; err: () => string } {
  const out = new PassThrough();
  const err = new PassThrough();
  const outChunks: Buffer[] = [];
  const errChunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => outChunks.push(chunk));
  err.on('data', (chunk: Buffer) => errChunks.push(chunk));
  return {
    terminal: { out, err, color: false, interactive: false },
    out: () => Buffer.concat(outChunks).toString('utf8'),
    err: () => Buffer.concat(errChunks).toString('utf8'),
  };
}

describe('the command table', () => {
  // `evroom --help` lists the table's names and summaries without loading a command; they must
  // be what each command's own spec says, or the overview and `evroom COMMAND --help` disagree.
  it('names and summarises each command as its loaded spec does', async () => {
    expect(new Set(COMMANDS.map((entry) => entry.name)).size).toBe(COMMANDS.length);
    for (const entry of COMMANDS) {
      const command = await entry.load();
      expect({ name: command.spec.name, summary: command.spec.summary }).toEqual({
        name: entry.name,
        summary: entry.summary,
      });
      expect(typeof command.run).toBe('function');
    }
  });

  it('--help lists every command with its summary; help COMMAND prints that command’s options', async () => {
    const overview = captureTerminal();
    expect(await runCli(['--help'], overview.terminal)).toBe(0);
    for (const entry of COMMANDS)
      expect(overview.out()).toMatch(
        new RegExp(`^  ${entry.name} +${entry.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'),
      );

    const topic = captureTerminal();
    expect(await runCli(['help', 'verify'], topic.terminal)).toBe(0);
    const verify = await (COMMANDS.find((entry) => entry.name === 'verify')?.load() ??
      Promise.reject(new Error('no verify')));
    expect(topic.out()).toBe(`${formatHelp(verify.spec)}\n`);
    expect(topic.out()).toContain('--require-trusted');
  });

  it('refuses an unknown command with the list of commands (exit 2)', async () => {
    const run = captureTerminal();
    expect(await runCli(['verfy'], run.terminal)).toBe(2);
    expect(run.err()).toBe(
      `evroom: unknown command 'verfy'. Commands: ${COMMANDS.map((entry) => entry.name).join(', ')}. See: evroom --help\n`,
    );
    expect(run.out()).toBe('');
  });
});
