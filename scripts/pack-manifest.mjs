// `npm pack` / `npm publish` (prepack and postpack): the published package.json carries no scripts. The clone's
// scripts (the `prepare` that makes `npm ci` build dist/, `start`, `test`…) run src/ and dev tools a consumer does
// not have, and a lifecycle script in a published manifest is one more thing an installer has to trust.
// `strip` keeps the clone's package.json in .package.json.pack-backup and writes the published one; `restore` puts
// the clone's back (npm runs postpack from the manifest it read before prepack, so it runs although stripped).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const BACKUP = '.package.json.pack-backup';
const command = process.argv[2];

if (command === 'strip') {
  // A backup left by a pack that failed before its postpack is the clone's manifest: never overwrite it.
  if (!existsSync(BACKUP)) writeFileSync(BACKUP, readFileSync('package.json'));
  const manifest = JSON.parse(readFileSync(BACKUP, 'utf8'));
  delete manifest.scripts;
  delete manifest.devDependencies;
  delete manifest.allowScripts;
  writeFileSync('package.json', `${JSON.stringify(manifest, null, 2)}\n`);
} else if (command === 'restore') {
  if (existsSync(BACKUP)) renameSync(BACKUP, 'package.json');
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exit(2);
}
