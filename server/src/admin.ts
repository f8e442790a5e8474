import { randomInt, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ConfigError, describeDatabase, loadConfig } from './config.js';
import { systemClock } from './domain/clock.js';
import { PROVIDERS, type Provider } from './domain/cloud/providers.js';
import { DEFAULT_ORGANIZATION } from './domain/organizations/service.js';
import { createServices, type Services } from './services.js';
import { migrateToLatest, openDatabase } from './storage/database.js';

const MAX_SIMULATED_RESOURCES = 1_000_000;

const USAGE = `usage: npm run --silent admin -- <command> [options]

  api-clients create --name NAME [--org ORGANIZATION] [--json]
      Creates an API client of the compliance API in an organization (default: '${DEFAULT_ORGANIZATION}', created
      if missing) and prints its id and secret. The secret is shown only this once.

  simulator accounts create --provider PROVIDER --resources N [--account ID] [--json]
      Creates an account of the simulated cloud holding N resources (PROVIDER: ${PROVIDERS.join(', ')}; at most
      ${MAX_SIMULATED_RESOURCES}) and prints its id and what an environment names to scan it: a role ARN for
      provider_a and provider_a_gov, a subscription id for provider_b. Without --account a new id is made.

Both honour DATABASE_URL; the database used is named on stderr, the result alone goes to stdout.`;


class UsageError extends Error {}

type Options = { name?: string; org: string; provider?: string; resources?: string; account?: string; json: boolean };

async function createApiClient(services: Services, options: Options): Promise<string> {
  if (!options.name) throw new UsageError('--name is required');
  const org = await services.organizations.ensure(options.org);
  const { client, secret } = await services.apiClients.createWithSecret(org.id, options.name);
  const credentials = { client_id: client.clientId, client_secret: secret };
  if (options.json) return JSON.stringify(credentials);
  return `created API client '${client.name}' in organization '${org.name}'\n  client_id:     ${credentials.client_id}\n  client_secret: ${credentials.client_secret}`;
}

/** A new account id in the form the provider's environments name it: 12 digits, or a subscription UUID. */
const newAccountId = (provider: Provider): string =>
  provider === 'provider_b' ? randomUUID() : Array.from({ length: 12 }, (_, i) => randomInt(i === 0 ? 1 : 0, 10)).join('');

async function createSimulatorAccount(services: Services, options: Options): Promise<string> {
  const provider = options.provider as Provider | undefined;
  if (!provider || !(PROVIDERS as readonly string[]).includes(provider)) throw new UsageError(`--provider must be one of ${PROVIDERS.join(', ')}`);
  const resources = Number(options.resources);
  if (!/^\d+$/.test(options.resources ?? '') || resources > MAX_SIMULATED_RESOURCES) {
    throw new UsageError(`--resources must be a whole number from 0 to ${MAX_SIMULATED_RESOURCES}`);
  }
  const account = options.account ?? newAccountId(provider);
  if (provider === 'provider_b' ? !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(account) : !/^\d{12}$/.test(account)) {
    throw new UsageError(provider === 'provider_b' ? '--account must be a subscription id (a lowercase UUID)' : '--account must be a 12-digit account number');
  }
  if (await services.cloud.hasAccount(provider, account)) throw new UsageError(`the ${provider} account ${account} already exists`);
  await services.cloud.ensureAccount(provider, account, resources);
  const scannedAs =
    provider === 'provider_b'
      ? { subscription_id: account }
      : { role_arn: `arn:${provider === 'provider_a' ? 'prova' : 'prova-us-gov'}:iam::${account}:role/compliance-scanner` };
  const created = { provider, account, resources, ...scannedAs };
  if (options.json) return JSON.stringify(created);
  const [field, value] = Object.entries(scannedAs)[0]!;
  return `created ${provider} account ${account} with ${resources} resources\n  ${field}: ${value}`;
}

const COMMANDS: Record<string, (services: Services, options: Options) => Promise<string>> = {
  'api-clients create': createApiClient,
  'simulator accounts create': createSimulatorAccount,
};

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      org: { type: 'string', default: DEFAULT_ORGANIZATION },
      provider: { type: 'string' },
      resources: { type: 'string' },
      account: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const command = COMMANDS[positionals.join(' ')];
  if (!command) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  console.error(`database: ${describeDatabase(config.databaseUrl)}`);
  const database = openDatabase(config.databaseUrl, { pool: config.databasePool });
  try {
    await migrateToLatest(database);
    console.log(await command(createServices(database, systemClock), values));
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    return 2;
  } finally {
    await database.close();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof ConfigError ? `configuration error: ${error.message}` : `error: ${(error as Error).message}`);
  process.exitCode = 1;
}
