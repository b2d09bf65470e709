/**
 * Accessibility checks with axe-core (from npm) in a real page. The library is
 * evaluated through the browser's debugging protocol, which the page's strict
 * Content-Security-Policy does not apply to, so the page is tested exactly as served.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One axe finding, reduced to what a failing test should print. */
export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs every axe rule (WCAG 2.x A/AA and best practices) on the page; returns the findings of the given impacts. */
export async function axeFindings(page: Page, impacts: readonly string[] = ['serious', 'critical']): Promise<AxeFinding[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(source);
  const violations = (await page.evaluate(`window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`)) as {
    id: string;
    impact: string | null;
    help: string;
    nodes: { target: unknown[] }[];
  }[];
  return violations
    .filter((violation) => impacts.includes(violation.impact ?? ''))
    .map((violation) => ({ id: violation.id, impact: violation.impact ?? '', help: violation.help, targets: violation.nodes.slice(0, 5).map((node) => node.target.join(' ')) }));
}
