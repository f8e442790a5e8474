import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { adminQuery, databaseUrl } from './postgres.js';

const run = promisify(execFile);
const POSTGRES_URL = process.env.TEST_DATABASE_URL;

/** A database the servers under test share, and a program outside this codebase that writes to it. */
export interface OutsideDatabase {
  name: string;
  available: boolean;
  /** The servers' DATABASE_URL, made in `dir`. */
  setUp(dir: string): Promise<string>;
  /** Runs one SQL statement through a connection of another program. */
  write(statement: string): Promise<void>;
  tearDown(): Promise<void>;
}

/**
 * A SQLite file written by Python's sqlite3 module, and a PostgreSQL database of its own (named after `prefix`)
 * written by psql (available when TEST_DATABASE_URL is set).
 */
export function outsideDatabases(prefix: string): OutsideDatabase[] {
  let sqliteFile = '';
  let postgresDatabase = '';
  return [
    {
      name: 'a SQLite file written by Python',
      available: true,
      setUp: async (dir) => {
        sqliteFile = join(dir, 'app.db');
        return `sqlite:${sqliteFile}`;
      },
      write: async (statement) => {
        const script = 'import sqlite3, sys\nc = sqlite3.connect(sys.argv[1], timeout=10)\nc.execute(sys.argv[2])\nc.commit()\n';
        await run('python3', ['-c', script, sqliteFile, statement]);
      },
      tearDown: async () => {},
    },
    {
      name: 'PostgreSQL written by psql',
      available: Boolean(POSTGRES_URL),
      setUp: async () => {
        postgresDatabase = `${prefix}_${randomBytes(6).toString('hex')}`;
        await adminQuery(POSTGRES_URL!, `create database ${postgresDatabase}`);
        return databaseUrl(POSTGRES_URL!, postgresDatabase);
      },
      write: async (statement) => {
        await run('psql', ['--no-psqlrc', '--quiet', '--set', 'ON_ERROR_STOP=1', '--command', statement, databaseUrl(POSTGRES_URL!, postgresDatabase)]);
      },
      tearDown: async () => adminQuery(POSTGRES_URL!, `drop database if exists ${postgresDatabase} with (force)`),
    },
  ];
}
