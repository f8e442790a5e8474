// Browser usage: fetch and web APIs only. The package test compiles this file with `lib: ["DOM", "ES2022"]` and no
// Node types, so a Node API used here (or in the package's main entry point) fails the build.
import {
  ApiError,
  addValidation,
  createComplianceClient,
  createConductorClient,
  createConsoleClient,
  pages,
  results,
  tarFiles,
  unwrap,
  waitForDryRun,
  submitDryRun,
  type ConsoleClient,
} from '@compliance-conductor/client';

/** The web console's API: the session cookie authenticates, the CSRF token goes with every state-changing call. */
export async function signInToConsole(email: string, password: string): Promise<ConsoleClient> {
  let csrfToken: string | undefined;
  const consoleApi = createConsoleClient({ baseUrl: window.location.origin, csrfToken: () => csrfToken });
  const session = await unwrap(consoleApi.POST('/session', { body: { email, password } }));
  csrfToken = session.csrf_token;
  return consoleApi;
}

/** Creates an API client in the console and shows its secret once. */
export async function createApiClient(consoleApi: ConsoleClient, name: string, output: HTMLElement): Promise<void> {
  const created = await results(consoleApi).POST('/api-clients', { body: { name } });
  if (created.ok) {
    const secret = await unwrap(consoleApi.POST('/api-clients/{client_id}/secret', { params: { path: { client_id: created.data.client_id } } }));
    output.textContent = `${secret.client_id}: ${secret.client_secret}`;
  } else if (created.status === 401) {
    output.textContent = 'Signed out: sign in again';
  } else {
    output.textContent = created.error.message;
  }
}

/** Lists every environment into a table, following the pages. */
export async function showEnvironments(baseUrl: string, user: string, secret: string, table: HTMLTableSectionElement): Promise<void> {
  const compliance = createComplianceClient({ baseUrl, auth: { user, secret } });
  table.replaceChildren();
  const environments = pages((offset) => unwrap(compliance.GET('/environments', { params: { query: { offset, max_items: 100, order_by: 'name', order_direction: 'asc' } } })));
  for await (const environment of environments) {
    const row = table.insertRow();
    row.insertCell().textContent = environment.name;
    row.insertCell().textContent = environment.scan_status ?? 'never scanned';
  }
}

/** Uploads the validation library a user picked in `<input type="file">` (a File is a Blob), then dry-runs a composition built in the page. */
export async function uploadAndDryRun(baseUrl: string, secret: string, input: HTMLInputElement, account: string): Promise<string> {
  const conductor = createConductorClient({ baseUrl, auth: { user: 'root', secret } });
  const file = input.files?.item(0);
  if (!file) return 'pick a validation library first';
  try {
    const library = await addValidation(conductor, file.name.replace(/\.(tar|tgz|tar\.gz)$/, ''), file);
    const composition = await tarFiles({ 'composition.yaml': 'resources:\n  - name: assets\n    type: PROVA.S3.Bucket\n    tags: { owner: web }\n' });
    const accepted = await submitDryRun(conductor, { command: 'RUN', account }, composition);
    const controller = new AbortController();
    document.querySelector('#cancel')?.addEventListener('click', () => controller.abort());
    const dryRun = await waitForDryRun(conductor, accepted.id, { signal: controller.signal, onProgress: (current) => console.log(current.status) });
    return `${library.name} (${library.rule_count} rules): dry-run ${dryRun.status}, ${dryRun.plan.length} operations, ${dryRun.errors.length} errors`;
  } catch (error) {
    if (error instanceof ApiError) return `${error.operation} failed with ${error.status}: ${error.message}`;
    throw error;
  }
}
