// bench/servers/ts/server.mjs: the benchmark's server built on the official
// TypeScript SDK 1 (@modelcontextprotocol/sdk 1.32.2) with its defaults: the echo and
// add tools over stdio, or over Streamable HTTP with --http HOST:PORT (one
// McpServer and StreamableHTTPServerTransport per session, as the SDK's
// examples do).
//
// MCP_TS_SDK_DIR must name the node_modules folder holding the SDK and zod
// (scripts/tools.sh exports it).

import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const sdkDir = process.env.MCP_TS_SDK_DIR;
if (!sdkDir) {
	console.error('MCP_TS_SDK_DIR is not set');
	process.exit(2);
}
const sdk = (p) => import(pathToFileURL(path.join(sdkDir, '@modelcontextprotocol', 'sdk', 'dist', 'esm', p)).href);
const require = createRequire(path.join(sdkDir, 'index.js'));
const { z } = await import(pathToFileURL(require.resolve('zod')).href);
const { McpServer } = await sdk('server/mcp.js');

function newServer() {
	const s = new McpServer({ name: 'bench-ts', version: '1.0.0' });
	s.registerTool('echo', { description: 'echoes text', inputSchema: { text: z.string() } }, async ({ text }) => ({
		content: [{ type: 'text', text }],
	}));
	s.registerTool(
		'add',
		{ description: 'adds two integers', inputSchema: { a: z.number().int(), b: z.number().int() }, outputSchema: { sum: z.number().int() } },
		async ({ a, b }) => ({ content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }], structuredContent: { sum: a + b } }),
	);
	return s;
}

const i = process.argv.indexOf('--http');
if (i < 0) {
	const { StdioServerTransport } = await sdk('server/stdio.js');
	await newServer().connect(new StdioServerTransport());
} else {
	const { StreamableHTTPServerTransport } = await sdk('server/streamableHttp.js');
	const { isInitializeRequest } = await sdk('types.js');
	const [host, port] = process.argv[i + 1].split(':');
	const transports = new Map();
	http
		.createServer(async (req, res) => {
			const chunks = [];
			for await (const c of req) chunks.push(c);
			const text = Buffer.concat(chunks).toString();
			const body = text ? JSON.parse(text) : undefined;
			const sid = req.headers['mcp-session-id'];
			let t = sid && transports.get(sid);
			if (!t && !sid && req.method === 'POST' && isInitializeRequest(body)) {
				t = new StreamableHTTPServerTransport({
					sessionIdGenerator: () => randomUUID(),
					onsessioninitialized: (id) => transports.set(id, t),
				});
				t.onclose = () => t.sessionId && transports.delete(t.sessionId);
				await newServer().connect(t);
			}
			if (!t) {
				res.writeHead(404).end('session not found');
				return;
			}
			await t.handleRequest(req, res, body);
		})
		.listen(Number(port), host);
}
