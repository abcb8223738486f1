/**
 * `paraph serve` (docs/design/storage.md#running-the-service): starts the transaction service with the configuration of
 * the environment and the optional JSON file named by PARAPH_CONFIG or `--config`; prints the base URL and, when this
 * start created them, the bootstrap credentials (once). SIGTERM/SIGINT shut it down gracefully: not ready at once, no
 * new connections, requests in flight finish within PARAPH_DRAIN_SECONDS, then exit 0.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DEFAULT_DRAIN_SECONDS, describeConfig, loadConfig } from '../config.js';
import { startServer } from '../server.js';
import type { CliCommand } from './common.js';
import { UsageError } from './common.js';

/** Runs the service until a signal stops it; returns 0 after a clean shutdown. */
export const serveCommand: CliCommand = async (args, io) => {
  const { values } = parseArgs({ args, options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true });
  if (values.help) {
    io.stdout(
      `usage: paraph serve [--config <file.json>]\n\nThe JSON config file may also be named by PARAPH_CONFIG; environment variables win over it.\n\nenvironment (or config file key):\n${describeConfig()}\n`,
    );
    return 0;
  }
  const fileName = values.config ?? process.env.PARAPH_CONFIG;
  let fileText: string | undefined;
  if (fileName !== undefined) {
    try {
      fileText = await readFile(fileName, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read the config file ${fileName}: ${(error as Error).message}`);
    }
  }
  const config = loadConfig({ env: process.env, ...(fileText !== undefined ? { fileText, fileName } : {}) });
  const server = await startServer(config);
  io.stdout(`paraph service listening on ${server.url} (public URL ${server.service.publicUrl}, data in ${config.dataDir})\n`);
  if (server.metricsUrl !== undefined) io.stdout(`metrics on ${server.metricsUrl}/metrics\n`);
  if (server.masterKey.generatedKeyFile !== undefined) {
    io.stdout(
      `Generated a master key (id ${server.masterKey.id}) in ${server.masterKey.generatedKeyFile}: it encrypts the private keys and sign tokens; ` +
        'back it up apart from the data, or set PARAPH_MASTER_KEY (see SECURITY.md).\n',
    );
  }
  if (server.createdCredentials) {
    io.stdout(
      `Created the bootstrap account; these credentials are shown only now:\n` +
        `  Authorization: APIKey ${server.createdCredentials.userToken}\n` +
        `  Application: APPKey ${server.createdCredentials.appKey}\n` +
        `  Postback secret: ${server.createdCredentials.postbackSecret}   (verifyPostback(body, headers, secret); set PARAPH_POSTBACK_SECRET to rotate it)\n`,
    );
  } else if (server.generatedPostbackSecret !== undefined) {
    io.stdout(
      `Generated a postback secret for the bootstrap account; it is shown only now:\n` +
        `  Postback secret: ${server.generatedPostbackSecret}   (set PARAPH_POSTBACK_SECRET to choose or rotate it)\n`,
    );
  }
  if (server.service.rotatedPostbackSecret) io.stdout('The bootstrap account now signs postbacks with PARAPH_POSTBACK_SECRET (the previous secret no longer verifies).\n');
  await new Promise<void>((resolve) => {
    const drainSeconds = config.drainSeconds ?? DEFAULT_DRAIN_SECONDS;
    const stop = (signal: string) => {
      io.stderr(`${signal}: shutting down (requests in flight may finish within ${drainSeconds} s)\n`);
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      void server.close({ drainMs: drainSeconds * 1000 }).then(resolve, (error: unknown) => {
        io.stderr(`shutdown error: ${(error as Error).message}\n`);
        resolve();
      });
    };
    const onTerm = () => stop('SIGTERM');
    const onInt = () => stop('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
  });
  return 0;
};
