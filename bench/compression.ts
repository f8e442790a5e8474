import { load, WRK } from './load.js';
import { pinLoadGenerator, startBenchServer } from './setup.js';

/**
 * `make bench`, compressed answers: the page of up to 1 000 results of a scan (`compliance_by_rules?max_items=1000`,
 * an environment of every family, so every rule of the catalog) under
 * load, asked without Accept-Encoding (answered as it is) and with `Accept-Encoding: gzip, br` (answered compressed):
 * bytes on the wire per answer and requests a second, side by side in one run. Prints; never a pass/fail test.
 * BENCH_SECONDS (default 10) and BENCH_WARMUP (default 3) as for bench/http.ts.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = 10;

async function main(): Promise<void> {
  await pinLoadGenerator();
  const bench = await startBenchServer();
  try {
    const { headers } = bench.cases.one;
    // An environment of every compliance family (the bench's others have two), so that the page is as full as the
    // catalog makes it.
    const created = await fetch(`${bench.base}/v0/environments`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'bench-compression',
        provider: 'provider_a',
        provider_options: { provider_a: { role_arn: 'arn:prova:iam::100000000000:role/scanner', regions: ['us-east-1', 'eu-west-1'] } },
      }),
    });
    if (created.status !== 201) throw new Error(`creating the environment: ${created.status} ${await created.text()}`);
    const environmentId = ((await created.json()) as { id: string }).id;
    const started = await fetch(`${bench.base}/v0/scans?environment_id=${environmentId}`, { method: 'POST', headers });
    if (started.status !== 201) throw new Error(`starting a scan: ${started.status} ${await started.text()}`);
    const scanId = ((await started.json()) as { id: string }).id;
    for (let waited = 0; ; waited += 200) {
      const scan = (await (await fetch(`${bench.base}/v0/scans/${scanId}`, { headers })).json()) as { status: string };
      if (scan.status === 'SUCCESS') break;
      if (scan.status !== 'IN_PROGRESS' || waited > 120_000) throw new Error(`the scan ended ${scan.status}, or did not end within 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const url = `${bench.base}/v0/scans/${scanId}/compliance_by_rules?max_items=1000`;
    const plain = await (await fetch(url, { headers })).arrayBuffer();
    const plainBytes = plain.byteLength;
    const items = (JSON.parse(Buffer.from(plain).toString('utf8')) as { items: unknown[] }).items.length;
    console.log(`load generator: ${WRK ? 'wrk, one thread' : 'autocannon'}; ${CONNECTIONS} connections, ${SECONDS} s per measurement after ${WARMUP} s of warm-up`);
    console.log(`GET compliance_by_rules?max_items=1000: ${items} results, every rule of every family (${plainBytes} bytes of JSON)`);
    console.log(`${'asked'.padEnd(34)}${'req/s'.padStart(8)}${'bytes/answer'.padStart(14)}${'p99 ms'.padStart(9)}`);
    const rows: Array<[string, Record<string, string>]> = [
      ['without Accept-Encoding', headers],
      ['Accept-Encoding: gzip', { ...headers, 'Accept-Encoding': 'gzip' }],
      ['Accept-Encoding: gzip, br', { ...headers, 'Accept-Encoding': 'gzip, br' }],
    ];
    for (const [title, sent] of rows) {
      await load(url, CONNECTIONS, WARMUP, sent);
      const measured = await load(url, CONNECTIONS, SECONDS, sent);
      if (measured.non2xx > 0) throw new Error(`${title}: ${measured.non2xx} answers were not 2xx`);
      console.log(`${title.padEnd(34)}${measured.requestsPerSecond.toFixed(0).padStart(8)}${measured.bytesPerAnswer.toFixed(0).padStart(14)}${measured.p99.toFixed(1).padStart(9)}`);
    }
  } finally {
    await bench.stop();
  }
}

await main();
