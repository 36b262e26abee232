import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkFailpoints,
  failpoint,
  FAILPOINT_ACTIONS,
  FAILPOINTS,
  FailpointConfigError,
  parseFailpoints,
} from './failpoints';

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const saved = process.env.EVROOM_FAILPOINTS;

afterEach(() => {
  if (saved === undefined) delete process.env.EVROOM_FAILPOINTS;
  else process.env.EVROOM_FAILPOINTS = saved;
});

describe('failpoints', () => {
  it('reads name=action pairs from the closed lists', () => {
    expect([...parseFailpoints('anchor.after-record=kill, operations.verify=throw-type-error')]).toEqual([
      ['anchor.after-record', 'kill'],
      ['operations.verify', 'throw-type-error'],
    ]);
    expect(parseFailpoints('').size).toBe(0);
    expect(Object.keys(FAILPOINTS)).toContain('anchor.after-broadcast');
    expect(Object.keys(FAILPOINT_ACTIONS)).toEqual(['kill', 'throw-type-error', 'exit-thread']);
  });

  it('refuses an unknown failpoint or action, naming the known ones', () => {
    expect(() => parseFailpoints('anchor.after-recrod=kill')).toThrow(FailpointConfigError);
    expect(() => parseFailpoints('anchor.after-recrod=kill')).toThrow(
      /unknown failpoint "anchor\.after-recrod".*anchor\.after-record/,
    );
    expect(() => parseFailpoints('operations.verify=explode')).toThrow(/kill, throw-type-error.*"explode"/);
    expect(() => parseFailpoints('operations.verify')).toThrow(FailpointConfigError);
    expect(() => parseFailpoints('constructor=kill')).toThrow(FailpointConfigError);
  });

  it('is inert unless switched on, and throws a recognisable TypeError when it is', () => {
    delete process.env.EVROOM_FAILPOINTS;
    expect(() => failpoint('operations.verify')).not.toThrow();
    process.env.EVROOM_FAILPOINTS = 'anchor.after-record=kill';
    // Another failpoint switched on: this one stays inert (and the process alive).
    expect(() => failpoint('operations.verify')).not.toThrow();
    process.env.EVROOM_FAILPOINTS = 'operations.verify=throw-type-error';
    expect(() => failpoint('operations.verify')).toThrow(TypeError);
    expect(() => failpoint('operations.verify')).toThrow(/^failpoint operations\.verify: /);
    process.env.EVROOM_FAILPOINTS = 'nonsense=kill';
    expect(() => checkFailpoints()).toThrow(FailpointConfigError);
    expect(() => failpoint('operations.verify')).toThrow(FailpointConfigError);
  });

  it('kills the process with SIGKILL', () => {
    const child = spawnSync(process.execPath, [BIN, 'verify', '-'], {
      input: '{}',
      encoding: 'utf8',
      env: { ...process.env, EVROOM_FAILPOINTS: 'operations.verify=kill' },
    });
    expect(child.signal).toBe('SIGKILL');
  });

  it('makes the CLI refuse a mistyped setting at start, before running anything', () => {
    const child = spawnSync(process.execPath, [BIN, 'verify', '-'], {
      input: '{}',
      encoding: 'utf8',
      env: { ...process.env, EVROOM_FAILPOINTS: 'operations.verfy=throw-type-error' },
    });
    expect(child.status).toBe(2);
    expect(child.stdout).toBe('');
    expect(child.stderr).toMatch(
      /^evroom: EVROOM_FAILPOINTS: unknown failpoint "operations\.verfy"; known: .*operations\.verify/,
    );
  });
});
