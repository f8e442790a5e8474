
import type { ApiName } from '../../server/src/http/apis.js';
import type { SpecOperation } from '../property/operations.js';
import type { Exchange, StatefulClient } from './http.js';
import { declaresHeader, exampleBody, itemPath, offeredSteps, operationById, smallestPage, STEPS, type Step } from './spec.js';
import { expect } from '../../server/test/expect.js';

/** Records a chain refers to (an environment for scans, a group for invites, ...), by name. */
export type Refs = Record<string, any>;

/** A request of a create or update step, and what reads must show once it is done. */
export interface Write {
  query?: Record<string, string | number | boolean | undefined>;
  /** JSON, or a Buffer sent as an archive. */
  body?: unknown;
  /** Fields every later read must show; by default the JSON body's own fields that the read has. */
  shows?: Record<string, unknown>;
}

export interface ChainContext {
  client: StatefulClient;
  /** Runs the background work that is due (scan jobs, process jobs, dry-runs) to the end. */
  settle(): Promise<void>;
  /** A token no other call of this run gets, for names and numbers that must be unique. */
  unique(): string;
  /** Makes an organization user (users join through the console, not through the compliance API); returns its id. */
  createUser(email: string): Promise<string>;
}

/**
 * How the chain of one resource runs. Every step the spec offers runs; a step it does not offer must be listed in
 * `skip` with the reason (a meta-test holds the table to the specs both ways).
 */
export interface ResourceDeclaration {
  api: ApiName;
  /** The collection path (or, for a singleton, the path of the one record). */
  path: string;
  /** `singleton`: one record at one path, no id (e.g. the conductor's rbac policy). Default `collection`. */
  kind?: 'collection' | 'singleton';
  /** Steps the API does not offer for this resource, and why. */
  skip?: Partial<Record<Step, string>>;
  /** Operations that play a step the spec puts at another path, by operationId, with why in a comment. */
  operations?: Partial<Record<Step, string>>;
  /** The body field holding the id; default: the item path parameter's name when the body has it, else `id`. */
  idField?: string;
  prepare?(ctx: ChainContext): Promise<Refs>;
  /** The create request; default: the spec's example body. */
  create?(refs: Refs, ctx: ChainContext): Write | Promise<Write>;
  /** When the API cannot create the resource: makes one another way and answers its id. */
  existing?(refs: Refs, ctx: ChainContext): Promise<string>;
  /** The update request; default: the spec's example body. */
  update?(refs: Refs, id: string | undefined, ctx: ChainContext): Write | Promise<Write>;
  /** Query parameters the list needs (e.g. the environment of scans). */
  listQuery?(refs: Refs): Record<string, string>;
  /** Fields of the create answer that reads do not show, and why. */
  createOnly?: Record<string, string>;
  /** What a read shows once the background work the create queued is done. */
  afterJobs?: Record<string, unknown>;
  /** Which list items are the record; default: the item whose id field is its id. */
  listMatch?(item: any, id: string | undefined): boolean;
}

export interface ChainStep {
  step: Step | 'neighbour' | 'read after jobs' | 'get after delete' | 'delete again' | 'list after delete';
  operationId: string;
  status: number;
}

export interface ChainReport {
  name: string;
  steps: ChainStep[];
}

export const resourceName = (d: Pick<ResourceDeclaration, 'api' | 'path'>): string => `${d.api} ${d.path}`;

/** The operation each step uses: the one the spec offers, or the declared stand-in; skipped steps have none. */
export function stepOperations(d: ResourceDeclaration): Partial<Record<Step, SpecOperation>> {
  const offered = offeredSteps(d.api, d.path, d.kind ?? 'collection');
  const operations: Partial<Record<Step, SpecOperation>> = {};
  for (const step of STEPS) {
    const declared = d.operations?.[step];
    const op = declared ? operationById(d.api, declared) : offered[step];
    if (op && !d.skip?.[step]) operations[step] = op;
  }
  return operations;
}

/**
 * Disagreements between a declaration and the specs: a step the spec offers but the table skips, a step the spec
 * lacks that the table neither skips nor plays with another operation, or a step both skipped and played.
 */
export function declarationProblems(d: ResourceDeclaration): string[] {
  const offered = offeredSteps(d.api, d.path, d.kind ?? 'collection');
  const problems: string[] = [];
  for (const step of STEPS) {
    const skipped = d.skip?.[step];
    const standIn = d.operations?.[step];
    if (standIn) {
      try {
        operationById(d.api, standIn);
      } catch {
        problems.push(`${resourceName(d)}: ${step} names ${standIn}, which the spec does not have`);
      }
    }
    if (skipped && (offered[step] || standIn)) problems.push(`${resourceName(d)}: ${step} is skipped ("${skipped}") but the spec offers ${offered[step]?.operationId ?? standIn}`);
    if (!skipped && !offered[step] && !standIn) problems.push(`${resourceName(d)}: the spec offers no ${step}, and the table neither skips it nor names an operation for it`);
    if (skipped !== undefined && skipped.trim().length < 10) problems.push(`${resourceName(d)}: the skip of ${step} needs a reason`);
  }
  if ((d.kind ?? 'collection') === 'collection' && !itemPath(d.api, d.path) && !d.skip?.get && !d.operations?.get) {
    problems.push(`${resourceName(d)}: no item path`);
  }
  return problems;
}

