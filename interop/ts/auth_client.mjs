// interop/ts/auth_client.mjs drives a gomcp everything-server protected by
// package auth (started with -auth-issuer) with the official TypeScript SDK
// client's OAuth support, against the authtest authorization server:
//
//   1. authorization code + PKCE with dynamic client registration: the
//      first connect gets 401, the SDK discovers the protected-resource and
//      authorization-server metadata, registers, and "redirects" (the
//      provider follows the authorize URL itself: authtest approves at
//      once), then finishAuth redeems the code and the connect is retried;
//   2. step-up: a tool needing another scope gets 403 insufficient_scope,
//      the SDK authorizes again for the scopes the challenge names, and the
//      call is retried on the same session;
//   3. client credentials (ClientCredentialsProvider) with a pre-registered
//      confidential client (asking for its scopes up front: the provider
//      sends no scope otherwise, even after a challenge).
//
// Usage: node auth_client.mjs <http://HOST:PORT/mcp> <issuer> <client id> <client secret> <step-up tool>
//
// It prints one line per check and exits 1 if any failed.

import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [target, issuer, ccID, ccSecret, stepUpTool] = process.argv.slice(2);
const sdkDir = process.env.MCP_TS_SDK_DIR;
if (!stepUpTool || !sdkDir) {
	console.error('usage: MCP_TS_SDK_DIR=<node_modules> node auth_client.mjs <url> <issuer> <client id> <client secret> <step-up tool>');
	process.exit(2);
}
const sdk = (p) => import(pathToFileURL(path.join(sdkDir, '@modelcontextprotocol', 'sdk', 'dist', 'esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { UnauthorizedError } = await sdk('client/auth.js');
const { ClientCredentialsProvider } = await sdk('client/auth-extensions.js');

let failed = 0;
async function check(name, fn) {
	try {
		await fn();
		console.log(`ok ${name}`);
	} catch (e) {
		failed++;
		console.log(`FAIL ${name}: ${e?.stack ?? e}`);
	}
}

// An in-memory OAuthClientProvider whose "browser" is a fetch that stops at
// the redirect and keeps the code.
class Provider {
	redirects = [];
	code = undefined;
	_tokens = undefined;
	_client = undefined;
	_verifier = undefined;
	get redirectUrl() {
		return 'http://127.0.0.1:1/callback';
	}
	get clientMetadata() {
		return {
			client_name: 'ts-interop',
			redirect_uris: [this.redirectUrl],
			grant_types: ['authorization_code', 'refresh_token'],
			response_types: ['code'],
			token_endpoint_auth_method: 'none',
		};
	}
	clientInformation() {
		return this._client;
	}
	saveClientInformation(info) {
		this._client = info;
	}
	// tokens hides the refresh token: on a 403 insufficient_scope, SDK
	// 1.32.2 refreshes (without a scope parameter) before it re-authorizes,
	// and a refresh cannot widen the scopes of a grant (RFC 6749 §6), so
	// step-up would stop at the refresh. Refresh is tested in Go.
	tokens() {
		if (!this._tokens) return undefined;
		const { refresh_token, ...rest } = this._tokens;
		return rest;
	}
	saveTokens(t) {
		this._tokens = t;
	}
	saveCodeVerifier(v) {
		this._verifier = v;
	}
	codeVerifier() {
		return this._verifier;
	}
	async redirectToAuthorization(url) {
		this.redirects.push(url);
		const resp = await fetch(url, { redirect: 'manual' });
		assert.equal(resp.status, 302, `authorize answered ${resp.status}`);
		const back = new URL(resp.headers.get('location'));
		assert.equal(back.searchParams.get('iss'), issuer);
		assert.ok(back.searchParams.get('code'), `no code in ${back}`);
		this.code = back.searchParams.get('code');
	}
}

// withAuth runs op, and when the SDK stopped for a redirect, finishes the
// authorization and runs op again.
async function withAuth(transport, provider, op) {
	try {
		return await op();
	} catch (e) {
		if (!(e instanceof UnauthorizedError) || !provider.code) throw e;
		const code = provider.code;
		provider.code = undefined;
		await transport.finishAuth(code);
		return await op();
	}
}

const provider = new Provider();
let client, transport;
await check('authorization code flow with PKCE and dynamic registration', async () => {
	transport = new StreamableHTTPClientTransport(new URL(target), { authProvider: provider });
	client = new Client({ name: 'ts-interop-auth', version: '1.0.0' });
	try {
		await client.connect(transport);
		assert.fail('connected without authorization');
	} catch (e) {
		if (!(e instanceof UnauthorizedError)) throw e;
	}
	assert.equal(provider.redirects.length, 1);
	const u = provider.redirects[0];
	assert.equal(u.searchParams.get('code_challenge_method'), 'S256');
	assert.equal(u.searchParams.get('resource'), target);
	assert.ok(provider.clientInformation()?.client_id, 'not registered');
	await transport.finishAuth(provider.code);
	provider.code = undefined;
	transport = new StreamableHTTPClientTransport(new URL(target), { authProvider: provider });
	client = new Client({ name: 'ts-interop-auth', version: '1.0.0' });
	await client.connect(transport);
	const tools = await client.listTools();
	assert.ok(tools.tools.some((t) => t.name === stepUpTool));
});

await check('step-up on 403 insufficient_scope', async () => {
	const before = provider.tokens()?.scope ?? '';
	const res = await withAuth(transport, provider, () => client.callTool({ name: stepUpTool, arguments: {} }));
	assert.ok(!res.isError, JSON.stringify(res));
	assert.equal(provider.redirects.length, 2, 'no second authorization');
	const scopes = provider.tokens().scope.split(' ');
	assert.ok(scopes.includes('mcp:admin') && scopes.includes('mcp:read'), `scopes after step-up: ${scopes}`);
	assert.ok(scopes.length > before.split(' ').filter(Boolean).length, `scopes ${before} -> ${scopes}`);
	await client.close();
});

await check('client credentials', async () => {
	const cc = new ClientCredentialsProvider({ clientId: ccID, clientSecret: ccSecret, expectedIssuer: issuer, scope: 'mcp:read mcp:admin' });
	const t = new StreamableHTTPClientTransport(new URL(target), { authProvider: cc });
	const c = new Client({ name: 'ts-interop-cc', version: '1.0.0' });
	await c.connect(t);
	const res = await c.callTool({ name: stepUpTool, arguments: {} });
	assert.ok(!res.isError, JSON.stringify(res));
	assert.ok(cc.tokens()?.access_token);
	await c.close();
});

if (failed) {
	console.log(`${failed} checks failed`);
	process.exit(1);
}
console.log('checks ok');
