/** Real headless Chromium (Debian's package) driven by playwright-core, with a fresh profile. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1280, height: 900 }): Promise<TestBrowser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} not found: run deploy/local/install-browser.sh (or set CHROMIUM_PATH)`,
    );
  }
  // A fresh --user-data-dir per run: no cookies or permissions carried over between tests.
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'aff-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport,
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

export const outputDir = () => {
  const dir = path.resolve(__dirname, '../../.local/test-output');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
};
