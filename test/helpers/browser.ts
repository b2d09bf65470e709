/**
 * A real browser for the web UI's end-to-end tests, driven by playwright-core.
 *
 * Which browser: `ORG_CHROMIUM` when set, else a chromium installed on the system, else
 * the headless chromium shipped inside the `@sparticuz/chromium` npm package, unpacked
 * once into `node_modules/.cache/` (with the NSS libraries and fonts it ships, so a
 * machine with Node and nothing else can run it). Console errors are collected, and
 * screenshots written under test-results/ (ignored by git).
 *
 * @example
 * const browser = await launchBrowser();
 * const page = await (await browser.newContext()).newPage();
 * const problems = watchConsole(page);
 * await page.goto(url);
 * await screenshot(page, '01-home');
 * await browser.close();
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type ConsoleMessage, type LaunchOptions, type Page } from 'playwright-core';
import { extract } from 'tar-fs';
import { REPO_ROOT } from './child.js';

/** Where the screenshots go. */
export const SCREENSHOTS = join(process.cwd(), 'test-results', 'web');

/** Where chromium packages of Linux distributions install it, looked up in this order. */
const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

/** A browser to launch: its executable and what it needs in its environment. */
export interface BrowserBinary {
  executablePath: string;
  /** Where it came from, for messages. */
  source: 'ORG_CHROMIUM' | 'system' | '@sparticuz/chromium';
  /** Variables added to the browser's environment (libraries and fonts of the npm build). */
  env: Record<string, string>;
}

/** A chromium on the PATH, if any. */
function systemChromium(): string | undefined {
  for (const name of SYSTEM_NAMES) {
    try {
      const path = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      if (path) return path;
    } catch {
      // Not this one.
    }
  }
  return undefined;
}

/** Decompresses a brotli file to `target`. */
async function unbrotli(source: string, target: string): Promise<void> {
  await pipeline(createReadStream(source), createBrotliDecompress(), createWriteStream(target, { mode: 0o700 }));
}

/** Decompresses and unpacks a brotli tarball into `folder`. */
async function untarBrotli(source: string, folder: string): Promise<void> {
  await pipeline(createReadStream(source), createBrotliDecompress(), extract(folder));
}

/** The folder of an installed package (its `exports` hide `package.json` from resolution). */
function packageRoot(name: string): string {
  let folder = dirname(createRequire(join(REPO_ROOT, 'package.json')).resolve(name));
  while (!existsSync(join(folder, 'package.json')) || (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: string }).name !== name) {
    const parent = dirname(folder);
    if (parent === folder) throw new Error(`cannot find the folder of ${name}`);
    folder = parent;
  }
  return folder;
}

/**
 * Unpacks the `@sparticuz/chromium` build into `node_modules/.cache/org-chromium/<version>`
 * (once: later calls, and other test processes, reuse it). The folder is filled under a
 * temporary name and renamed into place, so a test process never sees half of it.
 */
