import { existsSync, readdirSync } from 'node:fs';
import { buildCoverage, EXERCISED_DIR, missingStatuses, writeCoverage } from './coverage.js';

/**
 * The spec coverage check, run once every suite has recorded what it exercised under reports/exercised/ (`make test`
 * runs it after the component suites and the contract run, which go side by side): writes reports/spec-coverage.json
 * and fails when an operation has no exercised status, or when a status it declares went unexercised.
 *
 * After `make contract` alone only the contract run's own files are there (contract-*.jsonl): most error statuses are
 * provoked by the component suites, so then only operations with no status at all fail.
 */
const CONTRACT_FILES = /^contract-.*\.jsonl$/;

const coverage = buildCoverage();
const componentSuitesRan = existsSync(EXERCISED_DIR) && readdirSync(EXERCISED_DIR).some((name) => name.endsWith('.jsonl') && !CONTRACT_FILES.test(name));
let failed = false;
for (const line of writeCoverage(coverage)) console.log(`coverage ${line}`);
for (const entry of coverage.unknown) console.log(`coverage: ignored a line naming no operation of the specs: ${JSON.stringify(entry)}`);
if (coverage.uncovered.length > 0) {
  console.log(`FAIL spec coverage: no exercised status for ${coverage.uncovered.join(', ')}`);
  failed = true;
}
const missing = missingStatuses(coverage);
if (missing.length > 0 && !componentSuitesRan) {
  console.log(`coverage: ${missing.length} declared statuses are exercised by the component suites, not run here (make test runs them and checks them all)`);
} else if (missing.length > 0) {
  console.log(`FAIL spec coverage: declared, never exercised: ${missing.join(', ')}`);
  console.log('  (the component suites record what they exercise under reports/exercised/)');
  failed = true;
}
console.log('coverage report: reports/spec-coverage.json');
if (failed) process.exitCode = 1;
