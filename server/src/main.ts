import type { Server } from 'node:http';
import { dirname, join } from 'node:path';
import { ConfigError, loadConfig, type Config } from './config.js';
import { bootstrap } from './bootstrap.js';
import { createApp } from './http/app.js';
import { prepareMockDatabase, printMockCredentials } from './demo/mock.js';

const ACTIVITY_FLUSH_MS = 30_000;

async function start(config: Config): Promise<void> {
  const services = await bootstrap(config);
  let mockReset: (() => Promise<number>) | undefined;
  if (config.mockReset) {
    // The stateful mock: snapshot the seeded demo; a reset pauses the background work, restores, resumes it.
    const mock = await prepareMockDatabase(
      services,
      config.databaseUrl.slice('sqlite:'.length),
      {
        console_admin: { email: config.consoleAdminEmail, password: config.consoleAdminPassword ?? '' },
        conductor_root: { user: 'root', secret: config.conductorRootSecret ?? '' },
      },
      join(dirname(config.conductorRootSecretFile), 'mock-credentials.json'),
    );
    printMockCredentials(mock);
    mockReset = async () => {
      const started = performance.now();
      services.scheduler.stop();
      services.enforcer.stop();
      await services.jobs.stop(500);
      await services.apiClients.flushActivity();
      await mock.restore();
      // The restored clients and groups replace whatever this process has cached of the ones before.
      services.apiClients.forgetAll();
      services.access.forgetGrants();
      services.jobs.start();
      services.scheduler.start(config.schedulerIntervalMs);
      services.enforcer.start(config.enforcementIntervalMs);
      return performance.now() - started;
    };
  }
  const app = createApp({
    services,
    validateResponses: config.validateResponses,
    ...(mockReset && { mockReset }),
    ...(config.corsOrigins && { corsOrigins: config.corsOrigins }),
  });
  services.jobs.start();
  services.scheduler.start(config.schedulerIntervalMs);
  services.enforcer.start(config.enforcementIntervalMs);
  const flush = setInterval(() => void services.apiClients.flushActivity().catch((e) => console.error('activity flush failed:', e)), ACTIVITY_FLUSH_MS);
  flush.unref();

  const server: Server = app.express.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    console.log(`listening on http://${config.host}:${port} (compliance /v0, conductor /api/v0, console /console, docs /docs)`);
  });

  // SIGTERM: answer long polls at once, keep listening (/readyz answering 503) until the requests in flight are
  // answered, then close, stop the job worker and exit 0.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: draining`);
    app.setDraining(true);
    services.dryRuns.stopWaiting();
    const deadline = Date.now() + config.shutdownTimeoutMs;
    await untilConnectionsEnd(server, deadline);
    const force = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline - Date.now()));
    force.unref();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    services.scheduler.stop();
    services.enforcer.stop();
    await services.jobs.stop(config.shutdownTimeoutMs);
    await services.evaluation.close();
    clearInterval(flush);
    await services.apiClients.flushActivity();
    await services.database.close();
    console.log('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

const DRAIN_CHECK_MS = 50;
/** How often draining closes connections left idle, e.g. keep-alive ones whose answer began before the signal. */
const DRAIN_IDLE_SWEEP_MS = 1_000;

/**
 * Resolves once the server has no open connection, or at `deadline`. Connections with a request in progress close
 * after their answer, which carries `Connection: close` while draining; idle ones are closed now and then (not on
 * every check: a connection just accepted counts as idle until its request begins). The listener stays open
 * meanwhile, so a load balancer probing /readyz sees 503 rather than a refused connection.
 */
async function untilConnectionsEnd(server: Server, deadline: number): Promise<void> {
  let nextSweep = 0;
  while (Date.now() < deadline) {
    if (Date.now() >= nextSweep) {
      server.closeIdleConnections();
      nextSweep = Date.now() + DRAIN_IDLE_SWEEP_MS;
    }
    const open = await new Promise<number>((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
    if (open === 0) return;
    await new Promise((resolve) => setTimeout(resolve, DRAIN_CHECK_MS));
  }
}

try {
  await start(loadConfig());
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`configuration error: ${error.message}`);
  } else {
    console.error('start-up failed:', error);
  }
  process.exit(1);
}
