import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

const root = resolve(import.meta.dirname, 'src-renderer/verifier');

/** The page's file name in out/verifier/ (src-main/operations/verifier-page.ts reads it by the same name). */
const VERIFIER_PAGE_NAME = 'verifier.html';

/**
 * Writes the page's Content-Security-Policy once everything is inlined: nothing from anywhere
 * (`default-src 'none'`), the one inlined script and style by their SHA-256, the verification
 * worker from a Blob URL. No 'unsafe-inline': an injected script would not run.
 */
function verifierPolicy(): Plugin {
  const hash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
  return {
    name: 'evroom-verifier-policy',
    enforce: 'post',
    // After vite-plugin-singlefile's own post-order hook (listed before this plugin) inlined everything.
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const output of Object.values(bundle)) {
          if (output.type !== 'asset' || !output.fileName.endsWith('.html')) continue;
          const html = String(output.source);
          // One left-to-right scan: a script's code may contain "<style" in a string, and is
          // consumed whole before the scan looks for the next element.
          const elements = [...html.matchAll(/<(script|style)\b[^>]*>([\s\S]*?)<\/\1>/g)];
          const scripts = elements.filter((match) => match[1] === 'script').map((match) => hash(match[2] ?? ''));
          const styles = elements.filter((match) => match[1] === 'style').map((match) => hash(match[2] ?? ''));
          if (!html.includes('__VERIFIER_CSP__')) throw new Error('verifier.html lost its policy placeholder');
          // The markup around the inlined code (code may well contain "<script" in its strings).
          const markup = html.replace(/(<(script|style)\b[^>]*>)[\s\S]*?<\/\2>/g, '$1</$2>');
          if (/<script\b[^>]*\bsrc=|<link\b[^>]*\bstylesheet/.test(markup))
            throw new Error('the verifier page still loads a file: it must be one file');
          const policy = [
            "default-src 'none'",
            `script-src ${scripts.join(' ') || "'none'"}`,
            `style-src ${styles.join(' ') || "'none'"}`,
            'worker-src blob:',
            "img-src 'none'",
            "connect-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "object-src 'none'",
          ].join('; ');
          output.source = html.replace('__VERIFIER_CSP__', policy);
        }
      },
    },
  };
}

// The browser reference verifier: one self-contained HTML file (scripts, styles and the
// worker inlined) built from the renderer's components and src-shared's verifiers.
export default defineConfig({
  root,
  base: './',
  logLevel: 'warn',
  // Always React's production build: the page may be built on demand from a test run or the CLI,
  // where NODE_ENV is not 'production', and the development build is twice the size and slower.
  mode: 'production',
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  plugins: [react(), viteSingleFile({ removeViteModuleLoader: true }), verifierPolicy()],
  worker: { format: 'iife' },
  build: {
    outDir: resolve(import.meta.dirname, 'out/verifier'),
    emptyOutDir: true,
    minify: true,
    reportCompressedSize: false,
    rollupOptions: { input: resolve(root, VERIFIER_PAGE_NAME) },
  },
});
