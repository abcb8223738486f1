/**
 * `paraph/server`: the transaction service, standalone ({@link startServer}) or mounted into a host's fastify app
 * ({@link paraphPlugin}), and what a postback receiver needs. The only entry point that loads fastify, the mailer
 * and the database drivers.
 *
 * @example
 * import { createService, loadConfig, paraphPlugin } from 'paraph/server';
 */
export * from './errors.js';

export { loadConfig, type ServiceConfig, type LoadConfigInput, type QualifiedSealConfig, type BootstrapAccountConfig } from '../config.js';
export {
  createService,
  type ParaphService,
  type ServiceOptions,
  type StartServerOptions,
  type CreatedCredentials,
  type ServiceLog,
} from '../create-service.js';
export { paraphPlugin, type ParaphPluginOptions, type CreatedOnStart } from '../paraph-plugin.js';
export { startServer, type RunningServer } from '../server.js';
export { verifyPostback, type PostbackVerification, type PostbackHeaders } from '../events/verify-postback.js';
export { TransactionStatus, ActivityCode, type Transaction, type TransactionStatusCode, type ActivityCodeNumber } from '../domain/transaction.js';
