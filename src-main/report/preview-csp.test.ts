import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, REPORT_STYLE_SOURCE } from '../app/window-options';

// The Reports view previews a report page in a sandboxed srcdoc iframe, which inherits the
// app's policy: the policy must allow the page's stylesheet by its hash, and only that.
describe('the app policy and the report page stylesheet', () => {
  it('allows exactly the report stylesheet, in the served policy and in index.html', () => {
    const html = fs.readFileSync(new URL('../../src-renderer/index.html', import.meta.url), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1] ?? '';
    for (const policy of [CONTENT_SECURITY_POLICY, meta]) {
      const styles = policy
        .split(';')
        .map((part) => part.trim())
        .find((part) => part.startsWith('style-src'));
      expect(styles).toBe(`style-src 'self' ${REPORT_STYLE_SOURCE}`);
    }
  });
});
