import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryId, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

/**
 * Faults for provoking the 500 and the 503 every operation declares, through the product's real error path: whatever
 * a handler or the store throws becomes the one internal error, answered with the API's 500 body and logged, never
 * shown to the caller — unless the driver's error says the database cannot serve now, which becomes the 503 with
 * Retry-After.
 */

/** Appears in every injected error's message: the 500 body must not carry it (the server log does). */
export const FAULT_MARKER = 'injected-fault-7f3a9c';

/**
 * A database that stops answering: while armed, every query the services send fails the way a lost connection
 * does. A query builder plugin, so it sits under every repository and transaction. A query built while armed is
 * refused before it reaches the database; one compiled before and run while armed (a prepared read, compiled once:
 * server/src/storage/prepared.ts) when its answer comes back, which its caller cannot tell apart.
 */
export class DatabaseOutage implements KyselyPlugin {
  private armed = false;
  private effect: FaultEffect = 'fails';
  /** The kind of each query compiled, for refusing it when it runs later. */
  private readonly kinds = new WeakMap<QueryId, string>();
  /** The kinds of the queries refused since the outage began (SelectQueryNode, InsertQueryNode, RawNode, …). */
  readonly refused: string[] = [];

  begin(effect: FaultEffect = 'fails'): void {
    this.armed = true;
    this.effect = effect;
    this.refused.length = 0;
  }

  end(): void {
    this.armed = false;
  }

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    if (this.armed) this.refuse(node.kind);
    this.kinds.set(queryId, node.kind);
    return node;
  }

  async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.armed) this.refuse(this.kinds.get(queryId) ?? 'query');
    return result;
  }

  private refuse(kind: string): never {
    this.refused.push(kind);
    throw faultError(this.effect, `connection to the database lost while sending a ${kind} (${FAULT_MARKER})`);
  }
}

/** `database`: the store fails under the handler; `handler`: the handler fails (operations that read no database). */
export type FaultKind = 'database' | 'handler';

/**
 * `fails`: an error the driver gives no code (the server's 500); `unavailable`: PostgreSQL's 57P01 "terminating
 * connection due to administrator command", what a stopping database sends (the server's 503).
 */
export type FaultEffect = 'fails' | 'unavailable';

function faultError(effect: FaultEffect, message: string): Error {
  const error = new Error(message);
  if (effect === 'unavailable') Object.assign(error, { code: '57P01' });
  return error;
}

/**
 * Arms one fault for the next call of one operation. The outage begins only once that call reaches its handler,
 * so the caller has been authenticated and authorized against a working database; `settle()` ends it.
 */
export class FaultInjector {
  readonly outage = new DatabaseOutage();
  private next: { api: string; operationId: string; kind: FaultKind; effect: FaultEffect } | undefined;

  arm(api: string, operationId: string, kind: FaultKind, effect: FaultEffect = 'fails'): void {
    this.next = { api, operationId, kind, effect };
  }

  /** Ends the outage; true when the armed fault was used. */
  settle(): boolean {
    const used = this.next === undefined;
    this.next = undefined;
    this.outage.end();
    return used;
  }

  /** The app's `beforeHandler`. */
  readonly beforeHandler = (api: string, operationId: string): void => {
    const next = this.next;
    if (!next || next.api !== api || next.operationId !== operationId) return;
    this.next = undefined;
    if (next.kind === 'handler') throw faultError(next.effect, `handler of ${operationId} failed (${FAULT_MARKER})`);
    this.outage.begin(next.effect);
  };
}
