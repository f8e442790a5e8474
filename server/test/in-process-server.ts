import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts an HTTP server that a test runs in its own process on 127.0.0.1 at a free port; resolves with its base URL
 * (`http://127.0.0.1:<port>`).
 *
 * Its idle connections are closed by the client only. The test's fetch keeps a connection a few seconds and Node's
 * server five, and here both run on one event loop: a process held off the cores for longer can send its next request
 * on the kept connection before the server's idle timer, already due, closes it under that request (`ECONNRESET`,
 * seen once under `nice` beside a busy core). Idle timeouts themselves are tested on servers configured for it
 * (connection-limits.test.ts).
 */
export async function listenInProcess(server: Server): Promise<string> {
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
