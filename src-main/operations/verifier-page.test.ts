import { describe, expect, it } from 'vitest';
import { servedVerifierPage, verifierPage, verifierPagePolicy } from './verifier-page';

describe('servedVerifierPage', () => {
  it('is the page’s UTF-8 and its policy, encoded once for every request', async () => {
    const page = await verifierPage();
    const served = await servedVerifierPage();
    expect(served.bytes.equals(Buffer.from(page, 'utf8'))).toBe(true);
    expect(served.policy).toBe(verifierPagePolicy(page));
    // The same bytes every time: a request never encodes the 1 MB page again (bench/soak.ts).
    const again = await servedVerifierPage();
    expect(again.bytes).toBe(served.bytes);
  }, 120_000);
});
