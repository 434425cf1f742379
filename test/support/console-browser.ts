/**
 * The console in headless Chromium: a signed-in page that records everything the browser
 * reports as an error, and the bar every console page must pass at a given width (`lang`,
 * axe-core with no serious or critical violation, no sideways scroll).
 */
import type { Page } from 'playwright-core';
import { axeProblems } from './axe';
import { launchBrowser, type TestBrowser } from './browser';

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };

export interface ConsoleBrowser {
  browser: TestBrowser;
  page: Page;
  /** Page errors and browser console errors so far (expect it to stay empty). */
  problems: string[];
}

/** A fresh browser at phone width, signed in by following a sign-in link (the invite's). */
export async function signedInBrowser(signInUrl: string): Promise<ConsoleBrowser> {
  const browser = await launchBrowser(PHONE);
  try {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`${msg.text()} (${msg.location().url})`);
    });
    await page.goto(signInUrl);
    // The link opens the overview, `/console`.
    if (!/^\/console(\/|$)/.test(new URL(page.url()).pathname)) {
      throw new Error(`sign-in did not open the console: ${page.url()}`);
    }
    return { browser, page, problems };
  } catch (error) {
    // The caller never gets this browser to close, and a live Chromium keeps jest from exiting.
    await browser.close();
    throw error;
  }
}

/**
 * What is wrong with the page as shown at `viewport` (empty when it passes): no `lang`, axe
 * findings, or a document wider than the screen.
 */
export async function pageProblems(
  page: Page,
  viewport: { width: number; height: number },
): Promise<string[]> {
  await page.setViewportSize(viewport);
  const found: string[] = [];
  const lang = await page.getAttribute('html', 'lang');
  if (!lang) found.push('no lang on <html>');
  found.push(...(await axeProblems(page)));
  const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  if (width > viewport.width) found.push(`scrolls sideways: ${width}px > ${viewport.width}px`);
  return found;
}
