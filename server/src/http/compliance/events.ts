import type { HandlerContext } from '../context.js';
import { pageBody } from '../paging.js';
import { eventDocument } from '../../documents/events.js';
import type { Req, Res } from './types.js';

export async function listEvents(req: Req<'listEvents'>, { services }: HandlerContext): Res<'listEvents'> {
  const { environment_id, offset = 0, max_items = 100, range_from, range_to, event_type, change, remediated, resource_type } = req.query;
  const page = await services.events.list(
    req.principal.orgId,
    environment_id,
    {
      eventTypes: event_type,
      changes: change,
      remediated: remediated?.map((value) => value === 'true'),
      resourceTypes: resource_type,
      rangeFrom: range_from,
      rangeTo: range_to,
    },
    { offset, limit: max_items },
  );
  return { status: 200, body: pageBody(page, offset, eventDocument) };
}
