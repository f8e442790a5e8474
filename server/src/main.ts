import type { Server } from 'node:http';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, configSummary, loadConfig, type Config } from './config.js';
import { bootstrap } from './bootstrap.js';
import { systemClock } from './domain/clock.js';
import { faultPoints } from './domain/jobs/fault-points.js';
import { createApp, type AppOptions } from './http/app.js';
import { limitConnections } from './http/connection-limits.js';
import { httpServerFor } from './http/http-server.js';
import { MOCK_SCENARIOS, prepareMockDatabase, printMockCredentials, scenarioLoader, type MockScenarioName } from './demo/mock.js';
import { createLogger } from './logger.js';
import { createMetricsServer, Metrics } from './metrics.js';
import { openDatabase } from './storage/database.js';
import { RefusedDatabaseFile } from './storage/sqlite-faults.js';

const ACTIVITY_FLUSH_MS = 30_000;

async function start(config: Config, log: Logger): Promise<void> {
  log.info({ config: configSummary(config) }, 'starting');
  const metrics = new Metrics();
  // Undefined unless a test configured fault points: then the job queue calls it at every point its work passes.
  const faultPoint = faultPoints({ armedFile: config.faultPointsFile, traceFile: config.faultTraceFile });
  const services = await bootstrap(config, systemClock, openDatabase(config.databaseUrl, { pool: config.databasePool, log }), { log, metrics, faultPoint });
  let mockScenarios: AppOptions['mockScenarios'];
  if (config.mockReset) {
    // The stateful mock: every scenario's data set made once; loading one pauses the background work, replaces the
    // database, resumes it.
    const mock = await prepareMockDatabase(
      services,
      config.databaseUrl.slice('sqlite:'.length),
      {
        console_admin: { email: config.consoleAdminEmail, password: config.consoleAdminPassword ?? '' },
        conductor_root: { user: 'root', secret: config.conductorRootSecret ?? '' },
      },
      join(dirname(config.conductorRootSecretFile), 'mock-credentials.json'),
      { largeAtStart: config.mockLargeAtStart },
    );
    printMockCredentials(mock);
    const load = scenarioLoader(services, mock, { schedulerIntervalMs: config.schedulerIntervalMs, enforcementIntervalMs: config.enforcementIntervalMs });
    mockScenarios = {
      list: () => MOCK_SCENARIOS.map(({ name, description }) => ({ name, description, ready: mock.isReady(name) })),
      // The app loads only the names listed.
      load: (name) => load(name as MockScenarioName),
    };
  }
  const app = createApp({
    services,
    validateResponses: config.validateResponses,
    log,
    metrics,
    metricsOnOwnPort: config.metricsPort !== undefined,
    ...(mockScenarios && { mockScenarios }),
    ...(config.corsOrigins && { corsOrigins: config.corsOrigins }),
    trustProxy: config.trustProxy,
  });
  services.jobs.start();
  services.scheduler.start(config.schedulerIntervalMs);
  services.enforcer.start(config.enforcementIntervalMs);
  const flush = setInterval(
    () => void services.apiClients.flushActivity().catch((error: unknown) => log.error({ err: error }, 'writing the API clients’ last activity failed')),
    ACTIVITY_FLUSH_MS,
  );
  flush.unref();

  const metricsServer = config.metricsPort === undefined ? undefined : createMetricsServer(metrics);
  if (metricsServer) {
    // Listening before the main port, so that whoever waits for the main port finds the metrics there too.
    await new Promise<void>((resolve, reject) => {
      metricsServer.once('error', reject);
      metricsServer.listen(config.metricsPort, config.host, () => resolve());
    });
    const address = metricsServer.address();
    const port = typeof address === 'object' && address ? address.port : config.metricsPort;
    log.info({ metricsUrl: `http://${config.host}:${port}/metrics` }, `metrics on http://${config.host}:${port}/metrics`);
  }

  const server: Server = httpServerFor(app.express, config.http);
  metrics.watchConnections(limitConnections(server, config.http, { log, clock: systemClock, counter: metrics }));
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    log.info({ url: `http://${config.host}:${port}` }, `listening on http://${config.host}:${port} (compliance /v0, conductor /api/v0, console /console, docs /docs)`);
  });

  // SIGTERM: answer long polls at once and hand the running jobs back, keep listening (/readyz answering 503)
  // until the requests in flight are answered, then close and exit 0.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, `${signal} received: draining`);
    app.setDraining(true);
    const longPolls = services.dryRuns.stopWaiting();
    log.info({ longPolls }, `answered ${longPolls} long polls of dry-runs with their current state`);
    // At once rather than after the connections end: another server (or this one restarted) takes the jobs up as
    // soon as they are handed back, instead of once their leases run out.
    services.scheduler.stop();
    services.enforcer.stop();
    const jobsStopped = services.jobs.stop(config.shutdownTimeoutMs);
    const deadline = Date.now() + config.shutdownTimeoutMs;
    if (await untilConnectionsEnd(server, deadline)) log.info('every connection ended');
    else log.warn({ shutdownTimeoutMs: config.shutdownTimeoutMs }, 'connections still open at the shutdown timeout: closing them');
    const force = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline - Date.now()));
    force.unref();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    // Every job finished or handed back before the database closes: none is left to wait for its lease.
    await jobsStopped;
    await services.evaluation.close();
    clearInterval(flush);
    await services.apiClients.flushActivity();
    await services.database.close();
    metricsServer?.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

const DRAIN_CHECK_MS = 50;
/** How often draining closes connections left idle, e.g. keep-alive ones whose answer began before the signal. */
const DRAIN_IDLE_SWEEP_MS = 1_000;

/**
 * Resolves once the server has no open connection (true), or at `deadline` (false). Connections with a request in
 * progress close after their answer, which carries `Connection: close` while draining; idle ones are closed now and
 * then (not on every check: a connection just accepted counts as idle until its request begins). The listener stays
 * open meanwhile, so a load balancer probing /readyz sees 503 rather than a refused connection.
 */
async function untilConnectionsEnd(server: Server, deadline: number): Promise<boolean> {
  let nextSweep = 0;
  while (Date.now() < deadline) {
    if (Date.now() >= nextSweep) {
      server.closeIdleConnections();
      nextSweep = Date.now() + DRAIN_IDLE_SWEEP_MS;
    }
    const open = await new Promise<number>((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
    if (open === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, DRAIN_CHECK_MS));
  }
  return false;
}

let config: Config | undefined;
try {
  config = loadConfig();
} catch (error) {
  // No logger is configured yet, and whoever starts the server looks for the reason on standard error.
  const log = createLogger({ level: 'info', output: 'stderr' });
  if (error instanceof ConfigError) log.fatal({ variable: error.variable }, `configuration error: ${error.message}`);
  else log.fatal({ err: error }, 'configuration error');
  process.exit(1);
}
const log = createLogger({ level: config.logLevel });
try {
  await start(config, log);
} catch (error) {
  // A database file refused is the operator's to deal with, like a configuration error: said on standard error.
  if (error instanceof RefusedDatabaseFile) createLogger({ level: 'info', output: 'stderr' }).fatal({ file: error.file }, error.message);
  else log.fatal({ err: error }, 'start-up failed');
  process.exit(1);
}