const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The default of `shows`: the JSON body's fields that the answer has. */
function shownFields(write: Write, answer: unknown): Record<string, unknown> {
  if (write.shows) return write.shows;
  if (!isObject(write.body) || !isObject(answer)) return {};
  return Object.fromEntries(Object.entries(write.body).filter(([key]) => key in answer));
}

/** Runs the chain of one resource. Every failed expectation names the resource and the step. */
export async function runChain(d: ResourceDeclaration, ctx: ChainContext): Promise<ChainReport> {
  const name = resourceName(d);
  const ops = stepOperations(d);
  const report: ChainReport = { name, steps: [] };
  const singleton = d.kind === 'singleton';
  const item = singleton ? undefined : itemPath(d.api, d.path);
  const idParam = item ? /\{([^}]+)\}$/.exec(item)![1]! : undefined;
  const call = async (step: ChainStep['step'], op: SpecOperation, input: Parameters<StatefulClient['call']>[2]): Promise<Exchange> => {
    const answer = await ctx.client.call(d.api, op.operationId, input);
    report.steps.push({ step, operationId: op.operationId, status: answer.status });
    return answer;
  };
  const check = (step: string, fn: () => void) => {
    try {
      fn();
    } catch (error) {
      if (error instanceof Error) error.message = `${name} › ${step}: ${error.message}`;
      throw error;
    }
  };
  const success = (answer: Exchange) => expect(answer.status, answer.text.slice(0, 500)).toBeLessThan(300);
  const refs = (await d.prepare?.(ctx)) ?? {};
  const pathOf = (id: string | undefined) => (idParam && id !== undefined ? { [idParam]: id } : {});

  /** Creates one record: answers its id (undefined for a singleton), the create answer and the request made. */
  const createOne = async (step: 'create' | 'neighbour') => {
    const op = ops.create;
    if (!op) {
      if (!d.existing) throw new Error(`${name}: create is skipped, so the declaration must make a record another way`);
      return { id: await d.existing(refs, ctx), created: undefined, write: undefined, location: undefined };
    }
    const write: Write = d.create ? await d.create(refs, ctx) : { body: exampleBody(op) };
    const answer = await call(step, op, { query: write.query, body: write.body });
    let id: string | undefined;
    const location = answer.headers.get('location') ?? undefined;
    check(step, () => {
      success(answer);
      if (declaresHeader(op, answer.status, 'Location')) expect(location, 'the spec declares a Location header').toBeDefined();
      if (singleton) return;
      const idField = d.idField ?? (isObject(answer.body) && idParam! in answer.body ? idParam! : 'id');
      if (location) {
        // The Location is the item path of the new record: the id comes from it, and the body agrees.
        const template = new RegExp(`^${(op.basePath + item!).replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/, '([^/?#]+)')}$`);
        const match = template.exec(location);
        expect(match, `Location ${location} is not ${op.basePath}${item}`).not.toBeNull();
        id = decodeURIComponent(match![1]!);
        if (isObject(answer.body) && idField in answer.body) expect(answer.body[idField]).toBe(id);
      } else {
        id = answer.body?.[idField];
        expect(typeof id === 'string' && id.length > 0, `the create answer has no ${idField}: ${answer.text.slice(0, 300)}`).toBe(true);
      }
      if (isObject(answer.body)) expect(answer.body).toMatchObject(shownFields(write, answer.body));
    });
    return { id, created: answer, write, location };
  };

  const matches = (entry: any, id: string | undefined) => (d.listMatch ? d.listMatch(entry, id) : isObject(entry) && entry[d.idField ?? (idParam && idParam in entry ? idParam : 'id')] === id);

  /** Every item of the list, page after page (the smallest page the spec allows), following next_offset. */
  const listAll = async (step: ChainStep['step']): Promise<any[]> => {
    const op = ops.list!;
    const pageSize = smallestPage(op);
    const items: any[] = [];
    let offset: number | undefined;
    for (let page = 0; page < 1000; page += 1) {
      const answer = await call(step, op, { query: { ...d.listQuery?.(refs), ...(pageSize && { max_items: pageSize }), ...(offset !== undefined && { offset }) } });
      check(step, () => {
        expect(answer.status).toBe(200);
        expect(Array.isArray(answer.body.items)).toBe(true);
        if (pageSize) expect(answer.body.items.length).toBeLessThanOrEqual(pageSize);
      });
      items.push(...answer.body.items);
      const next = answer.body.next_offset;
      if (next === undefined || next === null || answer.body.is_truncated === false) return items;
      check(step, () => expect(next, 'next_offset moves forward').toBeGreaterThan(offset ?? 0));
      offset = next;
    }
    throw new Error(`${name} › ${step}: the list never ended`);
  };

  /** The record as the API shows it now: its get, or its list item when there is no get. */
  const read = async (step: ChainStep['step'], id: string | undefined, location?: string): Promise<{ body: any; bytes: Buffer }> => {
    if (ops.get) {
      // The Location is followed as handed out when it names the item the get reads.
      const url = location && !singleton && ops.get.path === item ? new URL(location, 'http://x').pathname : undefined;
      const answer = await call(step, ops.get, url ? { url } : { path: pathOf(id) });
      check(step, () => expect(answer.status, answer.text.slice(0, 300)).toBe(200));
      return { body: answer.body, bytes: answer.bytes };
    }
    const found = (await listAll(step)).filter((entry) => matches(entry, id));
    check(step, () => expect(found, 'the list shows the record once').toHaveLength(1));
    return { body: found[0], bytes: Buffer.from(JSON.stringify(found[0])) };
  };

  let neighbour: string | undefined;
  if (ops.list && !singleton) {
    // A second record made first: lists then take several pages, and the delete must leave this one alone.
    neighbour = (await createOne('neighbour')).id;
    await ctx.settle();
  }

  // create → get: the record reads back as it was created.
  const { id, created, write, location } = await createOne('create');
  let latest = await read('get', id, location);
  check('get', () => {
    if (Buffer.isBuffer(write?.body) && latest.body === undefined) {
      // A record read back as an archive: the exact bytes uploaded.
      expect(latest.bytes.equals(write.body as Buffer), 'the archive read back is the one uploaded').toBe(true);
      return;
    }
    if (isObject(created?.body) && !singleton) {
      for (const [key, value] of Object.entries(created.body)) {
        if (d.createOnly?.[key]) continue;
        expect(latest.body?.[key], `field ${key}`).toEqual(value);
      }
    }
    if (write) expect(latest.body).toMatchObject(shownFields(write, latest.body));
  });

  // The background work the create queued runs; the record then shows its outcome.
  await ctx.settle();
  if (d.afterJobs) {
    latest = await read('read after jobs', id);
    check('read after jobs', () => expect(latest.body).toMatchObject(d.afterJobs!));
  }

  // update → get shows the change.
  if (ops.update) {
    const change: Write = d.update ? await d.update(refs, id, ctx) : { body: exampleBody(ops.update) };
    const answer = await call('update', ops.update, { path: pathOf(id), query: change.query, body: change.body });
    check('update', () => success(answer));
    await ctx.settle();
    latest = await read('get', id);
    check('update', () => {
      if (Buffer.isBuffer(change.body) && latest.body === undefined) expect(latest.bytes.equals(change.body as Buffer), 'the archive read back is the new one').toBe(true);
      else expect(latest.body).toMatchObject(shownFields(change, latest.body));
    });
  }

  // list: every page together holds the record once, as the get shows it, and the neighbour.
  if (ops.list) {
    const items = await listAll('list');
    const found = items.filter((entry) => matches(entry, id));
    check('list', () => {
      if (singleton) {
        expect(found.length, 'the list shows what the record holds').toBeGreaterThan(0);
        return;
      }
      expect(found, `the list shows ${id} once`).toHaveLength(1);
      if (neighbour !== undefined) expect(items.filter((entry) => matches(entry, neighbour)), 'the list shows the neighbour').toHaveLength(1);
      if (isObject(latest.body)) {
        for (const [key, value] of Object.entries(found[0])) if (key in latest.body) expect(value, `list field ${key}`).toEqual(latest.body[key]);
      }
    });
  }

  // delete → get 404, gone from the list, the neighbour still there; deleting again is 404 too.
  if (ops.delete) {
    const answer = await call('delete', ops.delete, { path: pathOf(id) });
    check('delete', () => success(answer));
    await ctx.settle();
    if (ops.get) {
      const gone = await call('get after delete', ops.get, { path: pathOf(id) });
      check('get after delete', () => expect(gone.status).toBe(404));
    }
    if (ops.list) {
      const items = await listAll('list after delete');
      check('list after delete', () => {
        expect(items.filter((entry) => matches(entry, id)), 'the list no longer shows the record').toEqual([]);
        if (neighbour !== undefined) expect(items.filter((entry) => matches(entry, neighbour)), 'the neighbour is still listed').toHaveLength(1);
      });
    }
    if (ops.delete.statuses.includes('404')) {
      const again = await call('delete again', ops.delete, { path: pathOf(id) });
      check('delete again', () => expect(again.status).toBe(404));
    }
  }
  return report;
}
