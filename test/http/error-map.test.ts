/**
 * The one error table: codes map to statuses, input errors keep their message, internal errors
 * answer 500 without their text.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ParaphError, ValidationError } from '../../src/errors.js';
import { handleError, statusOf } from '../../src/http/error-map.js';
import { ConcurrencyError } from '../../src/store/store.js';

describe('statusOf', () => {
  it('maps codes by the table, other input errors to 400 and everything else to 500', () => {
    expect(statusOf(new ParaphError('TRANSACTION_NOT_FOUND', 'x'))).toBe(401);
    expect(statusOf(new ParaphError('FILE_NOT_FOUND', 'x'))).toBe(404);
    expect(statusOf(new ParaphError('UPLOAD_CONFLICT', 'x'))).toBe(409);
    expect(statusOf(new ConcurrencyError('t', 1, 2))).toBe(409);
    expect(statusOf(new ParaphError('TRANSACTION_CLEANED', 'x'))).toBe(410);
    expect(statusOf(new ParaphError('FILE_TOO_LARGE', 'x'))).toBe(413);
    expect(statusOf(new ValidationError(['a: b']))).toBe(400);
    expect(statusOf(new ParaphError('SOMETHING', 'x', { origin: 'internal' }))).toBe(500);
    expect(statusOf(new TypeError('boom'))).toBe(500);
  });
});

describe('handleError', () => {
  it('sends {"Message"} for client errors and hides the text of a 500', async () => {
    const app = Fastify({ logger: false });
    app.setErrorHandler((error, request, reply) => handleError(error, request, reply));
    app.get('/input', async () => {
      throw new ValidationError(['Signers[0].Email: not a valid e-mail address', 'Seal: must be a boolean']);
    });
    app.get('/internal', async () => {
      throw new Error('database password is hunter2');
    });
    app.get('/denied', async () => {
      throw new ParaphError('UNAUTHORIZED', 'whatever');
    });
    const input = await app.inject('/input');
    expect(input.statusCode).toBe(400);
    expect(input.json()).toEqual({ Message: 'Signers[0].Email: not a valid e-mail address; Seal: must be a boolean' });
    const internal = await app.inject('/internal');
    expect(internal.statusCode).toBe(500);
    expect(internal.body).not.toContain('hunter2');
    expect(internal.json()).toEqual({ Message: 'An internal error occurred; it has been logged.' });
    const denied = await app.inject('/denied');
    expect(denied.json()).toEqual({ Message: 'Authorization has been denied for this request.' });
    await app.close();
  });
});
