/**
 * paraph as a dependency: the project is packed with `npm pack` and the tarball installed with `--ignore-scripts`
 * into a fresh project. There, a strict `nodenext` TypeScript consumer without the DOM lib type-checks against the
 * published types (`skipLibCheck: false`) and runs placement, signing with a software key, verification and a sealed
 * receipt through the entry points per layer; the features that need an optional peer that is not installed
 * (pkcs11js, better-sqlite3, smtp-server) fail with an error naming the package; every entry point works with
 * `require`; only `paraph/server` loads the service's packages; the installed `paraph` bin places fields (and on
 * Node ≥ 22.1 shares Node's compile cache with its text threads); and the tarball holds a LICENSE, no source maps,
 * no scripts, and test keys only under `paraph/testing`'s folder. Runs on whichever Node runs the suite (CI runs it
 * on 20, 22 and 24).
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_DOCUMENT_BYTES } from '../../src/cli/place.js';
import { generatePdf } from '../../src/testing/generate-pdf.js';
import { opensslCmsVerify, pdfsigCheck, qpdfCheck } from '../helpers/external-tools.js';
import { installConsumer, packParaph, PROJECT_ROOT, runCommand, type ConsumerProject, type PackedTarball } from './consumer-project.js';
import { CONSUMER_CJS, CONSUMER_TS, CONSUMER_TSCONFIG } from './consumer-sources.js';

let work: string;
let tarball: PackedTarball;
let consumer: ConsumerProject;
let manifestBeforePack: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'paraph-package-'));
  manifestBeforePack = await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8');
  tarball = await packParaph(work);
  consumer = await installConsumer(tarball.path, join(work, 'consumer'), { ignoreScripts: true });
  await writeFile(join(consumer.dir, 'tsconfig.json'), JSON.stringify(CONSUMER_TSCONFIG, null, 2));
  await writeFile(join(consumer.dir, 'consumer.ts'), CONSUMER_TS);
  await writeFile(join(consumer.dir, 'consumer.cjs'), CONSUMER_CJS);
  await copyFile(join(PROJECT_ROOT, 'test/package/loaded-packages.mjs'), join(consumer.dir, 'loaded-packages.mjs'));
}, 900_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('ships a LICENSE with the Apache-2.0 text, no source maps, and test keys only under dist/testing/test-pki-material', async () => {
    expect(tarball.files).toContain('LICENSE');
    expect(await readFile(join(consumer.dir, 'node_modules/paraph/LICENSE'), 'utf8')).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(tarball.files.filter((f) => f.endsWith('.map'))).toEqual([]);
    const keyMaterial = tarball.files.filter((f) => /\.(key\.pem|p12)$/.test(f) || /PRIVATE KEY/.test(f));
    expect(keyMaterial.length).toBeGreaterThan(0);
    expect(keyMaterial.filter((f) => !f.startsWith('dist/testing/test-pki-material/'))).toEqual([]);
    expect(tarball.files.some((f) => f.startsWith('fixtures/'))).toBe(false);
    // The stores read their numbered migrations from beside the compiled store.
    expect(tarball.files).toContain('dist/store/sql/sqlite/0001_initial.sql');
    expect(tarball.files).toContain('dist/store/sql/postgres/0001_initial.sql');
  });

  it('brings no native addon: pkcs11js and better-sqlite3 are optional peers, not installed with paraph', async () => {
    const manifest = JSON.parse(await readFile(join(consumer.dir, 'node_modules/paraph/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    for (const addon of ['pkcs11js', 'better-sqlite3']) {
      expect(manifest.dependencies[addon], addon).toBeUndefined();
      expect(manifest.peerDependenciesMeta[addon]?.optional, addon).toBe(true);
    }
    const present = await runCommand('ls', ['node_modules'], { cwd: consumer.dir });
    expect(present.stdout.split('\n')).not.toContain('pkcs11js');
    expect(present.stdout.split('\n')).not.toContain('better-sqlite3');
  });

  it('publishes no scripts (no prepare, no install scripts), and packing leaves the clone\'s package.json as it was', async () => {
    const manifest = JSON.parse(await readFile(join(consumer.dir, 'node_modules/paraph/package.json'), 'utf8')) as { scripts?: unknown };
    expect(manifest.scripts).toBeUndefined();
    // The clone keeps its scripts: `npm ci` there builds dist/ (prepare).
    const own = await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8');
    expect(own).toBe(manifestBeforePack);
    expect((JSON.parse(own) as { scripts: Record<string, string> }).scripts.prepare).toBe('npm run build');
    expect((await readdir(PROJECT_ROOT)).filter((name) => name.startsWith('.package.json'))).toEqual([]);
  });

  it('gives the consumer no dependency whose engines exclude a supported Node (20.19, 22, 24)', async () => {
    const listed = await runCommand('npm', ['ls', '--all', '--json', '--long', '--omit=dev'], { cwd: consumer.dir });
    const excluded: string[] = [];
    const walk = (deps: Record<string, { version?: string; engines?: { node?: string }; dependencies?: Record<string, unknown> }> | undefined): void => {
      for (const [name, info] of Object.entries(deps ?? {})) {
        const range = info.engines?.node;
        if (range !== undefined) {
          for (const node of ['20.19.0', '22.12.0', '24.0.0']) if (!semver.satisfies(node, range)) excluded.push(`${name}@${info.version}: node ${range} excludes ${node}`);
        }
        walk(info.dependencies as typeof deps);
      }
    };
    walk((JSON.parse(listed.stdout) as { dependencies?: Parameters<typeof walk>[0] }).dependencies?.paraph?.dependencies as Parameters<typeof walk>[0]);
    expect([...new Set(excluded)]).toEqual([]);
  });
});

describe('a consumer project', () => {
  it('type-checks against the published types under strict nodenext without the DOM lib (skipLibCheck false)', async () => {
    const tsc = await runCommand(process.execPath, [join(consumer.dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: consumer.dir });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.exitCode).toBe(0);
  }, 300_000);

  it('places, signs with a software key, verifies and builds a sealed receipt; missing addons and peers fail naming the package', async () => {
    const run = await runCommand(process.execPath, ['out/consumer.js'], { cwd: consumer.dir });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    const result = JSON.parse(run.stdout) as {
      sameFunctionsFromEntryPoints: boolean;
      fields: string[];
      signatures: { valid: boolean; level: string }[];
      receiptOk: boolean;
      errors: Record<string, string>;
    };
    expect(result.sameFunctionsFromEntryPoints).toBe(true);
    expect(result.fields).toEqual(['main.Signature']);
    expect(result.signatures).toEqual([{ valid: true, level: 'B-B' }]);
    expect(result.receiptOk).toBe(true);
    expect(result.errors).toMatchObject({
      pkcs11: 'OPTIONAL_DEPENDENCY_MISSING pkcs11js',
      store: 'OPTIONAL_DEPENDENCY_MISSING better-sqlite3',
      smtpSink: 'OPTIONAL_DEPENDENCY_MISSING',
      emptyPostbackSecret: 'POSTBACK_SECRET_MISSING',
      damagedPdf: 'PDF_UNREADABLE',
    });
    expect(result.errors.metadataAsBytes).toMatch(/^INVALID_FILE_METADATA 1: FileMetaData: must be a JSON object \(got bytes/);

    for (const name of ['signed.pdf', 'receipt.pdf']) {
      const bytes = new Uint8Array(await readFile(join(consumer.dir, name)));
      expect((await qpdfCheck(bytes)).ok, name).toBe(true);
      const pdfsig = await pdfsigCheck(bytes);
      expect(pdfsig.signatures.length, name).toBe(1);
      expect(pdfsig.signatures.every((s) => s.totalDocumentSigned), name).toBe(true);
      const root = await readFile(join(consumer.dir, 'node_modules/paraph/dist/testing/test-pki-material/root-ca.pem'), 'utf8');
      expect((await opensslCmsVerify(bytes, 0, root)).ok, name).toBe(true);
    }
  }, 300_000);

  it('require works for every entry point (require(esm))', async () => {
    const run = await runCommand(process.execPath, ['consumer.cjs'], { cwd: consumer.dir });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      signPdf: 'function',
      placeFieldsFromMetadata: 'function',
      verifyPdf: 'function',
      buildReceipt: 'function',
      paraphPlugin: 'function',
      generatePdf: 'function',
    });
  }, 60_000);

  it('uses paraph/testing without fast-check: only asking for an arbitrary needs it, and then the error names it', async () => {
    const script = `
      const testing = await import('paraph/testing');
      const { bytes } = await testing.generatePdf({ seed: 1, pages: 1 });
      let arbitrary = 'no error';
      try { testing.fileMetaData(); } catch (error) { arbitrary = \`\${error.code}: \${error.message}\`; }
      const required = (await import('node:module')).createRequire(import.meta.url)('paraph/testing');
      console.log(JSON.stringify({ pdf: bytes.length > 0, arbitrary, required: typeof required.testPki }));
    `;
    const installed = join(consumer.dir, 'node_modules/fast-check');
    const hidden = join(consumer.dir, 'node_modules/.fast-check-hidden');
    await rename(installed, hidden);
    try {
      const run = await runCommand(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer.dir });
      expect(run.exitCode, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as { pdf: boolean; arbitrary: string; required: string };
      expect(result.pdf).toBe(true);
      expect(result.required).toBe('function');
      expect(result.arbitrary).toMatch(/^OPTIONAL_DEPENDENCY_MISSING: .*"fast-check".*npm install --save-dev fast-check/);
    } finally {
      await rename(hidden, installed);
    }
  }, 60_000);

  it('loads the service (fastify, its plugins, the mailer, the database drivers) only through paraph/server', async () => {
    const SERVICE_PACKAGES = ['fastify', '@fastify/helmet', '@fastify/swagger', '@fastify/swagger-ui', 'nodemailer', 'pg', 'graphile-worker', 'typebox'];
    const loaded = async (specifier: string, how: 'import' | 'require'): Promise<string[]> => {
      const run = await runCommand(process.execPath, ['loaded-packages.mjs', specifier, how], { cwd: consumer.dir });
      expect(run.exitCode, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as string[];
    };
    for (const how of ['import', 'require'] as const) {
      for (const specifier of ['paraph', 'paraph/pdf', 'paraph/pades', 'paraph/receipt']) {
        const packages = await loaded(specifier, how);
        expect(packages, `${how} ${specifier}`).toContain('pdf-lib');
        expect(packages.filter((name) => SERVICE_PACKAGES.includes(name)), `${how} ${specifier}`).toEqual([]);
      }
      // The same check sees the service where it is loaded.
      expect(await loaded('paraph/server', how)).toEqual(expect.arrayContaining(['fastify', '@fastify/swagger']));
    }
    // Placing fields needs neither the signing nor the certificate libraries.
    expect((await loaded('paraph/pdf', 'import')).filter((name) => ['pkijs', 'asn1js', 'node-forge'].includes(name))).toEqual([]);
  }, 120_000);

  it('runs `paraph place` from the bin; on Node ≥ 22.1 the command and its text threads keep their compiled code in the compile cache', async () => {
    // 400 pages (~200 KB) is over the size the CLI reads in its own thread: the text is extracted in worker threads.
    const { bytes } = await generatePdf({ seed: 14, pages: 400, anchorsPerPage: 1 });
    expect(bytes.length).toBeGreaterThan(SMALL_DOCUMENT_BYTES);
    await writeFile(join(work, 'many.pdf'), bytes);
    await writeFile(join(work, 'many.json'), JSON.stringify({ FormSets: { f: { s: { Type: 'Signature', Location: { Search: '{{', Width: 2, Height: 2 } } } } }));
    const home = join(work, 'tmp-home');
    await mkdir(home);
    const bin = join(consumer.dir, 'node_modules/paraph/dist/cli.js');
    const env = { ...process.env, TMPDIR: home, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined };
    const run = await runCommand(process.execPath, [bin, 'place', join(work, 'many.pdf'), join(work, 'many.json'), '-o', join(work, 'many-out.pdf')], { cwd: consumer.dir, env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^placed 1 field \(\d+ widgets\)/);

    const cached = await cachedModules(join(home, 'node-compile-cache'));
    if (typeof (module as { enableCompileCache?: unknown }).enableCompileCache !== 'function') {
      expect(cached).toEqual([]);
      return;
    }
    expect(cached.some((text) => text.includes('dist/cli/place.js'))).toBe(true);
    expect(cached.some((text) => text.includes('dist/pdf/text-index/pdfium-worker.js'))).toBe(true);
  }, 120_000);

  it('is the package the repository describes', async () => {
    const installed = JSON.parse(await readFile(join(consumer.dir, 'node_modules/paraph/package.json'), 'utf8')) as { version: string; engines: { node: string } };
    const own = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string; engines: { node: string } };
    expect(installed.version).toBe(own.version);
    expect(semver.satisfies(process.version, installed.engines.node)).toBe(true);
  });
});

/** The contents of every entry of a Node compile cache folder (none when it does not exist). */
async function cachedModules(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return Promise.all(entries.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), 'latin1')));
}
