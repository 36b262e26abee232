import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_DECLARATION, generateSchemas, guardPatterns } from './build-schemas';

describe('generated schema validators', () => {
  const schemas = generateSchemas();

  it('every published schema compiles in strict mode to import-free code', () => {
    for (const schema of schemas) expect(schema.code).not.toMatch(/\brequire\(|\bimport\b/);
  });

  it('every generated module is up to date with its schema (run npm run schemas)', () => {
    for (const schema of schemas) {
      expect(existsSync(schema.moduleFile), schema.moduleFile).toBe(true);
      expect(readFileSync(schema.moduleFile, 'utf8'), schema.moduleFile).toBe(schema.code);
      expect(readFileSync(schema.declarationFile, 'utf8'), schema.declarationFile).toBe(GENERATED_DECLARATION);
    }
  });

  it('every pattern test runs only on a string within its maxLength (no regex stack overflow)', () => {
    for (const schema of schemas) {
      const tests = schema.code.match(/pattern\d+\.test\(/g) ?? [];
      const guarded = schema.code.match(/if\(!\(func\d+\(\w+\) > \d+\) && !pattern\d+\.test\(/g) ?? [];
      expect(guarded.length, schema.schemaFile).toBe(tests.length);
    }
    expect(() => guardPatterns('if(!pattern1.test(data0)){', 'x.schema.json')).toThrow(/needs a "maxLength"/);
  });
});
