// Runs the page's unit tests (test/*.test.ts) with Node's test runner: esbuild bundles each
// file for Node into .test-build/ (the code under test is TypeScript), then `node --test`.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '.test-build');
rmSync(out, { recursive: true, force: true });
const entries = readdirSync(join(here, 'test'))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => join(here, 'test', f));
await build({
  entryPoints: entries,
  outdir: out,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: ['node18'],
  logLevel: 'warning',
});
const files = readdirSync(out).filter((f) => f.endsWith('.mjs')).map((f) => join(out, f));
const run = spawnSync(process.execPath, ['--test', ...files], { stdio: 'inherit' });
process.exit(run.status ?? 1);
