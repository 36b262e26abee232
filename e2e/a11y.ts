/**
 * Accessibility checks for the e2e suite: axe-core (the engine behind the browsers' own
 * accessibility audits) run inside the page under test, at the widths and media the issue names.
 *
 * axe is evaluated through the DevTools protocol (page.evaluate), which the app's strict CSP
 * does not govern, so the page under test keeps its real policy.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The widths every view is checked at (desktop, small laptop, narrow window). */
export const A11Y_WIDTHS = [1280, 1024, 800] as const;

/** One axe finding, reduced to what a failure message needs. */
export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe on the page as it is now (WCAG 2.0/2.1 A and AA rules plus axe's best practices).
 *
 * @returns The violations, empty when there are none.
 */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  const loaded = await page.evaluate(() => typeof (globalThis as unknown as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const { axe, document } = globalThis as unknown as {
      document: object;
      axe: {
        run(
          context: object,
          options: object,
        ): Promise<{
          violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
        }>;
      };
    };
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
}

/** Formats findings for an assertion message. */
export function describeFindings(where: string, findings: readonly AxeFinding[]): string {
  return findings
    .map(
      (finding) =>
        `${where}: ${finding.id} (${finding.impact ?? 'n/a'}) ${finding.help} at ${finding.targets.join(', ')}`,
    )
    .join('\n');
}

/**
 * Checks the current view at each width of A11Y_WIDTHS and in print emulation, then puts the
 * viewport back.
 *
 * @returns Every finding, labelled with the view, the width or `print`; empty when clean.
 */
export async function axeAcrossWidths(page: Page, view: string): Promise<string[]> {
  const original = page.viewportSize() ?? { width: 1280, height: 800 };
  const messages: string[] = [];
  for (const width of A11Y_WIDTHS) {
    await page.setViewportSize({ width, height: original.height });
    const findings = await axeViolations(page);
    if (findings.length > 0) messages.push(describeFindings(`${view} @${width}px`, findings));
  }
  await page.emulateMedia({ media: 'print' });
  const printed = await axeViolations(page);
  if (printed.length > 0) messages.push(describeFindings(`${view} @print`, printed));
  await page.emulateMedia({ media: 'screen' });
  await page.setViewportSize(original);
  return messages;
}
