import pg from 'pg';

/** Runs one statement on its own connection: creating and dropping the schemas and databases tests run in. */
export async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
