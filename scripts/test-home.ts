/**
 * Vitest global setup: every test process gets a data folder of its own in the temporary
 * folder (EVROOM_HOME), so a test that does not set one never reads or writes the user's real
 * data folder (~/.config/evidence-room and its ledger). Tests that need a particular folder set
 * EVROOM_HOME themselves, as before. The folder is removed when the run ends.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function setup(): () => void {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-test-home-'));
  process.env['EVROOM_HOME'] = home;
  return () => fs.rmSync(home, { recursive: true, force: true });
}
