// One concurrent writer of bench/aggregate.ts --writers N: ingests the files listed in a file
// (one path a line) into the PostgreSQL store at URL through the real ingest path, then prints
// its report as JSON. Not a test; started only by the benchmark.
import { readFileSync } from 'node:fs';
import { ingestFiles } from '../src/bundle/ingest.js';
import { openPostgresStore } from '../src/store/postgres-store.js';

const [url, listFile] = process.argv.slice(2);
const files = readFileSync(listFile!, 'utf8').split('\n').filter(Boolean);
const store = await openPostgresStore(url!, 'bench', { poolSize: 2 });
const cpu0 = process.cpuUsage();
const report = await ingestFiles(store, files);
const cpu = process.cpuUsage(cpu0);
await store.close();
process.stdout.write(
  JSON.stringify({
    added: report.added,
    duplicates: report.duplicates,
    cpuS: (cpu.user + cpu.system) / 1e6,
  }),
);
