import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { systemClock } from './domain/clock.js';
import { DEFAULT_ORGANIZATION } from './domain/organizations/service.js';
import { createServices } from './services.js';
import { migrateToLatest, openDatabase } from './storage/database.js';

const USAGE = `usage: npm run admin -- api-clients create --name NAME [--org ORGANIZATION] [--json]

Creates an API client of the compliance API in an organization (default: '${DEFAULT_ORGANIZATION}', created if
missing) and prints its id and secret. The secret is shown only this once. Honours DATABASE_URL.`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      org: { type: 'string', default: DEFAULT_ORGANIZATION },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals[0] !== 'api-clients' || positionals[1] !== 'create' || positionals.length !== 2) {
    console.error(USAGE);
    return 2;
  }
  if (!values.name) {
    console.error(`--name is required\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig();
  const database = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database);
    const services = createServices(database, systemClock);
    const org = await services.organizations.ensure(values.org);
    const { client, secret } = await services.apiClients.createWithSecret(org.id, values.name);
    const credentials = { client_id: client.clientId, client_secret: secret };
    if (values.json) console.log(JSON.stringify(credentials));
    else console.log(`created API client '${client.name}' in organization '${org.name}'\n  client_id:     ${credentials.client_id}\n  client_secret: ${credentials.client_secret}`);
    return 0;
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
