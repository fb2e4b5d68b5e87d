// What every browser scenario shares: Debian's chromium driven by playwright-core (installed by
// scripts/setup outside the checkout), screenshots into the output directory, and a failure that
// exits non-zero with the reason, so the Catch2 test that runs a scenario can say what went wrong.

import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const installDir = process.env.ERRAND_TEST_WEB || '/var/cache/errand-test-web';
const chromiumPath = process.env.ERRAND_TEST_CHROMIUM || '/usr/bin/chromium';

// How long one expectation waits: a sandbox start and a turn of the scripted agent take seconds.
export const patience = 60_000;

export class ScenarioFailure extends Error {}

export function fail(reason) {
  throw new ScenarioFailure(reason);
}

function loadPlaywright() {
  const require = createRequire(join(installDir, 'package.json'));
  try {
    return require('playwright-core');
  } catch (error) {
    fail(`playwright-core is not installed in ${installDir}/node_modules (${error.message}); ` +
         'run scripts/setup, which installs tests/e2e/web with npm, or point ERRAND_TEST_WEB at such an install');
  }
}

// The flags keep chromium on this machine: no component updates, sync, QUIC or background
// requests, and no GPU or setuid sandbox, which a headless run as an ordinary account lacks.
const chromiumFlags = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

// Runs scenario(page, context) in a fresh chromium profile with the arguments
// `node <script> <address> <outdir>`, where address is one errand printed, with its access
// secret; exits 0 when it returns, 1 with the reason when it throws. The scenario is given the
// interface's origin as url: the printed address is opened first, as a person opens it, and its
// secret becomes the profile's cookie.
export async function runScenario(name, scenario) {
  const [address, outDir] = process.argv.slice(2);
  if (!address || !outDir) {
    console.error(`usage: node ${name}.mjs <address errand printed> <output directory>`);
    process.exit(2);
  }
  const profile = mkdtempSync(join(outDir, `${name}-profile-`));
  let context;
  try {
    const { chromium } = loadPlaywright();
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: chromiumFlags,
      viewport: { width: 1280, height: 900 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(patience);
    const problems = [];
    page.on('pageerror', (error) => problems.push(`the page threw: ${error.message}`));
    const opened = await page.goto(address);
    const landed = new URL(page.url());
    if (!opened || !opened.ok()) fail(`opening the printed address answered ${opened?.status()}`);
    if (landed.searchParams.has('access')) {
      fail(`the printed address was not traded for a cookie: the address bar still holds the secret (${landed.pathname}${landed.search.replace(/access=[^&]*/, 'access=...')})`);
    }
    await scenario({ page, url: landed.origin, outDir, problems });
    if (problems.length > 0) fail(problems.join('\n'));
    console.log(`${name}: passed; screenshots in ${outDir}`);
  } catch (error) {
    const reason = error instanceof ScenarioFailure ? error.message : error.stack;
    console.error(`${name}: FAILED: ${reason}`);
    process.exitCode = 1;
  } finally {
    if (context) await context.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  }
}

export async function screenshot(page, outDir, name) {
  const file = join(outDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
}

// Waits until an element with the data-testid (optionally holding the text) is visible, or
// fails saying what was missing and what the page showed instead.
export async function expectVisible(page, testId, text, what) {
  let locator = page.getByTestId(testId);
  if (text !== undefined) locator = locator.filter({ hasText: text });
  try {
    await locator.first().waitFor({ state: 'visible' });
  } catch {
    const shown = (await page.locator('body').innerText().catch(() => '')).slice(0, 2000);
    fail(`${what}: no visible [data-testid=${testId}]` +
         (text !== undefined ? ` holding ${text}` : '') + ` at ${page.url()}; the page showed:\n${shown}`);
  }
  return locator.first();
}

export async function expectAbsent(page, testId, what) {
  const count = await page.getByTestId(testId).count();
  if (count !== 0) fail(`${what}: ${count} [data-testid=${testId}] shown at ${page.url()}`);
}

// A request made from the page itself, as its own script would make it: same origin, JSON body.
export async function fetchFromPage(page, path, init) {
  return page.evaluate(async ({ path, init }) => {
    const response = await fetch(path, init);
    const text = await response.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: response.status, body };
  }, { path, init });
}

// Starts a session from the start page with prompt in project, screenshots the filled page as
// "new", and returns the thread of the session page the start led to, printed as
// "thread: <id>" for the Catch2 test that checks threads.db.
export async function startSession(page, url, outDir, prompt, project) {
  await page.goto(`${url}/#/new`);
  await (await expectVisible(page, 'new-prompt', undefined, 'the start page')).fill(prompt);
  await (await expectVisible(page, 'new-project', undefined, 'the start page')).fill(project);
  await screenshot(page, outDir, 'new');
  await (await expectVisible(page, 'new-start', undefined, 'the start page')).click();
  try {
    await page.waitForURL(/#\/s\/[A-Za-z0-9._-]+$/);
  } catch {
    fail(`starting a session did not lead to its page: still at ${page.url()}`);
  }
  const thread = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/s\//, ''));
  console.log(`thread: ${thread}`);
  return thread;
}
