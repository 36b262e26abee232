import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveDataDirectory } from '../src-main/ledger/data-directory';

describe('the test run’s data folder', () => {
  it('is a temporary folder, never the user’s own', () => {
    const home = process.env['EVROOM_HOME'];
    expect(home).toBeDefined();
    expect(path.dirname(home!)).toBe(os.tmpdir());
    expect(path.basename(home!)).toMatch(/^evroom-test-home-/);
    expect(resolveDataDirectory()).toBe(home);
  });
});
