// Renders resources/icon.svg to resources/icon.png (1024 × 1024), the picture electron-builder
// turns into every platform's icon (Linux PNGs, macOS ICNS, Windows ICO). Uses Debian's
// Chromium through playwright-core, as the e2e tests do; nothing is downloaded.
//
//   node scripts/make-icon.mjs        # after changing icon.svg; commit both files
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const SIZE = 1024;
const svgFile = fileURLToPath(new URL('../resources/icon.svg', import.meta.url));
const pngFile = fileURLToPath(new URL('../resources/icon.png', import.meta.url));

const svg = readFileSync(svgFile, 'utf8');
if (!svg.includes('<svg')) throw new Error(`${svgFile} is not an SVG file`);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE } });
  const source = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  await page.setContent(
    `<style>html,body{margin:0;background:transparent}img{display:block;width:${SIZE}px;height:${SIZE}px}</style><img src="${source}">`,
  );
  await page.locator('img').evaluate((image) => image.decode());
  await page.locator('img').screenshot({ path: pngFile, omitBackground: true });
  console.log(`wrote ${pngFile} (${SIZE} × ${SIZE})`);
} finally {
  await browser.close();
}
