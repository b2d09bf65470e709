/**
 * A real browser for the web UI's end-to-end tests: Debian's chromium driven by
 * playwright-core (no bundled browser download), console errors collected, and
 * screenshots written under test-results/ (ignored by git).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';

/** Where Debian's chromium package installs the browser. */
export const CHROMIUM = process.env.ORG_CHROMIUM ?? '/usr/bin/chromium';

/** Where the screenshots go. */
export const SCREENSHOTS = join(process.cwd(), 'test-results', 'web');

/** Launches headless chromium, or fails saying how to install it. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`chromium is missing at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (.ci/run does), or set ORG_CHROMIUM`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
}

/** A console error or uncaught page error seen in the browser. */
export interface BrowserProblem {
  kind: 'console' | 'pageerror';
  text: string;
  url?: string;
}

/** Collects console errors and uncaught errors of a page. */
export function watchConsole(page: Page): BrowserProblem[] {
  const problems: BrowserProblem[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') problems.push({ kind: 'console', text: message.text(), url: message.location().url });
  });
  page.on('pageerror', (error) => problems.push({ kind: 'pageerror', text: `${error.name}: ${error.message}` }));
  return problems;
}

/** Writes a full-page screenshot to test-results/web/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}
