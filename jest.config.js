/**
 * The suites run as native ES modules, in jest's ESM mode (node needs `--experimental-vm-modules`: .npmrc has npm
 * pass it to whatever it runs, `npm run test:unit` and `npx jest` alike). SWC strips the TypeScript of each file as
 * it is loaded; nothing is built first. See the README's "Tests" section for running one file or one test, and for
 * coverage.
 * @type {import('jest').Config}
 */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/server', '<rootDir>/scripts'],
  testMatch: ['**/*.test.ts'],
  // Run apart: the fault and outage matrices restart real servers and databases, from the build (`make test-faults`).
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.FAULT_MATRIX === '1' ? [] : ['/server/test/fault-matrix\\.test\\.ts$', '/server/test/outage-matrix\\.test\\.ts$'])],
  extensionsToTreatAsEsm: ['.ts'],
  // Sources import each other as `./module.js` (NodeNext); here that is the `.ts` file beside it.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
  },
  testTimeout: 30_000,
  // Most suites wait on sockets and the database as much as they compute: one worker per core finishes in about
  // two thirds of the time that jest's default (one core left idle) takes on a two-core machine.
  maxWorkers: '100%',
  // `--coverage` (COVERAGE=1 make test-unit): V8's own counters, so the code runs as it always does.
  coverageProvider: 'v8',
  coverageDirectory: '<rootDir>/coverage',
  coverageReporters: ['lcov', 'text-summary'],
  collectCoverageFrom: ['server/src/**/*.ts', 'client/src/**/*.ts', 'contract-tests/**/*.ts', '!**/*.test.ts'],
};
