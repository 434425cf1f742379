/** axe-core in a real page, for the browser tests of the portal and the console. */
import fs from 'node:fs';
import type { Page } from 'playwright-core';

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical findings on the page, and any keyboard-unreachable scroll
 * box whatever its impact. Evaluated through the DevTools protocol, so the page's CSP (which
 * refuses scripts without its nonce) stays as it is.
 */
export async function axeProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    '(async () => (await axe.run(document)).violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))()',
  )) as { id: string; impact: string; nodes: number }[];
  return violations
    .filter(
      (v) =>
        v.id === 'scrollable-region-focusable' || v.impact === 'serious' || v.impact === 'critical',
    )
    .map((v) => `${v.id} (${v.impact}, ${v.nodes} nodes)`);
}
