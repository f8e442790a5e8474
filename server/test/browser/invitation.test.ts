import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { DATABASE_TARGETS, openTestDatabase, type TestDatabase } from '../databases.js';
import { eventually } from '../eventually.js';
import { basic, startTestServer, type TestServer } from '../server.js';
import { invitationLink, SmtpSink } from '../smtp-sink.js';
import { ensureConsoleBuilt } from './builds.js';
import { hasChromium, launchChromium, SCREENSHOTS } from './chromium.js';

/**
 * An invitation from end to end in a real browser: the compliance API invites an address, the server emails the
 * link (to a local SMTP sink), the invited person opens it in chromium, chooses a password and is signed in, and
 * the console then lets them do what their groups allow, saying why where it does not. Used, expired and unknown
 * links get a page that says so. Screenshots go to reports/screenshots/ (invitation-*.png).
 */

const PASSWORD = 'an invited person’s password';
const WEEK = 7 * 24 * 3600;
const ORGANIZATION = 'Invitation Walkthrough';

const describeBrowser = hasChromium ? describe : describe.skip;

describeBrowser('an invitation accepted in chromium', () => {
  let db: TestDatabase & { dispose(): Promise<void> };
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const sink = new SmtpSink();
  const pageErrors: string[] = [];
  let auth = '';
  const groups: Record<string, string> = {};
  let shot = 0;
  let invited = 0;

  const screenshot = async (name: string) => {
    shot += 1;
    await page.screenshot({ path: join(SCREENSHOTS, `invitation-${String(shot).padStart(2, '0')}-${name}.png`), fullPage: true });
  };
  const button = (name: string) => page.getByRole('button', { name, exact: true });
  const compliance = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.baseUrl}/v0${path}`, {
      method,
      headers: { authorization: auth, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    expect(`${res.status} ${text}`).toMatch(/^20[01] /);
    return text ? JSON.parse(text) : undefined;
  };

  /** Invites a new address into the group of `policy` and returns the link the server emailed it. */
  const invite = async (policy: string) => {
    invited += 1;
    const email = `invited-${invited}@example.org`;
    await compliance('POST', '/invites', { email, group_ids: [groups[policy]] });
    // The test server runs no job worker: the delivery runs here.
    while (await server.services.jobs.runOnce());
    const [mail] = sink.to(email);
    expect(mail).toBeDefined();
    return { email, ...invitationLink(mail!.text) };
  };

  /** Opens the link and accepts it with the password, as the invited person does. */
  const acceptInBrowser = async (link: string) => {
    await page.goto(link);
    await page.getByLabel('Choose a password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await button('Accept and sign in').click();
    await page.getByRole('heading', { name: 'API clients', level: 1 }).waitFor();
  };

  beforeAll(async () => {
    await ensureConsoleBuilt();
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const file of readdirSync(SCREENSHOTS)) if (file.startsWith('invitation-') && file.endsWith('.png')) rmSync(join(SCREENSHOTS, file));
    await sink.start();
    db = await openTestDatabase(DATABASE_TARGETS[0]!);
    server = await startTestServer(db, { notifications: { smtpUrl: sink.url, smtpFrom: 'Compliance <invites@compliance.test>' } });
    const organization = await server.services.organizations.ensure(ORGANIZATION);
    const { client, secret } = await server.services.apiClients.createWithSecret(organization.id, 'inviter');
    auth = basic(client.clientId, secret);
    for (const [policy, name] of [
      ['builtin:AUDITOR', 'Auditors'],
      ['builtin:MANAGER', 'Managers'],
      ['builtin:ORGANIZATION_REPORT_VIEWER', 'Report viewers'],
    ]) {
      groups[policy!] = (await compliance('POST', '/groups', { name, policy, environment_ids: ['*'] })).id;
    }
    await server.services.apiClients.createWithSecret(organization.id, 'nightly-export');
    browser = await launchChromium();
  }, 180_000);

  beforeEach(async () => {
    // Each test is a browser of its own: no cookie of another test's user.
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US', timezoneId: 'UTC' });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    // 404 and 410 answers log "Failed to load resource" by design; anything else that reaches the console is a defect.
    page.on('pageerror', (error) => pageErrors.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(`console error: ${message.text()}`);
    });
  });

  afterEach(async () => {
    await context?.close();
    expect(pageErrors).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await db?.dispose();
    await sink.stop();
  });

  it('opens the emailed link, sets a password and is signed in, seeing the API clients read-only with the reason', async () => {
    const { email, link, token } = await invite('builtin:AUDITOR');
    expect(link).toBe(`${server.baseUrl}/console/invitation#${token}`);
    await page.goto(link);
    await page.getByRole('heading', { name: `Join ${ORGANIZATION}` }).waitFor();
    expect(await page.getByLabel('Email address').inputValue()).toBe(email);
    expect(await page.getByLabel('Email address').getAttribute('readonly')).not.toBeNull();
    await page.getByText('as a member of the group Auditors (builtin:AUDITOR)').waitFor();
    await screenshot('accept-form');

    // The page's own checks, before anything is sent.
    await page.getByLabel('Choose a password').fill('too short');
    await page.getByLabel('Repeat the password').fill('too short');
    await button('Accept and sign in').click();
    await page.getByRole('alert').getByText('Choose a password of at least 12 characters.').waitFor();
    await page.getByLabel('Choose a password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(`${PASSWORD}!`);
    await button('Accept and sign in').click();
    await page.getByRole('alert').getByText('The two passwords differ').waitFor();
    await screenshot('accept-form-refused');

    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await button('Accept and sign in').click();
    await page.getByRole('heading', { name: 'API clients', level: 1 }).waitFor();
    // The used link's token leaves the address bar.
    expect(new URL(page.url()).pathname).toBe('/console/');
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.locator('.top-bar').textContent()).toContain(email);
    const note = page.getByRole('note');
    await note.getByText('lets you see the API clients but not change them').waitFor();
    expect(await note.textContent()).toContain('managing them needs builtin:MANAGER in a group over all environments (*)');
    await page.getByRole('rowheader', { name: 'nightly-export' }).waitFor();
    expect(await button('Create client').count()).toBe(0);
    expect(await button('Delete nightly-export').count()).toBe(0);
    await screenshot('signed-in-read-only');

    // The server refuses what the page hides, saying why.
    const session = await (await page.request.get(`${server.baseUrl}/console/api/session`)).json();
    const refused = await page.request.post(`${server.baseUrl}/console/api/api-clients`, { data: { name: 'not allowed' }, headers: { 'X-CSRF-Token': session.csrf_token } });
    expect(refused.status()).toBe(403);
    expect((await refused.json()).message).toBe(`createApiClient is not allowed. ${session.access.reason}`);

    // A user of the organization now: ACTIVE, in the invite's group; the password signs in.
    const users = await compliance('GET', `/users?email=${encodeURIComponent(email)}`);
    expect(users.items).toEqual([expect.objectContaining({ email, status: 'ACTIVE', owner: false, groups: { [groups['builtin:AUDITOR']!]: 'Auditors' } })]);
    await button('Sign out').click();
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await button('Sign in').click();
    await page.getByRole('heading', { name: 'API clients', level: 1 }).waitFor();
  });

  it('shows a clear page for a link used already, expired or unknown, and the accept form for none of them', async () => {
    const used = await invite('builtin:AUDITOR');
    const accepted = await fetch(`${server.baseUrl}/console/api/invitations/${used.token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: PASSWORD }),
    });
    expect(accepted.status).toBe(200);
    await page.goto(used.link);
    await page.getByRole('heading', { name: 'This invitation link cannot be used' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toBe(`This invitation was accepted already; sign in with ${used.email}`);
    expect(await page.getByLabel('Choose a password').count()).toBe(0);
    await screenshot('link-used');
    await page.getByRole('link', { name: 'Go to the sign-in page' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();

    const expiring = await invite('builtin:AUDITOR');
    server.clock.advanceSeconds(WEEK);
    await page.goto(expiring.link);
    await page.getByRole('heading', { name: 'This invitation link cannot be used' }).waitFor();
    await eventually(async () => expect(await page.getByRole('alert').textContent()).toMatch(/^This invitation expired on \d{4}-\d\d-\d\d at \d\d:\d\d UTC; ask the organization for a new one$/));
    await screenshot('link-expired');

    await page.goto(`${server.baseUrl}/console/invitation#${'Q'.repeat(43)}`);
    await page.getByRole('heading', { name: 'This invitation link cannot be used' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/^This invitation link is not valid: /);
    await page.goto(`${server.baseUrl}/console/invitation#cut-short`);
    await page.getByRole('alert').getByText('This invitation link is incomplete').waitFor();
    await screenshot('link-unknown');
  });

  it('an invited manager over all environments creates API clients; a report viewer is shown why there is no table', async () => {
    await acceptInBrowser((await invite('builtin:MANAGER')).link);
    expect(await page.getByRole('note').count()).toBe(0);
    await page.getByLabel('Client name').fill('deploy-bot');
    await button('Create client').click();
    const dialog = page.getByRole('dialog', { name: 'deploy-bot is created' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('rowheader', { name: 'deploy-bot' }).waitFor();
    await screenshot('manager-created-client');

    await context.clearCookies();
    await acceptInBrowser((await invite('builtin:ORGANIZATION_REPORT_VIEWER')).link);
    await page.getByRole('note').getByText('does not let you see the API clients').waitFor();
    expect(await page.locator('table').count()).toBe(0);
    await screenshot('viewer-no-access');
  });
});
