import { builder } from '../builder.js';
import { cookiesOf, REFRESH_COOKIE } from '../auth/caller.js';
import { checkNotCrossSite, checkSite } from '../auth/csrf.js';
import { login, logout, refresh, type SessionResult } from '../auth/session-cookies.js';
import type { Context } from '../context.js';
import { Me } from './account.js';

const SessionPayload = builder
  .objectRef<{
    message: string;
    expiresIn: number;
    me: { userId: string; email: string; username: string; tier: 'free' | 'pro' | 'enterprise'; via: 'cookie' };
  }>('SessionPayload')
  .implement({
    description:
      'A new session: the access and refresh tokens are set as the DT_AUTH_TOKEN and DT_REFRESH_TOKEN cookies (HttpOnly).',
    fields: (t) => ({
      message: t.exposeString('message', { description: 'What happened.' }),
      expiresIn: t.exposeInt('expiresIn', { description: 'Seconds until the access token expires.' }),
      me: t.field({ type: Me, description: 'Who is logged in.', resolve: (p) => p.me }),
    }),
  });

const LogoutPayload = builder.objectRef<{ message: string }>('LogoutPayload').implement({
  description: 'The session cookies are cleared and the session revoked.',
  fields: (t) => ({ message: t.exposeString('message', { description: 'What happened.' }) }),
});

/** Sends the new cookies with the response and answers with the session user. */
function sessionPayload(ctx: Context, r: SessionResult) {
  for (const cookie of r.cookies) ctx.responseHeaders.push(['set-cookie', cookie]);
  return {
    message: r.message,
    expiresIn: r.expiresIn,
    me: {
      userId: r.user.id,
      email: r.user.email,
      username: r.user.username,
      tier: r.user.tier,
      via: 'cookie' as const,
    },
  };
}

builder.mutationType({
  description: 'The only writes (sessions and API keys), and OCR, which is costly to run but writes nothing.',
});

/** These set or clear the session cookies: a page of another site must not run them (login CSRF, forced logout). */
const SETS_COOKIES = 'a request that sets or clears the session cookies';

/** Refuses a request from another site; then the refresh cookie it carries, if any. */
function sessionRequest(ctx: Context): string | undefined {
  checkSite(ctx.request, ctx.config.auth.corsOrigins, SETS_COOKIES);
  checkNotCrossSite(ctx.request, SETS_COOKIES);
  return cookiesOf(ctx.request)[REFRESH_COOKIE];
}

builder.mutationFields((t) => ({
  login: t.field({
    type: SessionPayload,
    description: 'Logs in with email and password and sets the session cookies, like POST /kms/api/v1/auth/token.',
    args: {
      email: t.arg.string({ required: true, description: 'Email address.' }),
      password: t.arg.string({ required: true, description: 'Password.' }),
    },
    resolve: async (_root, args, ctx) => {
      sessionRequest(ctx);
      return sessionPayload(ctx, await login(ctx.sessions, args, ctx.ip));
    },
  }),
  refreshSession: t.field({
    type: SessionPayload,
    description:
      'Exchanges the DT_REFRESH_TOKEN cookie for new session cookies (the old refresh token stops working), like POST /kms/api/v1/auth/refresh.',
    resolve: async (_root, _args, ctx) => sessionPayload(ctx, await refresh(ctx.sessions, sessionRequest(ctx))),
  }),
  logout: t.field({
    type: LogoutPayload,
    description: 'Clears the session cookies and revokes the session.',
    resolve: async (_root, _args, ctx) => {
      const r = await logout(ctx.sessions, sessionRequest(ctx));
      for (const cookie of r.cookies) ctx.responseHeaders.push(['set-cookie', cookie]);
      return { message: r.message };
    },
  }),
}));
