import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, it } from '@jest/globals';
import { CompiledRowStatement } from './compiled-rows.js';
import { expect } from '../../test/expect.js';

/** Rows built by the compiled row builder are the objects better-sqlite3 builds itself, key for key, in order. */
describe('compiled rows', () => {
  const sqlite = new SqliteDatabase(':memory:');
  sqlite.exec(`create table t (id text, n integer, f real, b blob, j text, z text);
    insert into t values ('a', 1, 1.5, x'00ff', '["x"]', null), ('b', 9007199254740991, -0.25, null, '{}', 'é☃𝄞');`);
  afterAll(() => {
    sqlite.close();
  });

  const both = (sql: string) => ({ compiled: new CompiledRowStatement(sqlite.prepare(sql)), plain: sqlite.prepare(sql) });

  it('gives every row as better-sqlite3 would, types and key order included', () => {
    const { compiled, plain } = both('select * from t order by id');
    const rows = compiled.all([]);
    expect(rows).toEqual(plain.all());
    expect(rows.map((row) => Object.keys(row as object))).toEqual(plain.all().map((row) => Object.keys(row as object)));
  });

  it('lets the last of two equal column names win, in the place of the first', () => {
    const { compiled, plain } = both("select id as k, n, 'later' as k from t order by id");
    expect(compiled.all([])).toEqual(plain.all());
    expect(Object.keys(compiled.all([])[0] as object)).toEqual(Object.keys(plain.all()[0] as object));
  });

  it('binds parameters and iterates as a plain statement does', () => {
    const { compiled, plain } = both('select id, n from t where n > ? order by id');
    expect([...compiled.iterate([0])]).toEqual(plain.all(0));
    expect(compiled.busy).toBe(false);
  });

  it('runs statements that return no rows', () => {
    const compiled = new CompiledRowStatement(sqlite.prepare("insert into t (id) values ('c')"));
    expect(compiled.reader).toBe(false);
    expect(compiled.run([]).changes).toBe(1);
  });

  it('leaves a column named __proto__ to better-sqlite3', () => {
    const { compiled, plain } = both('select id as __proto__ from t order by id');
    expect(compiled.all([])).toEqual(plain.all());
  });
});
