import type { Page } from '../../domain/repositories.js';
import type { TypeComplianceItem, TypeFailure } from '../../domain/scans/service.js';
import { JsonText } from '../json-response.js';
import type { Schemas } from './types.js';

/*
 * The JSON text of a page of compliance results by resource type, written as JSON.stringify would write the
 * page's body (`count`, `is_truncated`, `items`, `next_offset`; each item as the spec's ComplianceByResourceType
 * lists its fields), byte for byte.
 *
 * A page is the largest answer the server gives: 10 types of a 100 000-resource scan list 1 000 failing resources
 * and ~8 500 (family, rule, message) entries, 1.2 MB. Built as objects and serialized, it took ~7 ms of the
 * request thread; most of it went into entries that repeat, as a rule's message is mostly the same for every
 * resource it fails. Here each distinct failure (a rule, its families, a message) is written once per page, as
 * bytes, and every resource that fails the same way gets those bytes again.
 */

const json = JSON.stringify;
const COMMA = Buffer.from(',');
const CLOSE_LIST_AND_OBJECT = Buffer.from(']}');

/** The bytes of each failure written so far in a page, by rule and message. */
class FailureBytes {
  private readonly byRule = new Map<string, Map<string, { families: readonly string[]; bytes: Buffer }>>();

  /** `{"family":…,"rule":…,"messages":[…]}` once per family of the failure, separated by commas. */
  of(failure: TypeFailure): Buffer {
    let byMessage = this.byRule.get(failure.ruleId);
    if (!byMessage) this.byRule.set(failure.ruleId, (byMessage = new Map()));
    const written = byMessage.get(failure.message);
    if (written?.families === failure.families) return written.bytes;
    const entries: Schemas['ComplianceByResourceType']['noncompliant'][number]['failed_rules'] = failure.families.map((family) => ({
      family: family as Schemas['ComplianceFamily'],
      rule: failure.ruleId,
      messages: [failure.message],
    }));
    const bytes = Buffer.from(json(entries).slice(1, -1), 'utf8');
    byMessage.set(failure.message, { families: failure.families, bytes });
    return bytes;
  }
}

/** The page's JSON text; `offset` is the page's, for `next_offset` (see pageBody). */
export function typeCompliancePageJson(page: Page<TypeComplianceItem>, offset: number): JsonText<Schemas['ComplianceByResourceTypeOutput']> {
  const failures = new FailureBytes();
  const parts: Buffer[] = [Buffer.from(`{"count":${page.items.length},"is_truncated":${page.hasMore},"items":[`, 'utf8')];
  page.items.forEach((item, i) => {
    parts.push(
      Buffer.from(
        `${i === 0 ? '' : ','}{"resource_type":${json(item.resourceType)},"total":${item.total},"compliant":${item.compliant},` +
          `"noncompliant_count":${item.noncompliantCount},"noncompliant":[`,
        'utf8',
      ),
    );
    item.noncompliant.forEach((resource, j) => {
      parts.push(Buffer.from(`${j === 0 ? '' : ','}{"resource_id":${json(resource.resourceId)},"failed_rules":[`, 'utf8'));
      let listed = false;
      for (const failure of resource.failures) {
        // A failure of a rule that serves none of the families asked for lists nothing.
        if (failure.families.length === 0) continue;
        if (listed) parts.push(COMMA);
        parts.push(failures.of(failure));
        listed = true;
      }
      parts.push(CLOSE_LIST_AND_OBJECT);
    });
    parts.push(CLOSE_LIST_AND_OBJECT);
  });
  parts.push(Buffer.from(`]${page.hasMore ? `,"next_offset":${offset + page.items.length}` : ''}}`, 'utf8'));
  return new JsonText(Buffer.concat(parts));
}
