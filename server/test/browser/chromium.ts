import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { PROJECT_ROOT } from '../../src/paths.js';

/**
 * Debian's chromium driven by playwright-core (no browser download). The flags keep it off the network it cannot
 * reach; where chromium is missing the browser suites skip, saying so.
 */
export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
/** Screenshots of the browser suites, kept as the run's artifacts. */
export const SCREENSHOTS = join(PROJECT_ROOT, 'reports', 'screenshots');

export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`browser tests skipped: ${CHROMIUM} not found (apt-get install chromium)`);

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
