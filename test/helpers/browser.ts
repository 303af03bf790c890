/**
 * Headless Chromium driven by playwright-core, for the tests that look at the explorer page as a
 * reader would. The browser is the system's Chromium when there is one (`CHROMIUM_PATH`, else
 * Debian's `/usr/bin/chromium`), else the one inside the npm package @sparticuz/chromium, so that
 * `npm ci && npm test` needs nothing installed by hand.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** Headless as root, and nothing the tests did not ask for goes to the network. */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Screenshots the browser tests save, for a person to look at (ignored by git). */
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '../screenshots');

export function launchBrowser(): Promise<Browser> {
  let found: Found | Promise<Found>;
  try {
    // Thrown at once, not as a rejection: the suite starts its host beside the browser, and a host
    // started beside a rejected launch is never closed, so the test process would never end.
    found = findChromium();
  } catch (error) {
    throw reported(error as Error);
  }
  return (async () => {
    try {
      const { executablePath, env } = await found;
      // Under LANG=C or C.UTF-8 (a bare Debian, a Docker image) headless Chromium's
      // navigator.language is "en-US@posix", which Intl refuses: the page's first formatter throws.
      return await chromium.launch({ executablePath, args: FLAGS, env: { ...process.env, ...env, LC_ALL: 'en_US.UTF-8' } });
    } catch (error) {
      throw reported(error as Error);
    }
  })();
}

/** uvu drops the error of a `before` hook (its suite only shows "0 / N"); stderr reaches the runner's output. */
function reported(error: Error): Error {
  process.stderr.write(`launchBrowser failed: ${error.message}\n`);
  return error;
}

interface Found {
  executablePath: string;
  /** What the browser's environment needs besides the test process's. */
  env?: Record<string, string>;
}

function findChromium(): Found | Promise<Found> {
  const wanted = process.env.CHROMIUM_PATH;
  if (wanted) {
    if (!fs.existsSync(wanted))
      throw new Error(
        `CHROMIUM_PATH is ${wanted}, which does not exist: set it to a Chromium binary, or unset it to use ${SYSTEM_CHROMIUM} or @sparticuz/chromium`,
      );
    return { executablePath: wanted };
  }
  if (fs.existsSync(SYSTEM_CHROMIUM)) return { executablePath: SYSTEM_CHROMIUM };
  let entry: string;
  try {
    entry = import.meta.resolve('@sparticuz/chromium');
  } catch {
    throw new Error(
      `no browser for the explorer tests: ${SYSTEM_CHROMIUM} is missing and so is the devDependency @sparticuz/chromium: run npm ci (or apt-get install -y chromium)`,
    );
  }
  return bundledChromium(entry);
}

/**
 * The Chromium of @sparticuz/chromium (a headless shell built for AWS Lambda). The package
 * decompresses it on first use to fixed places in the temporary folder (`chromium`, 200 MB;
 * `fonts`), about 1.5 s once; its `al2023` libraries (NSS, expat) are decompressed too and put
 * first on the browser's library path, so it needs nothing from the system but glibc.
 */
async function bundledChromium(entry: string): Promise<Found> {
  const { default: Chromium } = (await import(entry)) as typeof import('@sparticuz/chromium');
  // The package's own decompressor (its index exports it only from version 147, which needs Node 22).
  const { inflate } = (await import(new URL('./lambdafs.js', entry).href)) as { inflate(file: string): Promise<string> };
  // The package's own folder, however deep its entry module sits (build/ or build/esm/).
  const root = entry.slice(0, entry.lastIndexOf('/@sparticuz/chromium/') + '/@sparticuz/chromium/'.length);
  const { version } = JSON.parse(fs.readFileSync(fileURLToPath(new URL('package.json', root)), 'utf8'));
  const tmp = os.tmpdir();
  const unpacked = path.join(tmp, `chromium-${version}.unpacked`);
  // Two test processes starting at once must not both write the same files, and the package
  // takes any existing file for a finished one: a marker written last says the unpacking ended.
  await whileLocked(path.join(tmp, 'chromium.lock'), async () => {
    if (fs.existsSync(unpacked)) return;
    for (const leftover of ['chromium', 'al2023', 'fonts']) fs.rmSync(path.join(tmp, leftover), { recursive: true, force: true });
    Chromium.setGraphicsMode = false; // no WebGL, so no SwiftShader libraries in the temporary folder
    await Promise.all([Chromium.executablePath(), inflate(fileURLToPath(new URL('bin/al2023.tar.br', root)))]);
    fs.writeFileSync(unpacked, '');
  });
  const libraries = [path.join(tmp, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return {
    executablePath: path.join(tmp, 'chromium'),
    // The package's fonts.conf lists /tmp/fonts: the same fonts on every machine.
    env: { LD_LIBRARY_PATH: libraries, FONTCONFIG_PATH: path.join(tmp, 'fonts') },
  };
}

/** Runs `work` holding a lock folder; one left by a process that died is taken after a minute. */
async function whileLocked(lock: string, work: () => Promise<void>): Promise<void> {
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const since = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (since > 60_000) fs.rmSync(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught exceptions of the page, as text. */
  errors: string[];
  close(): Promise<void>;
}

/** A fresh page (its own context) at `viewport`, collecting every console error. */
export async function openPage(browser: Browser, viewport: { width: number; height: number }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, isMobile: viewport.width < 600, hasTouch: viewport.width < 600 });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (entry) => {
    if (entry.type() === 'error') errors.push(entry.text());
  });
  page.on('pageerror', (error) => errors.push(error.stack ?? error.message));
  return { page, errors, close: () => context.close() };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
