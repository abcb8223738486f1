#!/usr/bin/env node
/**
 * The `paraph` command line: one sub-command per library capability, each in its own module under src/cli/.
 */
import { readFileSync } from 'node:fs';
import module from 'node:module';
import { runCommand, type CliCommand, type CliIo } from './cli/common.js';

const COMMANDS: Record<string, { summary: string; load: () => Promise<CliCommand> }> = {
  place: {
    summary: 'place the fields of a FileMetaData JSON: paraph place <in.pdf> <metadata.json> -o <out.pdf> [--json]',
    load: async () => (await import('./cli/place.js')).placeCommand,
  },
  sign: {
    summary:
      'add a PAdES signature: paraph sign <in.pdf> -o <out.pdf> (--p12 <file> [--pass <pw>] | --pkcs11 <module> --pin <pin> --key-label <l>) [--field <name>] [--tsa <url>] [--lt | --lta]',
    load: async () => (await import('./cli/sign.js')).signCommand,
  },
  seal: {
    summary: 'add the organizational seal: paraph seal <in.pdf> -o <out.pdf> (--p12 <file> [--pass <pw>] | --pkcs11 <module> …) [--tsa <url>] [--lt | --lta]',
    load: async () => (await import('./cli/seal.js')).sealCommand,
  },
  extend: {
    summary:
      'add validation data (B-LT) and a document time-stamp (B-LTA) to a signed PDF: paraph extend <in.pdf> -o <out.pdf> [--trust <root.pem>] [--lta --tsa <url>] [--allow-incomplete]',
    load: async () => (await import('./cli/extend.js')).extendCommand,
  },
  verify: {
    summary: 'verify the signatures of a PDF: paraph verify <in.pdf> [--trust <root.pem> ...] [--json]',
    load: async () => (await import('./cli/verify.js')).verifyCommand,
  },
  receipt: {
    summary: 'check an evidential receipt (seal, audit log chain, documents): paraph receipt verify <receipt.pdf> [--trust <root.pem> ...] [--document <file.pdf> ...] [--json]',
    load: async () => (await import('./cli/receipt.js')).receiptCommand,
  },
  bench: {
    summary: 'time an operation on your own file: paraph bench place <in.pdf> <metadata.json> | sign <in.pdf> | verify <in.pdf> [--runs N] [--json]',
    load: async () => (await import('./cli/bench.js')).benchCommand,
  },
  account: {
    summary: 'administer accounts and their keys in the service\'s store: paraph account create|list|show|disable|enable, paraph account key issue|list|rotate|revoke [--data-dir <dir>]',
    load: async () => (await import('./cli/account.js')).accountCommand,
  },
  'rotate-master-key': {
    summary: 're-seal the private keys and tokens of a stopped service under a new master key: paraph rotate-master-key [--data-dir <dir>]',
    load: async () => (await import('./cli/rotate-master-key.js')).rotateMasterKeyCommand,
  },
  'open-mail': {
    summary: 'print a mail the service sealed into its mail directory: paraph open-mail <file.eml.sealed> [--data-dir <dir>]',
    load: async () => (await import('./cli/open-mail.js')).openMailCommand,
  },
  'seal-secret': {
    summary: 'seal an identity provider\'s client secret (read from stdin) under the master key: paraph seal-secret [--data-dir <dir>]',
    load: async () => (await import('./cli/seal-secret.js')).sealSecretCommand,
  },
  migrate: {
    summary: 'apply the PostgreSQL schema migrations: paraph migrate [--database-url postgres://…] (default PARAPH_DATABASE_URL)',
    load: async () => (await import('./cli/migrate.js')).migrateCommand,
  },
  serve: {
    summary: 'run the transaction service (HOST, PORT, PARAPH_DATA_DIR, PARAPH_PUBLIC_URL, ...): paraph serve [--config <file.json>]',
    load: async () => (await import('./cli/serve.js')).serveCommand,
  },
};

const io: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrIsTerminal: process.stderr.isTTY === true,
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length), 4);
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: paraph <command> [options]   (paraph <command> --help for every option; paraph --version)\n\ncommands:\n${lines.join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout(`${packageVersion()}\n`);
    return 0;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    io.stderr(`unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  return runCommand(await entry.load(), rest, io);
}

/**
 * Node ≥ 22.1 keeps the code it compiled for paraph and its dependencies in a disk cache (in the system's temporary
 * folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so the next command starts sooner. Worker threads do not inherit
 * the cache, only the environment: the variable hands it to the text engine's threads. Node 20 lacks the cache.
 */
function enableCompileCache(): void {
  const enable = (module as { enableCompileCache?: () => { directory?: string } }).enableCompileCache;
  const directory = enable?.().directory;
  if (directory !== undefined) process.env.NODE_COMPILE_CACHE ??= directory;
}

/** The version in package.json (src/cli.ts and dist/cli.js both sit one level below it). */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

// `paraph place` and `paraph bench` run pdf.js on this thread for short documents, and pdf.js can leave a rejection
// nobody awaits on a damaged file after the command has already reported the failure: that must not turn a clean
// "exit 2, here is what is wrong" into a crash. It is reported, not hidden.
process.on('unhandledRejection', (reason: unknown) => {
  io.stderr(`warning: ignored an error no one awaited: ${reason instanceof Error ? reason.message : String(reason)}\n`);
});

enableCompileCache();

process.exitCode = await main(process.argv.slice(2));
