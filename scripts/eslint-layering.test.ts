import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layering rules of docs/architecture.md are only worth something if lint really fails
// on a crossing; this lints snippets as if they lived in each layer.
const eslint = new ESLint({ cwd: process.cwd() });

async function ruleIds(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

describe('layering lint rules', () => {
  it('refuses Node modules in src-shared', async () => {
    const ids = await ruleIds(
      "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
      'src-shared/json/probe.ts',
    );
    expect(ids).toContain('no-restricted-imports');
  });

  it('refuses electron and bare Node builtins in src-shared', async () => {
    expect(await ruleIds("import { app } from 'electron';\nexport const x = app;\n", 'src-shared/probe.ts')).toContain(
      'no-restricted-imports',
    );
    expect(await ruleIds("import * as path from 'path';\nexport const x = path;\n", 'src-shared/probe.ts')).toContain(
      'no-restricted-imports',
    );
  });

  it('refuses src-main from src-shared and from the renderer', async () => {
    const code =
      "import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';\nexport const x = createNodeCryptoProvider;\n";
    expect(await ruleIds(code, 'src-shared/probe.ts')).toContain('import/no-restricted-paths');
    expect(await ruleIds(code, 'src-renderer/probe.ts')).toContain('import/no-restricted-paths');
  });

  it('refuses Node modules in the renderer', async () => {
    expect(
      await ruleIds("import { join } from 'node:path';\nexport const x = join;\n", 'src-renderer/probe.ts'),
    ).toContain('no-restricted-imports');
  });

  it('keeps SQLite in src-main/ledger and zips in src-main/evidence', async () => {
    const sqlite = "import Database from 'better-sqlite3';\nexport const x = Database;\n";
    const zip = "import yauzl from 'yauzl';\nexport const x = yauzl;\n";
    expect(await ruleIds(sqlite, 'src-main/core/probe.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(sqlite, 'src-main/evidence/probe.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(sqlite, 'src-main/ledger/probe.ts')).toEqual([]);
    expect(await ruleIds(zip, 'src-main/appapi/probe.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(zip, 'src-main/ledger/probe.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(zip, 'src-main/evidence/probe.ts')).toEqual([]);
  });

  it('keeps PostgreSQL in src-main/ledger: the service reaches it through the store', async () => {
    const postgres = "import pg from 'pg';\nexport const x = pg;\n";
    expect(await ruleIds(postgres, 'src-main/http/probe.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(postgres, 'src-main/operations/probe.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(postgres, 'src-main/anchor/probe.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(postgres, 'src-main/evidence/probe.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(postgres, 'src-main/ledger/store/probe.ts')).toEqual([]);
  });

  it('keeps src-main/core beneath the zip library, and the zip library beneath the operations', async () => {
    const evidence = "import { openZipArchive } from '../evidence/zip-reader';\nexport const x = openZipArchive;\n";
    const operations = "import { importBundle } from '../operations/import';\nexport const x = importBundle;\n";
    expect(await ruleIds(evidence, 'src-main/core/probe.ts')).toContain('import/no-restricted-paths');
    expect(await ruleIds(operations, 'src-main/evidence/probe.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(evidence, 'src-main/operations/probe.ts')).toEqual([]);
  });

  it('keeps chain clients in src-main/anchor', async () => {
    const viem = "import { createPublicClient } from 'viem';\nexport const x = createPublicClient;\n";
    const viemAccounts =
      "import { privateKeyToAccount } from 'viem/accounts';\nexport const x = privateKeyToAccount;\n";
    for (const where of [
      'src-main/http/probe.ts',
      'src-main/operations/probe.ts',
      'src-main/ledger/probe.ts',
      'src-main/evidence/probe.ts',
      'src-shared/probe.ts',
      'src-renderer/probe.ts',
    ]) {
      expect(await ruleIds(viem, where)).toContain('no-restricted-imports');
    }
    expect(await ruleIds(viemAccounts, 'src-main/cli/probe.ts')).toContain('no-restricted-imports');
    expect(await ruleIds(viem, 'src-main/anchor/probe.ts')).toEqual([]);
    expect(
      await ruleIds("import Database from 'better-sqlite3';\nexport const x = Database;\n", 'src-main/anchor/probe.ts'),
    ).toContain('no-restricted-imports');
  });

  it('lets src-main use Node and src-shared, and tests in src-shared read files', async () => {
    expect(
      await ruleIds(
        "import { readFileSync } from 'node:fs';\nimport type { Report } from '../../src-shared/verify/report';\nexport const x: [typeof readFileSync, Report | null] = [readFileSync, null];\n",
        'src-main/core/probe.ts',
      ),
    ).toEqual([]);
    expect(
      await ruleIds(
        "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
        'src-shared/json/probe.test.ts',
      ),
    ).toEqual([]);
  });

  it('keeps doors apart and the operations layer below them', async () => {
    const appapiFromCli = "import { createAppApi } from '../appapi/app-api';\nexport const x = createAppApi;\n";
    const cliFromAppapi = "import { runCli } from '../cli/main';\nexport const x = runCli;\n";
    const cliFromOperations = "import { runCli } from '../cli/main';\nexport const x = runCli;\n";
    const operationsFromCli = "import { pinKey } from '../operations/trust';\nexport const x = pinKey;\n";
    expect(await ruleIds(appapiFromCli, 'src-main/cli/probe.ts')).toContain('import/no-restricted-paths');
    expect(await ruleIds(cliFromAppapi, 'src-main/appapi/probe.ts')).toContain('import/no-restricted-paths');
    expect(await ruleIds(cliFromOperations, 'src-main/operations/probe.ts')).toContain('import/no-restricted-paths');
    expect(await ruleIds(operationsFromCli, 'src-main/cli/probe.ts')).toEqual([]);
    expect(await ruleIds(operationsFromCli, 'src-main/appapi/probe.ts')).toEqual([]);
  });
  it('keeps the service routes beneath service.ts and apart from each other', async () => {
    const fromService = "import { buildService } from '../service';\nexport const x = buildService;\n";
    const fromSibling = "import { receiptRoutes } from './receipts';\nexport const x = receiptRoutes;\n";
    const fromContext = "import { serviceContext } from '../context';\nexport const x = serviceContext;\n";
    expect(await ruleIds(fromService, 'src-main/http/routes/probe.ts')).toContain('import/no-restricted-paths');
    expect(await ruleIds(fromSibling, 'src-main/http/routes/probe.ts')).toContain('import/no-restricted-paths');
    expect(await ruleIds(fromContext, 'src-main/http/routes/probe.ts')).toEqual([]);
    // The modules beneath the routes import neither service.ts nor a route.
    const contextFromService = "import { buildService } from './service';\nexport const x = buildService;\n";
    const contextFromRoute = "import { receiptRoutes } from './routes/receipts';\nexport const x = receiptRoutes;\n";
    expect(await ruleIds(contextFromService, 'src-main/http/context.ts')).toContain('import/no-restricted-paths');
    expect(await ruleIds(contextFromRoute, 'src-main/http/emit-request.ts')).toContain('import/no-restricted-paths');
    // Tests start the whole service.
    expect(await ruleIds(fromService, 'src-main/http/routes/probe.test.ts')).toEqual([]);
  });

  it('refuses an import cycle in src-main, src-shared and the renderer, and lets type-only imports close one', async () => {
    // A cycle needs both modules on disk (the rule follows the imports of real files), so each
    // probe writes two into a folder of its own inside the layer and removes it afterwards.
    for (const layer of ['src-main/core', 'src-shared/json', 'src-renderer']) {
      const folder = mkdtempSync(join(layer, '.cycle-probe-'));
      try {
        writeFileSync(join(folder, 'a.ts'), "import { b } from './b';\nexport const a = (): number => b + 1;\n");
        writeFileSync(join(folder, 'b.ts'), "import { a } from './a';\nexport const b = 1;\nexport const c = a;\n");
        writeFileSync(join(folder, 'c.ts'), "import { d } from './d';\nexport const c = (): number => d;\n");
        writeFileSync(
          join(folder, 'd.ts'),
          "import type { c } from './c';\nexport const d = 1;\nexport type C = typeof c;\n",
        );
        const results = await eslint.lintFiles([join(folder, 'a.ts'), join(folder, 'c.ts')]);
        const rules = (file: string): string[] =>
          (results.find((result) => result.filePath.endsWith(file))?.messages ?? []).map(
            (message) => message.ruleId ?? message.message,
          );
        expect(rules('a.ts'), layer).toContain('import/no-cycle');
        expect(rules('c.ts'), layer).toEqual([]);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    }
  });
});
