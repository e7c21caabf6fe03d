import axe from 'axe-core';
import type { Page } from 'playwright-core';

/**
 * What a page must hold at any size: no horizontal scroll, exactly one h1, and no axe
 * violation. Returns the problems found (empty when the page is fine).
 */
export async function inspectPage(page: Page): Promise<string[]> {
  const problems: string[] = [];
  const layout = await page.evaluate(() => ({
    docWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
    innerWidth: window.innerWidth,
    h1: document.querySelectorAll('h1').length,
  }));
  if (layout.docWidth > layout.innerWidth) problems.push(`document ${layout.docWidth} px wide in ${layout.innerWidth} px`);
  if (layout.h1 !== 1) problems.push(`${layout.h1} h1`);
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const r = await (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => `axe ${v.id}: ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(' | ')}`);
  });
  return [...problems, ...violations];
}
