// interop/ts/server_v2.mjs is a server built with the TypeScript SDK 2
// (@modelcontextprotocol/server 2.0.0, @modelcontextprotocol/node 2.0.0) the
// way its documentation shows, offering every server feature, for gomcp's
// client to drive (interop/ts_v2_test.go).
//
// Usage: node server_v2.mjs stdio | http
//
// stdio: serveStdio, which serves 2026-07-28 (server/discover) and the 2025
// handshake on one connection. http: createMcpHandler behind node:http on a
// free loopback port, announced as "listening on http://127.0.0.1:PORT/mcp"
// on stdout; 2026-07-28 requests go to the handler, 2025-era traffic
// (isLegacyRequest) to a sessionful NodeStreamableHTTPServerTransport per
// session, the wiring the SDK documents for keeping 2025 clients served.
//
// What the tools observe and cannot answer (a cancellation) they write to
// stderr as "event: ..." lines.
//
// MCP_TS_SDK_DIR must name the node_modules folder holding the packages.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [mode] = process.argv.slice(2);
const sdkDir = process.env.MCP_TS_SDK_DIR;
if (!['stdio', 'http'].includes(mode) || !sdkDir) {
	console.error('usage: MCP_TS_SDK_DIR=<node_modules> node server_v2.mjs stdio|http');
	process.exit(2);
}
const load = (p) => import(pathToFileURL(path.join(sdkDir, p)).href);
const { McpServer, ResourceTemplate, completable, inputRequired, acceptedContent, createMcpHandler, isLegacyRequest } =
	await load('@modelcontextprotocol/server/dist/index.mjs');
const { serveStdio } = await load('@modelcontextprotocol/server/dist/stdio.mjs');
const { toNodeHandler, toWebRequest, NodeStreamableHTTPServerTransport } = await load('@modelcontextprotocol/node/dist/index.mjs');
const { z } = await load('zod/index.js');

const event = (s) => process.stderr.write(`event: ${s}\n`);
const text = (s) => ({ content: [{ type: 'text', text: s }] });
const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]).toString('base64');
const NAMES = ['alice', 'albert', 'bob'];

