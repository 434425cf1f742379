/**
 * A forwarded page request runs through an Express app with no socket and comes back as the
 * app answered it: status, every Set-Cookie, redirects, the parsed form, the query, and
 * `req.secure` from the gateway's HTTPS flag.
 */
import express from 'express';
import { pageRequestSchema } from '@aff/contracts';
import { dispatchPage } from '../src/pages/page-dispatch';

const app = express();
app.set('query parser', 'extended');
app.post('/portal/form', express.urlencoded({ extended: false, limit: '1kb' }), (req, res) => {
  res.append('Set-Cookie', 'a=1; Path=/portal');
  res.append('Set-Cookie', 'b=2; Path=/portal');
  res.status(201).json({ body: req.body as unknown, secure: req.secure, q: req.query.q });
});
app.get('/portal/go', (req, res) => res.redirect(303, `/portal?from=${String(req.query.q)}`));
app.use(
  (
    error: { status?: number },
    _req: express.Request,
    res: express.Response,
    next: express.NextFunction,
  ) => {
    if (res.headersSent) return next(error);
    res.status(error.status ?? 500).send('refused');
  },
);

const run = (input: Parameters<typeof pageRequestSchema.parse>[0]) =>
  dispatchPage(app, pageRequestSchema.parse(input), 'req-1');

it('hands the form, the query and the HTTPS flag to the app, and returns every cookie', async () => {
  const reply = await run({
    method: 'POST',
    path: '/portal/form',
    query: 'q=x%20y',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: Buffer.from('token=abc&name=%C3%A9').toString('base64'),
    secure: true,
  });
  expect(reply.status).toBe(201);
  expect(reply.headers['set-cookie']).toEqual(['a=1; Path=/portal', 'b=2; Path=/portal']);
  expect(JSON.parse(reply.body)).toEqual({
    body: { token: 'abc', name: 'é' },
    secure: true,
    q: 'x y',
  });
});

it('answers a redirect with its Location, and a body over the form limit as the app refuses it', async () => {
  const redirect = await run({ method: 'GET', path: '/portal/go', query: 'q=1' });
  expect(redirect.status).toBe(303);
  expect(redirect.headers.location).toBe('/portal?from=1');
  const tooLarge = await run({
    method: 'POST',
    path: '/portal/form',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: Buffer.from(`a=${'x'.repeat(2000)}`).toString('base64'),
  });
  expect(tooLarge.status).toBe(413);
  expect(tooLarge.body).toBe('refused');
});

it('refuses a path outside the pages before any page runs', () => {
  expect(pageRequestSchema.safeParse({ method: 'GET', path: '/v1/affiliates' }).success).toBe(
    false,
  );
  expect(pageRequestSchema.safeParse({ method: 'GET', path: '/portalx' }).success).toBe(false);
});
