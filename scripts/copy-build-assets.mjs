// Part of `npm run build`: copies what tsc does not emit into dist/ — the signing page's static files, the stores'
// SQL migrations, and the
// test PKI for `paraph/testing` (public keys and private keys that are test material, never to be trusted) — and
// marks the CLI executable: tsc writes it 0644, and `npx paraph` in a clone runs dist/cli.js directly (only an
// install into node_modules sets the bin's mode), so a rebuild (`npm pack`, `npm run build`) left it "Permission denied".
import { chmodSync, cpSync, readdirSync, rmSync } from 'node:fs';

chmodSync('dist/cli.js', 0o755);

cpSync('src/http/sign-page', 'dist/http/sign-page', { recursive: true });
cpSync('src/store/sql', 'dist/store/sql', { recursive: true });
rmSync('dist/testing/test-pki-material', { recursive: true, force: true });
for (const name of readdirSync('fixtures/pki')) {
  if (/\.(pem|p12|md)$/.test(name)) cpSync(`fixtures/pki/${name}`, `dist/testing/test-pki-material/${name}`);
}
