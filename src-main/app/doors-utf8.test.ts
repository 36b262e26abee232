import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppApiAnswer } from '../../src-shared/api/contract';
import { createPortableProvider } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import type { Report } from '../../src-shared/verify/report';
import { createAppApi } from '../appapi/app-api';
import { buildService, type Service } from '../http/service';
import { loadServiceKeys } from '../operations/service-keys';
import { openWorkspace, type Workspace } from '../operations/workspace';

// Invalid UTF-8 inside a JSON document is a MALFORMED report (PROTOCOL section 1) at every door:
// the CLI (not "binary file", exit 1), the app API's verify (text with a lone surrogate, which is
// what a lenient reader makes of broken bytes) and the HTTP service's verify route (raw bytes).

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const crypto = createPortableProvider();
const valid = signClassical('{"sequence":1,"memo":"caf\u00e9"}', new Uint8Array(32).fill(9), crypto);
/** The valid receipt with the first byte of "é" (0xc3) replaced by 0xff: invalid UTF-8. */
const broken = (() => {
  const bytes = Buffer.from(valid, 'utf8');
  const at = bytes.indexOf(0xc3);
  expect(at).toBeGreaterThan(0);
  bytes[at] = 0xff;
  return { bytes, at };
})();

let home: string;

beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-utf8-'));
});

afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

function expectInvalidUtf8(report: Report): void {
  expect(report.status).toBe('MALFORMED');
  expect(report.errors[0]?.code).toBe('invalid_utf8');
}

describe('invalid UTF-8 inside a JSON document', () => {
  it('is a MALFORMED report from evroom verify (exit 1), while a zip is still a binary file (exit 2)', () => {
    const file = path.join(home, 'broken.json');
    fs.writeFileSync(file, broken.bytes);
    const result = spawnSync(process.execPath, [BIN, 'verify', '--json', '--no-trust-store', file], {
      encoding: 'utf8',
      env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout) as Report;
    expectInvalidUtf8(report);
    expect(report.errors[0]?.message).toContain(`offset ${broken.at}`);
    const zip = path.join(home, 'not-json.zip');
    fs.writeFileSync(zip, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff]));
    const binary = spawnSync(process.execPath, [BIN, 'verify', '--no-trust-store', zip], {
      encoding: 'utf8',
      env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
    });
    expect(binary.status).toBe(2);
    expect(binary.stderr).toContain('is a binary file');
  });

  it('is a MALFORMED report from the app API verify, and the text is not quietly repaired', async () => {
    const api = createAppApi({ mode: 'electron', dataDirectory: path.join(home, 'app') });
    try {
      // What a lenient decoder cannot express, a lone surrogate stands for: never valid Unicode.
      const text = valid.replace('\u00e9', '\ud800');
      const answer = (await api.answer('verify', { text })) as AppApiAnswer<'verify'>;
      expect(answer.ok).toBe(true);
      if (!answer.ok) return;
      expectInvalidUtf8(answer.result.report);
      // The same text with the character intact still verifies: the door changed nothing else.
      const good = (await api.answer('verify', { text: valid })) as AppApiAnswer<'verify'>;
      expect(good.ok && good.result.report.status).toBe('PASS');
    } finally {
      await api.close();
    }
  });

  it('is a MALFORMED report (200) from POST /v1/receipt/verify', async () => {
    const workspace: Workspace = openWorkspace(path.join(home, 'service'));
    let service: Service | undefined;
    try {
      const keys = loadServiceKeys(workspace);
      service = await buildService({
        workspace,
        signer: {
          key_id: keys.active.key_id,
          seed: keys.active.seed,
          public_key: keys.active.public_key,
          listed: keys.listed,
        },
      });
      const base = await service.app.listen({ host: '127.0.0.1', port: 0 });
      const response = await fetch(`${base}/v1/receipt/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: broken.bytes,
      });
      expect(response.status).toBe(200);
      expectInvalidUtf8((await response.json()) as Report);
    } finally {
      await service?.close();
      workspace.close();
    }
  });
});
