import type { components } from '../../../generated/compliance/schema.js';
import type { Event } from '../domain/events/types.js';

type Schemas = components['schemas'];

/**
 * An event as the compliance API documents it. Both GET /v0/events and webhook deliveries send this shape, so it
 * lives outside the HTTP layer that is only one of its two transports.
 */
export function eventDocument(event: Event): Schemas['Event'] {
  const diff = event.resourceDiff;
  const compliance = event.complianceDiff;
  return {
    id: event.id,
    environment_id: event.environmentId,
    scan_id: event.scanId,
    event_type: event.eventType,
    created_at: event.createdAt,
    ...(diff && {
      resource_diff: {
        resource_id: diff.resourceId,
        resource_type: diff.resourceType,
        change: diff.change,
        attributes: diff.attributes.map((a) => ({
          name: a.name,
          old: a.old,
          new: a.new,
          removed: a.removed,
          requires_new: a.requiresNew,
          sensitive: a.sensitive,
          attr_type: 'input' as const,
        })),
      },
    }),
    ...(compliance && {
      compliance_diff: {
        resource_id: compliance.resourceId,
        resource_type: compliance.resourceType,
        old_state: compliance.oldState,
        new_state: compliance.newState,
        rules: compliance.rules.map((r) => ({
          rule_id: r.ruleId,
          summary: r.summary,
          compliance_families: r.families as Schemas['ComplianceFamily'][],
          controls: r.controls,
          old_state: r.oldState,
          new_state: r.newState,
          old_message: r.oldMessage,
          new_message: r.newMessage,
        })),
      },
    }),
    ...(event.remediated !== undefined && { remediated: event.remediated, error: event.error ?? null }),
  };
}