// newServer is the one factory behind every era and transport.
function newServer() {
	const server = new McpServer(
		{ name: 'ts-v2-fixture', version: '2.0.0' },
		{ capabilities: { logging: {}, completions: {} }, instructions: 'The TypeScript SDK 2 interop fixture.' },
	);

	server.registerTool(
		'add',
		{ description: 'add two integers', inputSchema: z.object({ a: z.number().int(), b: z.number().int() }), outputSchema: z.object({ sum: z.number().int() }) },
		async ({ a, b }) => ({ content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }], structuredContent: { sum: a + b } }),
	);
	server.registerTool('echo', { description: 'echo text', inputSchema: z.object({ text: z.string() }) }, async ({ text: s }) => text(s));
	server.registerTool('fail', { description: 'always fails' }, async () => {
		throw new Error('boom');
	});
	server.registerTool('progress', { description: 'reports progress, then logs' }, async (ctx) => {
		const token = ctx.mcpReq._meta?.progressToken;
		for (const [i, message] of ['one', 'two', 'three'].entries()) {
			if (token !== undefined) {
				await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i + 1, total: 3, message } });
			}
		}
		await ctx.mcpReq.log('info', 'progress done', 'fixture');
		return text('done');
	});
	server.registerTool('log', { description: 'logs at four levels' }, async (ctx) => {
		for (const [n, level] of ['debug', 'info', 'warning', 'error'].entries()) {
			await ctx.mcpReq.log(level, { n, level }, 'fixture');
		}
		return text('logged');
	});
	// The tools that need the client's input are written in the
	// multi-round-trip style the SDK documents: at 2026-07-28 the client
	// fulfils and retries; on a 2025 session the SDK's legacy shim sends
	// real requests.
	server.registerTool('sample', { description: "asks the client's model", inputSchema: z.object({ text: z.string() }) }, async ({ text: s }, ctx) => {
		const res = ctx.mcpReq.inputResponses?.sampling;
		if (!res) {
			return inputRequired({
				inputRequests: { sampling: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: s } }], maxTokens: 50 }) },
			});
		}
		const content = Array.isArray(res.content) ? res.content : [res.content];
		return text(`${res.model}: ${content.map((c) => c.text).join('')}`);
	});
	server.registerTool('elicit', { description: 'asks the user for a name' }, async (ctx) => {
		const answer = acceptedContent(ctx.mcpReq.inputResponses, 'name');
		if (!answer) {
			return inputRequired({
				inputRequests: {
					name: inputRequired.elicit({
						message: 'What is your name?',
						requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
					}),
				},
			});
		}
		return text(`accept ${answer.name}`);
	});
	server.registerTool('roots', { description: "lists the client's roots" }, async (ctx) => {
		const res = ctx.mcpReq.inputResponses?.roots;
		if (!res) {
			return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
		}
		return text(res.roots.map((r) => r.uri).join(','));
	});
	server.registerTool('block', { description: 'waits until cancelled' }, async (ctx) => {
		event('block started');
		await new Promise((resolve) => {
			const timer = setTimeout(resolve, 20000);
			ctx.mcpReq.signal.addEventListener('abort', () => {
				clearTimeout(timer);
				event('block cancelled');
				resolve();
			});
		});
		return text('not cancelled');
	});
	server.registerTool('image', { description: 'returns an image and an embedded resource' }, async () => ({
		content: [
			{ type: 'image', data: LOGO, mimeType: 'image/png' },
			{ type: 'resource', resource: { uri: 'file:///hello.txt', mimeType: 'text/plain', text: 'hello world' } },
		],
	}));

	server.registerResource('hello', 'file:///hello.txt', { mimeType: 'text/plain' }, async (uri) => ({
		contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello world' }],
	}));
	server.registerResource('logo', 'file:///logo.png', { mimeType: 'image/png' }, async (uri) => ({
		contents: [{ uri: uri.href, mimeType: 'image/png', blob: LOGO }],
	}));
	server.registerResource(
		'user',
		new ResourceTemplate('file:///users/{id}', { list: undefined, complete: { id: (v) => ['1', '2', '42'].filter((id) => id.startsWith(v)) } }),
		{ mimeType: 'text/plain' },
		async (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `user ${id}` }] }),
	);
	server.registerPrompt(
		'greet',
		{ description: 'greets someone', argsSchema: z.object({ name: completable(z.string(), (v) => NAMES.filter((n) => n.startsWith(v))) }) },
		async ({ name }) => ({ description: 'a greeting', messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] }),
	);
	return server;
}

if (mode === 'stdio') {
	serveStdio(() => newServer(), { onerror: (err) => event(`error ${err.message}`) });
} else {
	const modern = createMcpHandler(() => newServer(), { legacy: 'reject' });
	const legacySessions = new Map();
	const modernNode = toNodeHandler(modern);
	const http = createServer(async (req, res) => {
		try {
			// Both legs take the body parsed, as behind a body parser.
			let body;
			if (req.method === 'POST') {
				const chunks = [];
				for await (const chunk of req) {
					chunks.push(chunk);
				}
				try {
					body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
				} catch {
					res.writeHead(400, { 'content-type': 'application/json' });
					res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
					return;
				}
			}
			if (!(await isLegacyRequest(await toWebRequest(req, body), body))) {
				await modernNode(req, res, body);
				return;
			}
			const sid = req.headers['mcp-session-id'];
			let transport = sid ? legacySessions.get(sid) : undefined;
			if (!transport) {
				if (sid) {
					res.writeHead(404).end();
					return;
				}
				transport = new NodeStreamableHTTPServerTransport({
					sessionIdGenerator: () => randomUUID(),
					onsessioninitialized: (id) => legacySessions.set(id, transport),
				});
				transport.onclose = () => legacySessions.delete(transport.sessionId);
				await newServer().connect(transport);
			}
			await transport.handleRequest(req, res, body);
		} catch (err) {
			event(`error ${err.message}`);
			if (!res.headersSent) {
				res.writeHead(500).end();
			}
		}
	});
	http.listen(0, '127.0.0.1', () => {
		console.log(`listening on http://127.0.0.1:${http.address().port}/mcp`);
	});
	process.on('SIGTERM', async () => {
		await modern.close();
		for (const t of legacySessions.values()) {
			await t.close();
		}
		http.close(() => process.exit(0));
		http.closeAllConnections();
	});
}