async function packagedChromium(): Promise<BrowserBinary> {
  const root = packageRoot('@sparticuz/chromium');
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const bin = join(root, 'bin');
  const cache = join(REPO_ROOT, 'node_modules', '.cache', 'org-chromium');
  const folder = join(cache, version);
  if (!existsSync(join(folder, 'chromium'))) {
    await mkdir(cache, { recursive: true });
    const staging = await mkdtemp(join(cache, `.${version}-`));
    try {
      await Promise.all([
        unbrotli(join(bin, 'chromium.br'), join(staging, 'chromium')),
        untarBrotli(join(bin, 'al2023.tar.br'), staging), // lib/: NSS and expat
        untarBrotli(join(bin, 'fonts.tar.br'), staging), // fonts/
        untarBrotli(join(bin, 'swiftshader.tar.br'), join(staging, 'swiftshader')),
      ]);
      await chmod(join(staging, 'chromium'), 0o755);
      await writeFile(
        join(staging, 'fonts.conf'),
        `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(folder, 'fonts')}</dir>\n  <dir>/usr/share/fonts</dir>\n  <cachedir>${join(folder, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
      );
      await rename(staging, folder).catch(async (error: NodeJS.ErrnoException) => {
        // Another test process unpacked it first: use theirs.
        if (existsSync(join(folder, 'chromium'))) return;
        if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
        // A folder without the browser (a font cache a browser wrote after its folder was
        // removed): not an unpacked browser, so it is replaced.
        await rm(folder, { recursive: true, force: true });
        await rename(staging, folder).catch((again: NodeJS.ErrnoException) => {
          if (!existsSync(join(folder, 'chromium'))) throw again;
        });
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
  const libraries = [join(folder, 'lib'), join(folder, 'swiftshader'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return {
    executablePath: join(folder, 'chromium'),
    source: '@sparticuz/chromium',
    env: { LD_LIBRARY_PATH: libraries, FONTCONFIG_PATH: folder, FONTCONFIG_FILE: join(folder, 'fonts.conf') },
  };
}

/** The browser the tests use: `ORG_CHROMIUM`, a system chromium, or the npm-packaged one. */
export async function findBrowser(): Promise<BrowserBinary> {
  const chosen = process.env.ORG_CHROMIUM;
  if (chosen) {
    if (!existsSync(chosen)) throw new Error(`ORG_CHROMIUM names ${chosen}, which does not exist`);
    return { executablePath: chosen, source: 'ORG_CHROMIUM', env: {} };
  }
  const system = systemChromium();
  if (system) return { executablePath: system, source: 'system', env: {} };
  return packagedChromium();
}

/** Launches headless chromium (see {@link findBrowser} for which one). */
export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  const binary = await findBrowser();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  return chromium.launch({
    executablePath: binary.executablePath,
    headless: true,
    env: { ...env, ...binary.env },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
    ...options,
  });
}

/** A console error or uncaught page error seen in the browser. */
export interface BrowserProblem {
  kind: 'console' | 'pageerror';
  text: string;
  url?: string;
}

/** Collects console errors and uncaught errors of a page (into `problems`, when given). */
export function watchConsole(page: Page, problems: BrowserProblem[] = []): BrowserProblem[] {
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') problems.push({ kind: 'console', text: message.text(), url: message.location().url });
  });
  page.on('pageerror', (error) => problems.push({ kind: 'pageerror', text: `${error.name}: ${error.message}` }));
  return problems;
}

/** What a browser suite opens before its tests: a browser, one context, one page whose console errors are collected. */
export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  problems: BrowserProblem[];
}

/** Launches the browser and opens a page in a new context with `options` (viewport, downloads, touch…). */
export async function openBrowserSession(options: BrowserContextOptions = {}): Promise<BrowserSession> {
  const browser = await launchBrowser();
  const context = await browser.newContext(options);
  const page = await context.newPage();
  return { browser, context, page, problems: watchConsole(page) };
}

/** A browser of fresh profiles (each its own storage) with one page each, and their console errors. */
export interface BrowserProfiles {
  /** Console and page errors of every page opened. */
  problems: BrowserProblem[];
  /** A new profile's page; with `token`, signed in to the web UI at `url` (see {@link openSignedIn}). */
  open(options?: { viewport?: { width: number; height: number }; url?: string; token?: string }): Promise<Page>;
  /** Closes every profile and the browser. */
  close(): Promise<void>;
}

/** Launches a browser whose profiles a suite opens one by one (closed together, after the suite). */
export async function browserProfiles(): Promise<BrowserProfiles> {
  const browser = await launchBrowser();
  const contexts: BrowserContext[] = [];
  const problems: BrowserProblem[] = [];
  return {
    problems,
    async open({ viewport = { width: 1280, height: 800 }, url, token } = {}) {
      const context = await browser.newContext({ viewport });
      contexts.push(context);
      const page = await context.newPage();
      watchConsole(page, problems);
      if (token !== undefined) await openSignedIn(page, url ?? '', token);
      return page;
    },
    async close() {
      for (const context of contexts.splice(0)) await context.close();
      await browser.close();
    },
  };
}

/**
 * Opens the web UI at `url` signed in through a `#token=` link and waits for the list of
 * workspaces (no deadline of its own: the test's timeout ends a wait that never ends).
 */
export async function openSignedIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/#token=${token}`);
  await page.getByRole('heading', { name: 'Workspaces', exact: true }).waitFor({ state: 'visible', timeout: 0 });
}

/** Writes a screenshot of the viewport to test-results/web/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}
