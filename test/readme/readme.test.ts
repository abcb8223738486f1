/**
 * The README-runner: every TypeScript block of README.md and docs/*.md compiles against the PACKED package
 * (`npm pack`, installed with --ignore-scripts into a fresh strict `nodenext` project, as test/package does) and runs
 * there unless marked `<!-- not run: why -->`; every shell block of README.md is run (the first one starts the
 * service with `npm start`, the seal-only curl flow runs against it, `npx paraph bench` runs on the sample) or carries
 * a `<!-- not run: why -->` mark. A new block without a runner or a mark fails the test.
 *
 * The commands run in this checkout. In CI that is a fresh clone on a fresh machine where `.ci/run` has just run
 * `npm ci` (the README's first command), so this is the newcomer's clone; the service gets its own data directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSignedPdf } from '../helpers/external-tools.js';
import { installConsumer, packParaph, PROJECT_ROOT, runCommand, type ConsumerProject } from '../package/consumer-project.js';
import { CONSUMER_TSCONFIG } from '../package/consumer-sources.js';
import { codeBlocks, isShell, isTypeScript, type CodeBlock } from './markdown-blocks.js';

let work: string;
let consumer: ConsumerProject;
const blocks: CodeBlock[] = [];

const blockName = (b: CodeBlock): string => `${b.file.replace(/[^A-Za-z0-9]+/g, '-')}-${b.line}`;

beforeAll(async () => {
  blocks.push(...codeBlocks('README.md', await readFile(join(PROJECT_ROOT, 'README.md'), 'utf8')));
  for (const doc of (await readdir(join(PROJECT_ROOT, 'docs'))).filter((f) => f.endsWith('.md')).sort()) {
    blocks.push(...codeBlocks(`docs/${doc}`, await readFile(join(PROJECT_ROOT, 'docs', doc), 'utf8')));
  }
});

describe('README and docs TypeScript blocks, against the packed package', () => {
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'paraph-readme-'));
    consumer = await installConsumer((await packParaph(work)).path, join(work, 'consumer'), { ignoreScripts: true });
  }, 240_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('compile (strict nodenext, no DOM lib) and those not marked "not run" run', async () => {
    const typescript = blocks.filter((b) => isTypeScript(b) && b.notCompiled === undefined);
    expect(typescript.length).toBeGreaterThan(5);
    for (const b of typescript) await writeFile(join(consumer.dir, `${blockName(b)}.ts`), `${b.declarations ?? ''}\n${b.code}\nexport {};\n`);
    const tsconfig = { ...CONSUMER_TSCONFIG, files: typescript.map((b) => `${blockName(b)}.ts`) };
    await writeFile(join(consumer.dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    const tsc = await runCommand(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], { cwd: consumer.dir });
    expect(tsc.stdout + tsc.stderr, 'tsc').toBe('');
    expect(tsc.exitCode).toBe(0);

    // The placing example reads contract.pdf and metadata.json: the bundled sample.
    for (const file of ['contract.pdf', 'metadata.json']) await copyFile(join(PROJECT_ROOT, 'fixtures/sample', file), join(consumer.dir, file));
    const runnable = typescript.filter((b) => b.notRun === undefined);
    expect(runnable.length).toBeGreaterThan(0);
    for (const b of runnable) {
      const run = await runCommand(process.execPath, [`out/${blockName(b)}.js`], { cwd: consumer.dir, timeoutMs: 60_000 });
      expect(run.exitCode, `${b.file}:${b.line}\n${run.stderr}`).toBe(0);
    }
  }, 120_000);
});

interface Service {
  readonly process: ChildProcess;
  readonly url: string;
  readonly token: string;
  readonly key: string;
}

/** `npm start` on a free port with its own data directory; resolves once /health answers and credentials are printed. */
async function npmStart(dataDir: string): Promise<Service> {
  const child = spawn('npm', ['start'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: '0', PARAPH_DATA_DIR: dataDir, PARAPH_LOG_LEVEL: 'warn', PARAPH_FILE_REPLACE_GUARD_MS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    const token = /Authorization: APIKey (\S+)/.exec(out)?.[1];
    const key = /Application: APPKey (\S+)/.exec(out)?.[1];
    if (url && token && key && (await fetch(`${url}/health`).then((r) => r.ok, () => false))) return { process: child, url, token, key };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function stop(service: Service | undefined): void {
  if (service?.process.pid !== undefined && service.process.exitCode === null) process.kill(-service.process.pid, 'SIGTERM');
}

/** How each shell block of the README is proven; a block neither here nor marked "not run" fails the test. */
const SHELL_RUNNERS: readonly { readonly matches: RegExp; readonly what: string }[] = [
  { matches: /^npm ci && npm start/, what: 'npm start: service up, /health answers, credentials printed (npm ci: the checkout this test runs in)' },
  { matches: /^H=\(-H "Authorization: APIKey \$TOKEN"/, what: 'the seal-only curl flow against that service' },
  { matches: /^npx paraph bench place contract\.pdf/, what: 'npx paraph bench on the bundled sample and the sealed PDF' },
];

describe('README shell blocks', () => {
  it('each has a runner or a "not run" mark with its reason', () => {
    const shell = blocks.filter((b) => b.file === 'README.md' && isShell(b));
    expect(shell.length).toBeGreaterThan(2);
    for (const b of shell) {
      const runner = SHELL_RUNNERS.find((r) => r.matches.test(b.code));
      expect(runner !== undefined || (b.notRun ?? '').length > 0, `README.md:${b.line} needs a runner in readme.test.ts or <!-- not run: why -->`).toBe(true);
    }
  });

  it('run: npm start, the seal-only flow with curl, npx paraph bench', async () => {
    const shellBlock = (re: RegExp): string => {
      const found = blocks.find((b) => b.file === 'README.md' && isShell(b) && re.test(b.code));
      if (!found) throw new Error(`no README shell block matches ${re}`);
      return found.code;
    };
    const dir = join(PROJECT_ROOT, 'out', `readme-test-${process.pid}`);
    await mkdir(dir, { recursive: true });
    let service: Service | undefined;
    try {
      // First block: `npm ci` is what produced this checkout; `npm test` is this suite. `npm start` runs here.
      expect(shellBlock(SHELL_RUNNERS[0]!.matches)).toMatch(/^npm ci && npm start .*\nnpm test /);
      service = await npmStart(join(dir, 'data'));
      const port = new URL(service.url).port;

      await copyFile(join(PROJECT_ROOT, 'fixtures/sample/contract.pdf'), join(dir, 'a.pdf'));
      const curlFlow = shellBlock(SHELL_RUNNERS[1]!.matches).replaceAll('localhost:8080', `localhost:${port}`);
      const flow = await runCommand('bash', ['-euo', 'pipefail', '-c', curlFlow], { cwd: dir, env: { ...process.env, TOKEN: service.token, KEY: service.key }, timeoutMs: 60_000 });
      expect(flow.exitCode, flow.stderr).toBe(0);
      const sealed = new Uint8Array(await readFile(join(dir, 'sealed.pdf')));
      const receipt = new Uint8Array(await readFile(join(dir, 'receipt.pdf')));
      const sealCa = await (await fetch(`${service.url}/api/ca/seal.pem`)).text();
      await writeFile(join(dir, 'root.pem'), sealCa);
      for (const pdf of [sealed, receipt]) {
        const report = await checkSignedPdf(pdf, sealCa);
        expect(report.qpdf, report.details).toBe(true);
        expect(report.pdfsig.length, report.details).toBeGreaterThan(0);
        expect(report.openssl.every(Boolean), report.details).toBe(true);
      }

      await copyFile(join(dir, 'sealed.pdf'), join(dir, 'signed.pdf'));
      for (const file of ['contract.pdf', 'metadata.json']) await copyFile(join(PROJECT_ROOT, 'fixtures/sample', file), join(dir, file));
      const bench = shellBlock(SHELL_RUNNERS[2]!.matches).replace('--runs 10', '--runs 2');
      const benchRun = await runCommand('bash', ['-euo', 'pipefail', '-c', bench], { cwd: dir, timeoutMs: 150_000 });
      expect(benchRun.exitCode, `${benchRun.stdout}\n${benchRun.stderr}`).toBe(0);
      expect(benchRun.stdout).toMatch(/"operation":\s*"sign"/);
    } finally {
      stop(service);
      await rm(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
