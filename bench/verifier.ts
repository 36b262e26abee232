/**
 * Benchmark of the browser reference verifier: a 10,000-receipt evidence bundle verified in the
 * page, opened from file:// in Debian's Chromium, beside the portable provider's raw Ed25519
 * verification rate in a worker of the same browser.
 *
 *   npx tsx bench/verifier.ts                    # 10,000 receipts
 *   npx tsx bench/verifier.ts --receipts 2000
 *   npx tsx bench/verifier.ts --write-baseline   # record bench/baselines/verifier.json
 *   npx tsx bench/verifier.ts --quick            # 200 receipts: a check that it runs
 *
 * Measured: receipts per second from choosing the file to the result shown (reading the zip with
 * jszip, hashing every file, the manifest signature, every receipt's strict parse, schema, JCS
 * and Ed25519 verification, in the page's one worker); the raw rate (one signature verified over
 * and over in one worker); their ratio; and the page's longest main-thread task meanwhile (the
 * Long Tasks API), which shows whether the page froze.
 */
// bench-quick: needs-build
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildSignedBundle } from '../e2e/fixtures';
import { launchBrowser } from '../e2e/harness';
import { verifierPage } from '../src-main/operations/verifier-page';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BASELINE = fileURLToPath(new URL('./baselines/verifier.json', import.meta.url));

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

/** The raw measurement, as a classic worker script: noble's Ed25519 through our portable provider. */
async function rawWorkerScript(): Promise<string> {
  const result = await build({
    stdin: {
      contents: `
        import { createPortableProvider } from './src-shared/crypto/portable-provider';
        const crypto = createPortableProvider();
        self.onmessage = (event) => {
          const seed = new Uint8Array(32).fill(7);
          const message = new Uint8Array(64).fill(1);
          const signature = crypto.ed25519Sign(message, seed);
          const publicKey = crypto.ed25519PublicKey(seed);
          for (let index = 0; index < 50; index += 1) crypto.ed25519Verify(signature, message, publicKey);
          const started = performance.now();
          let valid = 0;
          for (let index = 0; index < event.data; index += 1) if (crypto.ed25519Verify(signature, message, publicKey)) valid += 1;
          self.postMessage({ perSecond: (valid * 1000) / (performance.now() - started) });
        };`,
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    write: false,
    platform: 'browser',
  });
  return result.outputFiles[0]!.text;
}

async function main(): Promise<void> {
  // --quick: a check that the bench works (seconds, small data), not a measurement.
  const receipts = Number(option('receipts') ?? (process.argv.includes('--quick') ? 200 : 10_000));
  if (!Number.isSafeInteger(receipts) || receipts < 1) throw new RangeError('--receipts needs a positive integer');
  const folder = mkdtempSync(join(tmpdir(), 'bench-verifier-'));
  const browser = await launchBrowser();
  try {
    const pageFile = join(folder, 'verifier.html');
    writeFileSync(pageFile, await verifierPage());
    console.log(`building a ${receipts.toLocaleString('en-US')}-receipt bundle…`);
    const bundle = await buildSignedBundle({ out: join(folder, 'bundle.zip'), receipts });
    const page = await browser.newPage();
    // Injected by the browser's debugging protocol, so the page's policy does not apply to it.
    await page.addInitScript(`
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
      }).observe({ type: 'longtask', buffered: true });
    `);
    await page.goto(pathToFileURL(pageFile).toString());
    await page.getByTestId('documents').waitFor();

    const script = await rawWorkerScript();
    const raw = (await page.evaluate(
      `new Promise((resolve) => {
        const worker = new Worker(URL.createObjectURL(new Blob([${JSON.stringify(script)}], { type: 'text/javascript' })));
        worker.onmessage = (event) => { worker.terminate(); resolve(event.data.perSecond); };
        worker.postMessage(2000);
      })`,
    )) as number;

    await page.evaluate('window.__longTasks.length = 0');
    const started = Date.now();
    await page.getByTestId('documents').setInputFiles(bundle.file);
    // Polled through the debugging protocol: the page's policy forbids the eval a string
    // predicate of waitForFunction would need.
    // Each poll also reads the progress bar, to show it moves while the worker verifies.
    const progressSeen = new Set<string>();
    for (;;) {
      const state = (await page.evaluate(`(() => {
        const progress = document.querySelector('[data-testid="progress"]');
        return { kind: document.querySelector('[data-testid="result"]')?.getAttribute('data-kind'), progress: progress ? progress.value + '/' + progress.max : null };
      })()`)) as { kind: string | null; progress: string | null };
      if (state.progress !== null) progressSeen.add(state.progress);
      if (state.kind === 'bundle') break;
      if (Date.now() - started > 30 * 60_000) throw new Error('the bundle was not verified within 30 minutes');
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
    const seconds = (Date.now() - started) / 1000;
    const status = await page.getByTestId('result').getAttribute('data-status');
    if (status !== 'clean') throw new Error(`the bundle was not clean in the page: ${status}`);
    const longTasks = (await page.evaluate('[...window.__longTasks]')) as number[];
    const perSecond = receipts / seconds;
    const result = {
      date: new Date().toISOString().slice(0, 10),
      receipts,
      seconds: Number(seconds.toFixed(2)),
      receiptsPerSecond: Math.round(perSecond),
      rawEd25519PerSecond: Math.round(raw),
      ratio: Number((perSecond / raw).toFixed(2)),
      longestMainThreadTaskMs: Math.round(Math.max(0, ...longTasks)),
      longTasks: longTasks.length,
      /** Distinct progress bar values seen while polling every 100 ms. */
      progressValuesSeen: progressSeen.size,
      browser: browser.version(),
    };
    let baseline: typeof result | undefined;
    try {
      baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as typeof result;
    } catch {
      baseline = undefined;
    }
    console.log(
      `bundle of ${receipts} receipts verified in the page: ${seconds.toFixed(1)} s, ${result.receiptsPerSecond} receipts/s`,
    );
    console.log(
      `raw portable Ed25519 in one worker: ${result.rawEd25519PerSecond}/s; ratio ${result.ratio}${baseline ? ` (baseline ${baseline.ratio})` : ''}`,
    );
    console.log(
      `main thread meanwhile: ${result.longTasks} tasks over 50 ms, the longest ${result.longestMainThreadTaskMs} ms; the progress bar showed ${result.progressValuesSeen} values`,
    );
    console.log(
      `target: no main-thread task over 100 ms: ${result.longestMainThreadTaskMs <= 100 ? 'ok' : 'FROZE'}; the ratio recorded`,
    );
    if (process.argv.includes('--write-baseline')) {
      writeFileSync(BASELINE, `${JSON.stringify(result, null, 2)}\n`);
      console.log(`wrote ${BASELINE}`);
    }
  } finally {
    await browser.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

await main();
