import type { SqliteBuild } from '../storage/sqlite-build.js';

/**
 * The stateful mock's `large` scenario: the volumes a frontend pages through, made by SQL (INSERT … SELECT over
 * recursive counters) on a copy of the empty scenario, with the demo's file attached as `demo` for the rows its
 * environments and scans are modelled on (provider settings, families, summaries). The ids are fixed, the same in
 * every process: `6c617267-` ("larg") followed by what the row is and its number.
 */
export const LARGE = {
  environments: 1_000,
  /** Every environment's, all on its latest scan. */
  eventsPerEnvironment: 200,
  /** The latest scans of the first environments hold this many results by rule each. */
  scansWithResults: 10,
  resultsPerScan: 10_000,
} as const;

/** The fixed id of the `n`th environment (from 1): `large-0001` is `6c617267-0000-4000-8000-000000000001`. */
export const largeEnvironmentId = (n: number): string => `6c617267-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** The fixed id of the latest scan of the `n`th environment; its first scan is `…-0001-…`. */
export const largeLatestScanId = (n: number): string => `6c617267-0002-4000-8000-${String(n).padStart(12, '0')}`;

const environmentId = (n: string) => `printf('6c617267-0000-4000-8000-%012d', ${n})`;
/** `which`: 1 for the first scan (the baseline), 2 for the latest. */
const scanId = (which: string, n: string) => `printf('6c617267-%04d-4000-8000-%012d', ${which}, ${n})`;
/** Made in the order the rows are inserted (environment, then event), which keeps inserting into the index cheap. */
const eventId = (j: string, n: string) => `printf('6c617267-%04d-4e00-8%03d-000000000000', ${n}, ${j})`;
/** A new random version, as the database draws them (migrations 0014 and 0019). */
const VERSION = '(abs(random() % 281474976710655) + 1)';

/**
 * What the events and results of each provider's environments are about: a resource type, the ids of resources of
 * it, an attribute that drifts, and a built-in rule of that type with its controls in the demo's families.
 */
const RESOURCES = [
  {
    provider: 'provider_a',
    type: 'PROVA.S3.Bucket',
    id_prefix: 'arn:prova:s3:::bucket-',
    attribute: 'properties.versioning',
    old_value: 'Enabled',
    new_value: 'Suspended',
    rule_id: 'prova-s3-bucket-versioning',
    summary: 'S3 buckets have versioning enabled',
    families: '["NIST","SOC2"]',
    controls: '["NIST CP-9","SOC2 A1.2"]',
    message: 'Bucket versioning is not enabled',
  },
  {
    provider: 'provider_a_gov',
    type: 'PROVA.S3.Bucket',
    id_prefix: 'arn:prova-us-gov:s3:::bucket-',
    attribute: 'properties.versioning',
    old_value: 'Enabled',
    new_value: 'Suspended',
    rule_id: 'prova-s3-bucket-versioning',
    summary: 'S3 buckets have versioning enabled',
    families: '["NIST","HIPAA"]',
    controls: '["NIST CP-9","HIPAA 164.312(c)(1)"]',
    message: 'Bucket versioning is not enabled',
  },
  {
    provider: 'provider_b',
    type: 'PROVB.Storage.Account',
    id_prefix: '/subscriptions/8f14e45f-ceea-4e7a-9c3b-0d5e2f1a6b7c/resourceGroups/rg-app/providers/Storage/Account/storage-',
    attribute: 'properties.https_only',
    old_value: 'true',
    new_value: 'false',
    rule_id: 'provb-storage-https-only',
    summary: 'Storage accounts require secure transfer',
    families: '["CISPROVB","CSACCM"]',
    controls: '["CISPROVB 3.1","CSACCM DSI-03"]',
    message: 'Storage account accepts requests over plain HTTP',
  },
] as const;

const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * The statements that fill the copy, run in one transaction (sqlite-build.ts); `now` is the time in Unix seconds
 * the data is made at. Environments `large-0001` … `large-1000`, a minute apart in creation, take the settings of
 * the demo's environments in turn; each has a baseline scan and a latest scan (`SUCCESS`, with the demo scan's
 * summary) and 200 events on the latest one (drift, remediation and compliance changes). The latest scans of
 * `large-0001` … `large-0010` hold 10 000 results by rule each (a third of them failing, with their resources);
 * the other scans keep their summary only. Schedules are off and remediation too, so nothing changes by itself.
 */
export function largeScenario(demoFile: string, now: number): SqliteBuild {
  const { environments, eventsPerEnvironment, scansWithResults, resultsPerScan } = LARGE;
  const counted = Math.max(environments, eventsPerEnvironment, resultsPerScan);
  const latestFinished = now - 3_540;
  const statements = [
    `CREATE TEMP TABLE large_numbers (i INTEGER PRIMARY KEY)`,
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${counted}) INSERT INTO large_numbers SELECT i FROM n`,
    // The demo's environments in the order they were made, each with what its latest scan found.
    `CREATE TEMP TABLE large_bases AS
       SELECT row_number() OVER (ORDER BY e.created_seq) - 1 AS k, e.org_id, e.provider, e.provider_options, e.compliance_families,
              e.survey_resource_types, e.survey_resource_groups, e.remediate_resource_types, e.scan_interval,
              s.summary, s.resource_type_errors, s.families, json_extract(s.families, '$[0]') AS family
         FROM demo.environments e JOIN demo.scans s ON s.id = e.last_scan_id`,
    `CREATE TEMP TABLE large_resources (${Object.keys(RESOURCES[0]).join(', ')})`,
    `INSERT INTO large_resources VALUES ${RESOURCES.map((row) => `(${Object.values(row).map(literal).join(', ')})`).join(', ')}`,
    // large-0001 takes the settings of the demo's first environment, large-0002 of its second, and so on round.
    `CREATE TEMP TABLE large_environments AS
       SELECT n.i AS n, b.* FROM large_numbers n JOIN large_bases b ON b.k = (n.i - 1) % (SELECT count(*) FROM large_bases) WHERE n.i <= ${environments}`,
    `INSERT INTO environments (id, org_id, name, provider, provider_options, compliance_families, survey_resource_types, survey_resource_groups,
                               remediate_resource_types, baseline_id, remediation, scan_interval, scan_schedule_enabled, schedule_anchor_at,
                               last_scan_id, last_scan_at, scan_status, created_at, updated_at, created_seq, version)
       SELECT ${environmentId('n')}, org_id, printf('large-%04d', n), provider, provider_options, compliance_families, survey_resource_types,
              survey_resource_groups, remediate_resource_types, ${scanId('1', 'n')}, 0, scan_interval, 0, ${latestFinished},
              ${scanId('2', 'n')}, ${now - 3_600}, 'SUCCESS', ${now - 8 * 86_400} + 60 * n, ${now - 8 * 86_400} + 60 * n, n, ${VERSION}
         FROM large_environments`,
    `INSERT INTO scans (id, org_id, environment_id, status, message, remediation_error, created_at, updated_at, finished_at, summary,
                        resource_type_errors, families, job_id, created_seq)
       SELECT ${scanId('w.which', 'n')}, org_id, ${environmentId('n')}, 'SUCCESS', NULL, 0, ${now} - 3600 * (3 - w.which),
              ${now + 60} - 3600 * (3 - w.which), ${now + 60} - 3600 * (3 - w.which), summary, resource_type_errors, families, NULL, 2 * n + w.which
         FROM large_environments CROSS JOIN (SELECT 1 AS which UNION ALL SELECT 2) w`,
    // Every tenth event a compliance change, every tenth a remediation, the rest drift: one attribute modified.
    `INSERT INTO events (id, org_id, environment_id, scan_id, event_type, resource_id, resource_type, change, remediated, error, detail,
                         created_at, seq, created_seq)
       SELECT id, org_id, environment_id, scan_id, event_type, resource_id, type,
              CASE event_type WHEN 'COMPLIANCE' THEN NULL ELSE 'MODIFIED' END,
              CASE event_type WHEN 'REMEDIATION' THEN 1 END, NULL,
              CASE event_type
                WHEN 'COMPLIANCE' THEN json_object('resourceId', resource_id, 'resourceType', type, 'oldState', 'COMPLIANT', 'newState', 'NONCOMPLIANT',
                  'rules', json_array(json_object('ruleId', rule_id, 'summary', summary, 'families', json(families), 'controls', json(controls),
                    'oldState', 'PASS', 'newState', 'FAIL', 'oldMessage', NULL, 'newMessage', message)))
                ELSE json_object('resourceId', resource_id, 'resourceType', type, 'change', 'MODIFIED',
                  'attributes', json_array(json_object('name', attribute, 'old', old_value, 'new', new_value,
                    'removed', json('false'), 'requiresNew', json('false'), 'sensitive', json('false'))))
              END,
              ${latestFinished}, j - 1, ${eventsPerEnvironment} * n + j
         FROM (SELECT e.n, m.i AS j, e.org_id, ${eventId('m.i - 1', 'e.n')} AS id, ${environmentId('e.n')} AS environment_id, ${scanId('2', 'e.n')} AS scan_id,
                      CASE m.i % 10 WHEN 1 THEN 'COMPLIANCE' WHEN 6 THEN 'REMEDIATION' ELSE 'DRIFT' END AS event_type,
                      r.id_prefix || printf('%03d', m.i % 50) AS resource_id, r.*
                 FROM large_environments e JOIN large_resources r ON r.provider = e.provider
                 JOIN large_numbers m ON m.i <= ${eventsPerEnvironment})`,
    // Results by rule: one control of the scan's first family per rule, so that a page of them is a page of rows.
    `INSERT INTO scan_rule_results (scan_id, rule_id, result, evaluated, failed, unsurveyed_types, missing_types, rule)
       SELECT scan_id, rule_id, result, 20, CASE result WHEN 'FAIL' THEN 1 + j % 3 ELSE 0 END,
              CASE result WHEN 'UNKNOWN' THEN json_array(type) ELSE '[]' END, '[]',
              json_object('id', rule_id, 'title', printf('Large rule %05d', j),
                'severity', CASE j % 5 WHEN 0 THEN 'Critical' WHEN 1 THEN 'High' WHEN 2 THEN 'Medium' WHEN 3 THEN 'Low' ELSE 'Informational' END,
                'message', message, 'resourceTypes', json_array(type),
                'controls', json_array(json_object('id', family || printf(' L-%05d', j), 'family', family, 'title', printf('Large control %05d', j))),
                'families', json_array(family))
         FROM (SELECT ${scanId('2', 'e.n')} AS scan_id, printf('large-rule-%05d', m.i) AS rule_id, m.i AS j, e.family, r.type, r.message,
                      CASE WHEN m.i % 10 IN (1, 4, 7) THEN 'FAIL' WHEN m.i % 10 = 9 THEN 'UNKNOWN' ELSE 'PASS' END AS result
                 FROM large_environments e JOIN large_resources r ON r.provider = e.provider
                 JOIN large_numbers m ON m.i <= ${resultsPerScan}
                WHERE e.n <= ${scansWithResults})`,
    // The failing rules' resources: one to three each.
    `INSERT INTO scan_findings (scan_id, rule_id, resource_id, resource_type, result, message)
       SELECT ${scanId('2', 'e.n')}, printf('large-rule-%05d', m.i), r.id_prefix || printf('%03d', k.i), r.type, 'FAIL', r.message
         FROM large_environments e JOIN large_resources r ON r.provider = e.provider
         JOIN large_numbers m ON m.i <= ${resultsPerScan} AND m.i % 10 IN (1, 4, 7)
         JOIN large_numbers k ON k.i <= 1 + m.i % 3
        WHERE e.n <= ${scansWithResults}`,
    // A list version of its own: no process answers a page of environments it read in another scenario.
    `INSERT INTO environment_list_versions (org_id, version) SELECT id, ${VERSION} FROM organizations WHERE true
       ON CONFLICT (org_id) DO UPDATE SET version = excluded.version`,
    `DROP TABLE large_numbers`,
    `DROP TABLE large_bases`,
    `DROP TABLE large_resources`,
    `DROP TABLE large_environments`,
  ];
  return { attach: { demo: demoFile }, statements };
}
