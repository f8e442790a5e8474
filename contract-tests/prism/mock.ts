import { ROOT } from '../../scripts/pipeline.js';
import { BASE_PATHS, MOCK_APIS, startMock, type Mock } from './mocks.js';

/** `make mock`: Prism mocks of every spec on documented ports, serving the real server's paths. */
const PORTS = { compliance: 4010, conductor: 4011, console: 4012 } as const;

const mocks: Mock[] = [];
for (const api of MOCK_APIS) {
  const mock = await startMock(ROOT, api, Number(process.env[`MOCK_PORT_${api.toUpperCase()}`] ?? PORTS[api]));
  mocks.push(mock);
  console.log(`${api.padEnd(10)} mock: ${mock.url}${BASE_PATHS[api]}`);
}
console.log('answers come from the examples in the specs; Ctrl-C stops the mocks');

const stop = async () => {
  await Promise.all(mocks.map((m) => m.stop()));
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
