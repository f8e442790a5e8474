import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What to run on a file: databases to attach first (by schema name), then statements, in one transaction. */
export interface SqliteBuild {
  attach?: Record<string, string>;
  statements: readonly string[];
}

/**
 * Runs SQL on an SQLite file (not one the server has open) in a thread of its own, so that filling it with a large
 * data set holds no request up: better-sqlite3 answers synchronously, and one INSERT … SELECT of a few hundred
 * thousand rows takes seconds. The file is a copy being prepared, thrown away if this fails, so it is written without
 * a journal and without waiting for the disk. Like the checkpoints' thread (database.ts), the thread is plain
 * JavaScript evaluated in place, so it starts the same from source and from the build.
 */
export function buildSqliteFile(file: string, build: SqliteBuild): Promise<void> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const Database = require(workerData.driver);
     const db = new Database(workerData.file, { fileMustExist: true });
     try {
       db.pragma('journal_mode = OFF');
       db.pragma('synchronous = OFF');
       for (const [schema, path] of Object.entries(workerData.attach)) db.prepare('ATTACH DATABASE ? AS "' + schema + '"').run(path);
       db.exec('BEGIN');
       for (const [i, statement] of workerData.statements.entries()) {
         try {
           db.exec(statement);
         } catch (error) {
           // Said again as a plain Error: what crosses back from the thread keeps only an Error's message.
           throw new Error('statement ' + (i + 1) + ': ' + error.code + ': ' + error.message);
         }
       }
       db.exec('COMMIT');
       for (const schema of Object.keys(workerData.attach)) db.exec('DETACH DATABASE "' + schema + '"');
     } finally {
       db.close();
     }`,
    { eval: true, workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file, attach: build.attach ?? {}, statements: build.statements } },
  );
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`building ${file} stopped with exit code ${code}`))));
  });
}
