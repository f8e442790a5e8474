import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/*
 * Building a query with Kysely and compiling it to SQL took ~10 µs of a ~30 µs point lookup, on every request.
 * A prepared query is built and compiled once, with a placeholder standing for each argument; a run puts the
 * arguments where their placeholders ended up among the compiled parameters and hands Kysely the finished
 * query, which it runs as any other (the same connection and transactions). On SQLite the SQL text then
 * also finds its prepared statement in the statement cache, and the read runs at once when no query or transaction
 * holds the connection (database.ts).
 */

/**
 * Runs a compiled read at once and answers its rows, or undefined when it cannot now (then the query goes through
 * Kysely). SQLite registers one (database.ts): its reads complete synchronously anyway, so skipping the executor,
 * the connection mutex and their promises changes nothing but the time taken.
 */
export type DirectRead = (sql: string, parameters: ReadonlyArray<unknown>) => unknown[] | undefined;

const directReads = new WeakMap<object, DirectRead>();

/** How `db` runs a prepared query's read directly, when it can. */
export function readDirectly(db: object, read: DirectRead): void {
  directReads.set(db, read);
}

/** Stands, while the query is compiled, for the argument `name` of later runs. */
class Placeholder {
  constructor(readonly name: string) {}
}

export interface PreparedQuery<Args, Row> {
  /** Every row the query answers with these arguments. */
  rows(args: Args): Promise<Row[]>;
  /** The first row the query answers with these arguments, if any. */
  first(args: Args): Promise<Row | undefined>;
}

/**
 * A query compiled once from `build`, which receives placeholders for its arguments. The arguments may only be
 * compared or assigned as values (a column equal to one, a limit): a placeholder used any other way — spread into
 * a list, as a column name, in arithmetic — is refused when the query is first compiled.
 */
export function prepareQuery<DB, Args extends Record<string, string | number | null>, Row>(
  db: Kysely<DB>,
  build: (args: Args) => Compilable<Row>,
): PreparedQuery<Args, Row> {
  let compiled: { query: CompiledQuery<Row>; slots: Array<keyof Args | undefined> } | undefined;

  const compile = () => {
    const used = new Set<string>();
    const placeholders = new Proxy({} as Args, {
      get: (_target, name) => {
        used.add(String(name));
        return new Placeholder(String(name));
      },
    });
    const query = build(placeholders).compile();
    const slots = query.parameters.map((parameter) => (parameter instanceof Placeholder ? (parameter.name as keyof Args) : undefined));
    const placed = new Set(slots.filter((slot) => slot !== undefined));
    const misplaced = [...used].filter((name) => !placed.has(name));
    if (misplaced.length > 0) throw new Error(`prepared query: ${misplaced.join(', ')} not used as a value in ${query.sql}`);
    return (compiled = { query, slots });
  };

  // Registered for the query builder openDatabase made; one with plugins (`withPlugin`) is another Kysely, without.
  const direct = directReads.get(db);
  /*
   * The same path with plugins or without: Kysely offers no public way to ask a builder for its plugins, and tests
   * that install some should watch the path production takes. A plugin sees the query's tree once, when it is
   * compiled (`transformQuery`), and every run's result (`transformResult`, which `db.executeQuery` applies to any
   * compiled query); direct reads are only the unplugged builder's. So a plugin that counts or refuses queries
   * keeps what it learns of each compiled query by its `queryId` and acts on each result (as
   * contract-tests/statuses/faults.ts and server/test/api-client-cache.test.ts do).
   */
  const run = async (args: Args): Promise<Row[]> => {
    const { query, slots } = compiled ?? compile();
    const parameters = query.parameters.map((parameter, i) => {
      const slot = slots[i];
      return slot === undefined ? parameter : args[slot];
    });
    const rows = direct?.(query.sql, parameters) as Row[] | undefined;
    return rows ?? (await db.executeQuery<Row>({ ...query, parameters })).rows;
  };

  return {
    rows: run,
    first: async (args) => (await run(args))[0],
  };
}
