import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signClassical } from '../../src-shared/formats/classical';
import { createVerifyContext } from '../../src-shared/verify/context';
import { POOL_MIN_INPUTS, verifyMany, type VerifyOutcome } from './verify-many';
import { nodeCrypto } from './workspace';

const seed = new Uint8Array(32).fill(81);

/** One line per outcome: what the door would render of it. */
function summary(outcome: VerifyOutcome): string {
  if ('error' in outcome) return `error ${outcome.error}`;
  return 'report' in outcome ? outcome.report.status : outcome.status;
}

describe('verifyMany', () => {
  let directory: string;
  let inputs: string[];

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-verify-many-'));
    inputs = [];
    for (let index = 0; index < POOL_MIN_INPUTS + 40; index += 1) {
      const file = path.join(directory, `r${index}.json`);
      const text = signClassical({ sequence: index }, seed, nodeCrypto());
      // Every seventh altered (MISMATCH), every eleventh missing (a read error).
      if (index % 11 === 5) {
        inputs.push(path.join(directory, `missing-${index}.json`));
        continue;
      }
      fs.writeFileSync(file, index % 7 === 3 ? text.replace(`"sequence":${index}`, '"sequence":-1') : text);
      inputs.push(file);
    }
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  async function run(jobs: number, stdin?: Uint8Array): Promise<{ lines: string[]; starts: number[] }> {
    const context = createVerifyContext(nodeCrypto(), { pinned: [], advertised: [], secrets: [] });
    const lines: string[] = [];
    const starts: number[] = [];
    const all = stdin === undefined ? inputs : ['-', ...inputs];
    await verifyMany(all, {
      context,
      jobs,
      ...(stdin === undefined ? {} : { stdin: { bytes: stdin } }),
      emit: (start, outcomes) => {
        starts.push(start);
        lines.push(...outcomes.map(summary));
      },
    });
    return { lines, starts };
  }

  it('hands every outcome on in input order, the same on one thread and beside workers', async () => {
    const alone = await run(1);
    const beside = await run(3);
    expect(alone.lines).toHaveLength(inputs.length);
    expect(beside.lines).toEqual(alone.lines);
    expect(alone.lines[3]).toBe('MISMATCH');
    expect(alone.lines[5]).toMatch(/^error .*no such file/);
    expect(alone.lines[0]).toBe('PASS');
    // Runs arrive in input order.
    expect(beside.starts[0]).toBe(0);
    expect(beside.starts).toEqual([...beside.starts].sort((x, y) => x - y));
  });

  it('verifies standard input on this thread, in its place', async () => {
    const text = new TextEncoder().encode(signClassical({ sequence: 'stdin' }, seed, nodeCrypto()));
    const { lines } = await run(2, text);
    expect(lines[0]).toBe('PASS');
    expect(lines).toHaveLength(inputs.length + 1);
  });

  it('refuses standard input named but not given, and jobs below 1', async () => {
    const context = createVerifyContext(nodeCrypto(), { pinned: [], advertised: [], secrets: [] });
    await expect(verifyMany(['-'], { context, jobs: 1, emit: () => undefined })).rejects.toThrow(TypeError);
    await expect(verifyMany([], { context, jobs: 0, emit: () => undefined })).rejects.toThrow(RangeError);
  });
});
