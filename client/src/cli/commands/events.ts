import { unwrap } from '../../index.js';
import type { Group } from '../command.js';
import { time } from '../output.js';
import { LIST_FLAGS, readList, showList } from '../paging.js';
import type { Event } from '../schemas.js';

/** One line about what the event records: the resource, and what changed in it or in its compliance. */
function eventSummary(event: Event): string {
  const diff = event.resource_diff;
  if (diff) {
    const attributes = diff.attributes.map((a) => a.name);
    const detail = attributes.length > 0 ? ` (${attributes.join(', ')})` : '';
    const outcome = event.event_type === 'REMEDIATION' ? (event.remediated ? ' remediated' : ` not remediated: ${event.error ?? 'unknown reason'}`) : '';
    return `${diff.change} ${diff.resource_type} ${diff.resource_id}${detail}${outcome}`;
  }
  const compliance = event.compliance_diff;
  // The state change first: resource ids can be long enough to be cut.
  if (compliance) return `${compliance.old_state ?? 'new'} -> ${compliance.new_state ?? 'gone'}: ${compliance.resource_type} ${compliance.resource_id}`;
  return event.error ?? '';
}

export const events: Group = {
  name: 'events',
  api: 'compliance',
  summary: 'compliance, drift and remediation events recorded by scans',
  commands: [
    {
      name: 'list',
      summary: 'list the events of an environment, newest first',
      flags: {
        'environment-id': { type: 'string', value: '<id>', description: 'the environment (required)' },
        type: { type: 'string', multiple: true, value: '<type,...>', description: 'only these kinds: COMPLIANCE, DRIFT, REMEDIATION' },
        change: { type: 'string', multiple: true, value: '<change,...>', description: 'only resource changes of these kinds: ADDED, MODIFIED, REMOVED' },
        'resource-type': { type: 'string', multiple: true, value: '<type,...>', description: 'only events about these resource types' },
        from: { type: 'string', value: '<time>', description: 'only events at or after this time (Unix seconds or ISO 8601)' },
        to: { type: 'string', value: '<time>', description: 'only events at or before this time (Unix seconds or ISO 8601)' },
        ...LIST_FLAGS,
      },
      examples: [
        'compliance-conductor events list --environment-id 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f --type DRIFT --from 2026-06-01',
      ],
      async run(ctx) {
        const environment_id = ctx.requiredString('environment-id');
        const event_type = ctx.choices('type', ['COMPLIANCE', 'DRIFT', 'REMEDIATION'] as const);
        const change = ctx.choices('change', ['ADDED', 'MODIFIED', 'REMOVED'] as const);
        const resource_type = ctx.optionalStrings('resource-type');
        const range_from = ctx.timestamp('from');
        const range_to = ctx.timestamp('to');
        const filters = {
          ...(event_type && { event_type }),
          ...(change && { change }),
          ...(resource_type && { resource_type }),
          ...(range_from !== undefined && { range_from }),
          ...(range_to !== undefined && { range_to }),
        };
        const list = await readList(ctx, (offset, max_items) =>
          unwrap(ctx.compliance().GET('/events', { params: { query: { environment_id, offset, max_items, ...filters } } })),
        );
        showList(ctx, list, (items) =>
          ctx.out.table(items, [
            { header: 'TIME', value: (e) => time(e.created_at) },
            { header: 'TYPE', value: (e) => e.event_type },
            { header: 'SCAN', value: (e) => e.scan_id },
            { header: 'WHAT', value: eventSummary, max: 100 },
          ]),
        );
      },
    },
  ],
};
