/**
 * The admin API under /api/admin (docs/design/accounts.md#admin-api): accounts, their application keys and user
 * tokens, their postback secret, and the admin audit log. Authorized by the admin token alone (admin-auth.ts);
 * every change is audited as `admin`. A new secret appears once, in the answer that made it.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../service/context.js';
import {
  createAccount,
  issueCredential,
  listAccountCredentials,
  listAccounts,
  listAdminAudit,
  removeAccountLogo,
  revokeCredential,
  rotateCredential,
  setAccountDisabled,
  setAccountLogo,
  setAccountPostbackSecret,
  showAccount,
  updateAccountSettings,
} from '../service/account-admin.js';
import { removeAccountQualifiedSeal, setAccountQualifiedSeal } from '../service/account-seal-admin.js';
import { readLogoUpload } from './logo-upload.js';
import { accountSeal } from '../service/pdf-jobs/seal-job.js';
import { SEAL_CHAIN_PEM } from './account.routes.js';
import {
  ACCOUNT_VIEW,
  AccountParamsSchema,
  accountView,
  AUDIT_VIEW,
  AuditQuerySchema,
  auditView,
  CreateAccountSchema,
  CREDENTIAL_VIEW,
  CredentialParamsSchema,
  credentialView,
  IssueCredentialSchema,
  PostbackSecretSchema,
  QualifiedSealSchema,
  RotateCredentialSchema,
  UpdateAccountSchema,
} from './admin.schema.js';
import { errorResponse as error, type ResponseDoc, type RouteDoc } from './openapi.js';
import type { JsonSchema } from './response.schema.js';

const ACTOR = 'admin';

const json = (description: string, schema: unknown): ResponseDoc => ({ description, content: { 'application/json': schema as JsonSchema } });
const list = (description: string, item: unknown): ResponseDoc => json(description, { type: 'array', items: item });
const doc = (summary: string, responses: RouteDoc['responses']): { openapi: RouteDoc } => ({ openapi: { summary, tags: ['admin'], auth: 'admin', responses } });
const NO_ACCOUNT = error('No account with that Id');
const INVALID = error('Invalid body (the message names each problem)');

/** Registers the routes under `/api/admin`. */
export function adminRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    // Branding.LogoUrl is fetched under the postback policy: the same guard against reaching internal addresses.
    const adminDeps = {
      ...ctx,
      logoFetch: { ...(ctx.settings.postbackPolicy !== undefined ? { policy: ctx.settings.postbackPolicy } : {}), ...(ctx.resolveHost !== undefined ? { resolve: ctx.resolveHost } : {}) },
    };
    app.post('/accounts', { schema: { body: CreateAccountSchema }, config: doc('Create an account', { 201: json('The account, with its postback secret (shown once)', ACCOUNT_VIEW), 400: INVALID }) }, async (request, reply) => {
      const body = request.body;
      const { account, postbackSecret } = await createAccount(adminDeps, ACTOR, body);
      return reply.code(201).send({ ...accountView(account), PostbackSecret: postbackSecret });
    });
    app.get('/accounts', { config: doc('List accounts', { 200: list('Every account, oldest first', ACCOUNT_VIEW) }) }, async () => (await listAccounts(ctx)).map(accountView));
    app.get('/accounts/:accountId', { schema: { params: AccountParamsSchema }, config: doc('Show an account', { 200: json('The account', ACCOUNT_VIEW), 404: NO_ACCOUNT }) }, async (request) =>
      accountView(await showAccount(ctx, request.params.accountId)),
    );
    app.patch(
      '/accounts/:accountId',
      { schema: { params: AccountParamsSchema, body: UpdateAccountSchema }, config: doc('Change name, NotificationEmail, branding or limits', { 200: json('The account', ACCOUNT_VIEW), 400: INVALID, 404: NO_ACCOUNT }) },
      async (request) => accountView(await updateAccountSettings(adminDeps, ACTOR, request.params.accountId, request.body)),
    );
    await app.register(async (scope) => {
      // The logo's body is judged by its content, whatever its Content-Type says (logo-image.ts).
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      scope.withTypeProvider<TypeBoxTypeProvider>().put(
        '/accounts/:accountId/logo',
        {
          schema: { params: AccountParamsSchema },
          config: {
            openapi: {
              ...doc("Set the account's logo: the request body is a PNG or JPEG image of at most 256 KiB, 2048 pixels a side and 2 million pixels", {
                200: json('The account with its Logo', ACCOUNT_VIEW),
                400: error('Not a PNG or JPEG image by its content, damaged or truncated, or too many pixels (LOGO_INVALID)'),
                404: NO_ACCOUNT,
                413: error('Larger than 256 KiB (LOGO_TOO_LARGE)'),
              }).openapi,
              requestBody: { 'image/png': { type: 'string', format: 'binary' }, 'image/jpeg': { type: 'string', format: 'binary' } },
            },
          },
        },
        async (request) => accountView(await setAccountLogo(ctx, ACTOR, request.params.accountId, await readLogoUpload(request.body))),
      );
    });
    app.delete(
      '/accounts/:accountId/logo',
      { schema: { params: AccountParamsSchema }, config: doc("Remove the account's logo (and the Branding.LogoUrl it came from)", { 200: json('The account', ACCOUNT_VIEW), 404: NO_ACCOUNT }) },
      async (request) => accountView(await removeAccountLogo(ctx, ACTOR, request.params.accountId)),
    );
    app.post(
      '/accounts/:accountId/disable',
      { schema: { params: AccountParamsSchema }, config: doc('Disable an account: none of its credentials authenticates', { 200: json('The account', ACCOUNT_VIEW), 404: NO_ACCOUNT }) },
      async (request) => accountView(await setAccountDisabled(ctx, ACTOR, request.params.accountId, true)),
    );
    app.post(
      '/accounts/:accountId/enable',
      { schema: { params: AccountParamsSchema }, config: doc('Enable a disabled account again', { 200: json('The account', ACCOUNT_VIEW), 404: NO_ACCOUNT }) },
      async (request) => accountView(await setAccountDisabled(ctx, ACTOR, request.params.accountId, false)),
    );
    app.put(
      '/accounts/:accountId/postback-secret',
      {
        schema: { params: AccountParamsSchema, body: PostbackSecretSchema },
        config: doc('Set (or generate) the postback secret', { 200: json('The account, with the secret (shown once)', ACCOUNT_VIEW), 400: INVALID, 404: NO_ACCOUNT }),
      },
      async (request) => {
        const secret = await setAccountPostbackSecret(ctx, ACTOR, request.params.accountId, request.body.Secret, request.body.OverlapSeconds ?? ctx.settings.postbackSecretOverlapSeconds);
        return { ...accountView(await showAccount(ctx, request.params.accountId)), PostbackSecret: secret };
      },
    );
    app.put(
      '/accounts/:accountId/qualified-seal',
      {
        schema: { params: AccountParamsSchema, body: QualifiedSealSchema },
        config: doc("Set the account's qualified seal (PKCS#12 file or PKCS#11 key): opened and checked first, secrets stored sealed", {
          200: json('The account with its QualifiedSeal', ACCOUNT_VIEW),
          400: error('Invalid body, a key that does not open (wrong password or PIN, no such token or key) or a certificate that cannot seal (the code says which)'),
          404: NO_ACCOUNT,
        }),
      },
      async (request) =>
        accountView(
          await setAccountQualifiedSeal({ ...ctx, ...(ctx.secrets ? { secrets: ctx.secrets } : {}), allowedPkcs11Modules: ctx.settings.pkcs11Modules ?? [] }, ACTOR, request.params.accountId, request.body),
        ),
    );
    app.delete(
      '/accounts/:accountId/qualified-seal',
      { schema: { params: AccountParamsSchema }, config: doc("Remove the account's qualified seal: it seals with its advanced seal again", { 200: json('The account', ACCOUNT_VIEW), 404: NO_ACCOUNT }) },
      async (request) => accountView(await removeAccountQualifiedSeal(ctx, ACTOR, request.params.accountId)),
    );
    app.get(
      '/accounts/:accountId/seal-chain.pem',
      { schema: { params: AccountParamsSchema }, config: doc("The certificate chain of the account's seal", { 200: SEAL_CHAIN_PEM, 404: NO_ACCOUNT }) },
      async (request, reply) => {
        await showAccount(ctx, request.params.accountId);
        return reply.type('application/x-pem-file').send((await accountSeal(ctx, request.params.accountId)).chainPem);
      },
    );
    app.post(
      '/accounts/:accountId/credentials',
      {
        schema: { params: AccountParamsSchema, body: IssueCredentialSchema },
        config: doc('Issue an application key or user token', { 201: json('The credential with its Secret (shown once)', CREDENTIAL_VIEW), 400: INVALID, 404: NO_ACCOUNT }),
      },
      async (request, reply) => {
        const kind = request.body.Kind === 'AppKey' ? 'app-key' : 'user-token';
        const issued = await issueCredential(ctx, ACTOR, request.params.accountId, kind, request.body.Label);
        return reply.code(201).send({ ...credentialView(issued.credential, ctx.clock()), Secret: issued.secret });
      },
    );
    app.get(
      '/accounts/:accountId/credentials',
      { schema: { params: AccountParamsSchema }, config: doc("List an account's credentials (never their secrets)", { 200: list('Oldest first', CREDENTIAL_VIEW), 404: NO_ACCOUNT }) },
      async (request) => {
        const now = ctx.clock();
        return (await listAccountCredentials(ctx, request.params.accountId)).map((c) => credentialView(c, now));
      },
    );
    app.post(
      '/accounts/:accountId/credentials/:credentialId/rotate',
      {
        schema: { params: CredentialParamsSchema, body: RotateCredentialSchema },
        config: doc('Rotate a credential: a new one now, the old one valid for the overlap', {
          201: json('The new credential with its Secret (shown once)', CREDENTIAL_VIEW),
          400: INVALID,
          404: error('No such account or credential'),
          409: error('The credential was revoked or rotated already'),
        }),
      },
      async (request, reply) => {
        const rotated = await rotateCredential(ctx, ACTOR, request.params.accountId, request.params.credentialId, request.body.OverlapSeconds);
        return reply.code(201).send({ ...credentialView(rotated.credential, ctx.clock()), Secret: rotated.secret });
      },
    );
    app.post(
      '/accounts/:accountId/credentials/:credentialId/revoke',
      {
        schema: { params: CredentialParamsSchema },
        config: doc('Revoke a credential: refused from now on', { 200: json('The credential', CREDENTIAL_VIEW), 404: error('No such account or credential') }),
      },
      async (request) => credentialView(await revokeCredential(ctx, ACTOR, request.params.accountId, request.params.credentialId), ctx.clock()),
    );
    app.get(
      '/audit',
      { schema: { querystring: AuditQuerySchema }, config: doc('The admin audit log: who did what to which account, when (never a secret)', { 200: list('Oldest first', AUDIT_VIEW), 400: INVALID }) },
      async (request) => {
        const q = request.query;
        const entries = await listAdminAudit(ctx, {
          limit: Math.min(1000, Math.max(1, Number(q.limit ?? 100))),
          ...(q.after !== undefined ? { afterId: Number(q.after) } : {}),
          ...(q.accountId !== undefined ? { accountId: q.accountId } : {}),
        });
        return entries.map(auditView);
      },
    );
  };
}
