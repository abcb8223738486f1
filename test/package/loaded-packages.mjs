// `node loaded-packages.mjs <specifier> [import|require]`, run inside a consumer project: loads one entry point and
// prints, as a JSON array, the npm packages loading it brought into the process. Two views together: every module
// ES module resolution saw (a resolve hook on Node's hooks thread appends each URL to a file synchronously, so the
// file is complete when the import returns) and every CommonJS module in require's cache (what packages load of
// each other with `require`, which ES module hooks do not see on every Node).
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [specifier, how = 'import'] = process.argv.slice(2);
if (specifier === undefined) throw new Error('usage: node loaded-packages.mjs <specifier> [import|require]');
const dir = mkdtempSync(join(tmpdir(), 'loaded-packages-'));
const log = join(dir, 'resolved.log');
appendFileSync(log, '');
const hooks = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { log } });
const require = createRequire(import.meta.url);
if (how === 'require') require(specifier);
else await import(specifier);

const files = [...readFileSync(log, 'utf8').split('\n'), ...Object.keys(require.cache)];
rmSync(dir, { recursive: true, force: true });
const packages = new Set();
for (const file of files) {
  const parts = decodeURIComponent(file).split(/[\\/]/);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) continue;
  const name = parts[at + 1].startsWith('@') ? `${parts[at + 1]}/${parts[at + 2]}` : parts[at + 1];
  packages.add(name);
}
console.log(JSON.stringify([...packages].sort()));
