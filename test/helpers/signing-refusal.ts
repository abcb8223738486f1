/** For tests of opening a key store: the SigningError a promise is rejected with, failing the test if it resolves or rejects with anything else. */
import { expect } from 'vitest';
import { SigningError } from '../../src/errors.js';

export async function signingRefusal(promise: Promise<unknown>): Promise<SigningError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(SigningError);
  return error as SigningError;
}
