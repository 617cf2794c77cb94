// Bundles src/main.ts into dist/app.js with esbuild and copies the static files (index.html,
// app.css) beside it: dist/ is what `pref serve` serves at `/`. `--watch` rebuilds on change.
import { build, context } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
const watch = process.argv.includes('--watch');

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
for (const file of ['index.html', 'app.css']) copyFileSync(join(here, 'static', file), join(dist, file));

const options = {
  entryPoints: [join(here, 'src', 'main.ts')],
  outfile: join(dist, 'app.js'),
  bundle: true,
  format: 'esm',
  target: ['es2022'],
  minify: !watch,
  sourcemap: true,
  legalComments: 'linked',
  logLevel: watch ? 'info' : 'warning',
};

if (watch) {
  const ctx = await context(options);
  await ctx.watch();
} else {
  await build(options);
}
