/**
 * A PostgreSQL cluster a test file owns: `initdb` into a temporary directory, `pg_ctl start` on a free port on
 * 127.0.0.1 (socket in the same directory), stopped and removed after. Binaries are found on PATH, then in
 * /usr/lib/postgresql/<version>/bin. PostgreSQL refuses to run as root: then the cluster runs as the `postgres` user.
 * Without binaries the helper throws a message saying how to install them: the PostgreSQL tests fail, never skip.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly adminUrl: string;
  /** Creates a fresh database and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Drops a database made by {@link createDatabase} (closing its connections). */
  dropDatabase(url: string): Promise<void>;
  stop(): Promise<void>;
}

function findBinDir(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const dir = join(root, version, 'bin');
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  throw new Error(
    'PostgreSQL binaries (initdb, pg_ctl) were found neither on PATH nor in /usr/lib/postgresql/*/bin: install them ' +
      '(Debian: apt-get install postgresql) to run the PostgreSQL tests. .ci/run installs them.',
  );
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The uid/gid to run PostgreSQL as: the current user, or `postgres` when running as root. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error('Running as root, PostgreSQL needs an unprivileged user: create the `postgres` user (the Debian package does).');
  }
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = findBinDir();
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'paraph-pg-'));
  const data = join(dir, 'data');
  if (user !== undefined) {
    chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
  }
  const options = { ...(user ?? {}), env: { ...process.env, LC_ALL: 'C' } };
  await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'], options);
  const port = await freePort();
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  await run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-o', settings, '-w', 'start'], options);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let counter = 0;
  const admin = new pg.Pool({ connectionString: adminUrl, max: 2 });
  // Connections closing while the cluster stops must not raise an unhandled 'error' (see openPool in the store).
  admin.on('error', () => undefined);
  return {
    adminUrl,
    async createDatabase(name = `t${process.pid}_${++counter}`) {
      await admin.query(`CREATE DATABASE ${name}`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async dropDatabase(url) {
      const name = new URL(url).pathname.slice(1);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
    async stop() {
      await admin.end();
      await run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop'], options).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
