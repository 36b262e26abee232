import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { ARTIFACT, compileStablecoin } from './build-stablecoin.mjs';

describe('the stablecoin contract is reproducible', () => {
  it('compiles, from the committed source and the locked OpenZeppelin, to the committed artifact byte for byte', () => {
    const committed = readFileSync(path.join(import.meta.dirname, '..', ARTIFACT as string), 'utf8');
    const fresh = (compileStablecoin as () => string)();
    expect(fresh).toBe(committed);
    const artifact = JSON.parse(fresh) as { compiler: string; openzeppelin: string; bytecode: string };
    expect(artifact.compiler).toMatch(/^solc 0\.8\.37\+/);
    expect(artifact.openzeppelin).toBe('5.7.0');
    expect(artifact.bytecode).toMatch(/^0x[0-9a-f]{2000,}$/);
  }, 60_000);
});
