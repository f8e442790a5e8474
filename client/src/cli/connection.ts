import type { Api, FlagSpec, FlagValues } from './command.js';
import { UsageError } from './exit-codes.js';
import type { CliIO } from './output.js';

/** Where the server runs when neither a flag nor an environment variable says (the address `make run` uses). */
export const DEFAULT_URL = 'http://127.0.0.1:3000';

interface ApiConnection {
  urlEnv: string;
  userFlag: string;
  userEnv: string;
  userLabel: string;
  secretFlag: string;
  secretEnv: string;
}

/** Each API's flags and environment variables; a flag wins over its variable. */
export const CONNECTIONS: Record<Api, ApiConnection> = {
  compliance: {
    urlEnv: 'COMPLIANCE_URL',
    userFlag: 'client-id',
    userEnv: 'COMPLIANCE_CLIENT_ID',
    userLabel: 'the API client id',
    secretFlag: 'client-secret',
    secretEnv: 'COMPLIANCE_CLIENT_SECRET',
  },
  conductor: {
    urlEnv: 'CONDUCTOR_URL',
    userFlag: 'user',
    userEnv: 'CONDUCTOR_USER',
    userLabel: 'the rbac user name, or root',
    secretFlag: 'secret',
    secretEnv: 'CONDUCTOR_SECRET',
  },
};

/** The URL and credential flags every command of `api` accepts. */
export function connectionFlags(api: Api): Record<string, FlagSpec> {
  const c = CONNECTIONS[api];
  return {
    url: { type: 'string', value: '<url>', description: `server URL (env ${c.urlEnv}, then CC_URL; default ${DEFAULT_URL})` },
    [c.userFlag]: { type: 'string', value: '<name>', description: `${c.userLabel} (env ${c.userEnv})` },
    [c.secretFlag]: { type: 'string', value: '<secret>', description: `its secret (env ${c.secretEnv}; prefer the variable: flags show in the process list)` },
  };
}

export interface Connection {
  baseUrl: string;
  auth: { user: string; secret: string };
}

const present = (value: string | undefined): string | undefined => (value === undefined || value === '' ? undefined : value);

/** The server URL and credentials for `api`, from flags first, then the environment; missing credentials are a usage error. */
export function resolveConnection(api: Api, values: FlagValues, env: CliIO['env']): Connection {
  const c = CONNECTIONS[api];
  const flag = (name: string) => (typeof values[name] === 'string' ? present(values[name] as string) : undefined);
  const baseUrl = flag('url') ?? present(env[c.urlEnv]) ?? present(env.CC_URL) ?? DEFAULT_URL;
  if (!/^https?:\/\/[^/]/i.test(baseUrl)) throw new UsageError(`the server URL must start with http:// or https://, not '${baseUrl}'`);
  const user = flag(c.userFlag) ?? present(env[c.userEnv]);
  const secret = flag(c.secretFlag) ?? present(env[c.secretEnv]);
  const missing = [
    ...(user === undefined ? [`--${c.userFlag} (or ${c.userEnv})`] : []),
    ...(secret === undefined ? [`--${c.secretFlag} (or ${c.secretEnv})`] : []),
  ];
  if (user === undefined || secret === undefined) throw new UsageError(`missing ${api} credentials: ${missing.join(' and ')}`);
  return { baseUrl, auth: { user, secret } };
}
