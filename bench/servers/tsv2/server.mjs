// bench/servers/tsv2/server.mjs: the benchmark's server built on the
// TypeScript SDK 2 (@modelcontextprotocol/server 2.0.0 with
// @modelcontextprotocol/node 2.0.0) with its defaults: the echo and add tools
// over stdio (serveStdio), or over Streamable HTTP with --http HOST:PORT,
// wired as the SDK documents for serving both eras on one endpoint:
// requests of the stateless revision (2026-07-28) go to createMcpHandler,
// which builds a server per request; 2025-era traffic (isLegacyRequest) goes
// to a sessionful NodeStreamableHTTPServerTransport per session.
//
// MCP_TS_SDK_DIR must name the node_modules folder holding the packages and
// zod (scripts/tools.sh exports it).

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const sdkDir = process.env.MCP_TS_SDK_DIR;
if (!sdkDir) {
	console.error('MCP_TS_SDK_DIR is not set');
	process.exit(2);
}
const load = (p) => import(pathToFileURL(path.join(sdkDir, p)).href);
const { McpServer, createMcpHandler, isLegacyRequest } = await load('@modelcontextprotocol/server/dist/index.mjs');
const { z } = await load('zod/index.js');

function newServer() {
	const s = new McpServer({ name: 'bench-ts-v2', version: '1.0.0' });
	s.registerTool('echo', { description: 'echoes text', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
		content: [{ type: 'text', text }],
	}));
	s.registerTool(
		'add',
		{ description: 'adds two integers', inputSchema: z.object({ a: z.number().int(), b: z.number().int() }), outputSchema: z.object({ sum: z.number().int() }) },
		async ({ a, b }) => ({ content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }], structuredContent: { sum: a + b } }),
	);
	return s;
}

const i = process.argv.indexOf('--http');
if (i < 0) {
	const { serveStdio } = await load('@modelcontextprotocol/server/dist/stdio.mjs');
	serveStdio(() => newServer());
} else {
	const { toNodeHandler, toWebRequest, NodeStreamableHTTPServerTransport } = await load('@modelcontextprotocol/node/dist/index.mjs');
	const modern = toNodeHandler(createMcpHandler(() => newServer(), { legacy: 'reject' }));
	const [host, port] = process.argv[i + 1].split(':');
	const sessions = new Map();
	http
		.createServer(async (req, res) => {
			let body;
			if (req.method === 'POST') {
				const chunks = [];
				for await (const c of req) chunks.push(c);
				try {
					body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
				} catch {
					res.writeHead(400, { 'content-type': 'application/json' });
					res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
					return;
				}
			}
			if (!(await isLegacyRequest(await toWebRequest(req, body), body))) {
				await modern(req, res, body);
				return;
			}
			const sid = req.headers['mcp-session-id'];
			let t = sid && sessions.get(sid);
			if (!t) {
				if (sid) {
					res.writeHead(404).end('session not found');
					return;
				}
				t = new NodeStreamableHTTPServerTransport({
					sessionIdGenerator: () => randomUUID(),
					onsessioninitialized: (id) => sessions.set(id, t),
				});
				t.onclose = () => t.sessionId && sessions.delete(t.sessionId);
				await newServer().connect(t);
			}
			await t.handleRequest(req, res, body);
		})
		.listen(Number(port), host);
}
