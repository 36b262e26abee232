import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The user guide shows the screenshots the e2e suite takes: every picture it names exists, and
// every picture the suite takes is shown.
const guide = readFileSync(new URL('../docs/user-guide.md', import.meta.url), 'utf8');
const folder = new URL('../docs/screenshots/', import.meta.url);

describe('docs/user-guide.md', () => {
  const referenced = [...guide.matchAll(/!\[[^\]]+\]\(screenshots\/([^)]+)\)/g)].map((match) => match[1]!);

  it('names only screenshots that exist', () => {
    expect(referenced.length).toBeGreaterThan(5);
    for (const name of referenced) expect(existsSync(new URL(name, folder)), name).toBe(true);
  });

  it('shows every screenshot the e2e suite takes', () => {
    const taken = readdirSync(folder).filter((name) => name.endsWith('.png'));
    for (const name of taken) expect(referenced, name).toContain(name);
  });
});
