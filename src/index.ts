/**
 * paraph's public library API (`import … from 'paraph'`): place fields, sign and seal, verify, make and check the
 * evidential receipt, check a postback, and handle errors. Every library function takes bytes and values and returns
 * bytes and values; nothing reads a clock, the disk or the network unless handed a function that does. The same
 * groups are entry points of their own (`paraph/pdf`, `paraph/pades`, `paraph/receipt`); the transaction service is
 * in `paraph/server` (the only entry point that loads fastify), test tools in `paraph/testing`. Everything else under
 * src/ is internal and may change between versions.
 *
 * @example
 * import { placeFieldsFromMetadata, signPdf, verifyPdf } from 'paraph';
 */
export * from './entry/errors.js';
export * from './entry/pdf.js';
export * from './entry/pades.js';
export * from './entry/receipt.js';

// What a postback receiver needs, without the service: the signature check and the status and activity codes.
export { verifyPostback, type PostbackVerification, type PostbackHeaders, type VerifyPostbackOptions } from './events/verify-postback.js';
export { TransactionStatus, ActivityCode, type Transaction, type TransactionStatusCode, type ActivityCodeNumber } from './domain/transaction.js';
