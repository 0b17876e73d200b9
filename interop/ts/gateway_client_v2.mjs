// interop/ts/gateway_client_v2.mjs drives a gomcp gateway with the
// TypeScript SDK 2 client (@modelcontextprotocol/client) over Streamable
// HTTP, in one of two eras, and checks that it offers what its upstreams
// offer under their namespaced names (see interop/gateway_test.go).
//
// Usage: node gateway_client_v2.mjs <url> <auto | legacy> <want.json> <root>
//
// want.json holds {"tools", "prompts", "resources", "templates"}: the sorted
// names the gateway must list. root is the directory server-filesystem
// serves, holding hello.txt.
//
// It prints one line per check ("ok ..." or "FAIL ...") and exits 1 if any
// check failed, 2 on a usage error.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { check, failed, finish, waitFor } from './harness.mjs';

const [url, era, wantFile, root] = process.argv.slice(2);
const sdkDir = process.env.MCP_TS_SDK_DIR;
if (!url || !['auto', 'legacy'].includes(era) || !wantFile || !root || !sdkDir) {
	console.error('usage: MCP_TS_SDK_DIR=<node_modules> node gateway_client_v2.mjs <url> <auto | legacy> <want.json> <root>');
	process.exit(2);
}
const modern = era === 'auto';
const want = JSON.parse(fs.readFileSync(wantFile, 'utf8'));

const pkg = (p) => import(pathToFileURL(path.join(sdkDir, '@modelcontextprotocol', 'client', 'dist', p)).href);
const { Client, StreamableHTTPClientTransport } = await pkg('index.mjs');



const textOf = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

// all collects every page of a list method.
async function all(list, field) {
	const out = [];
	let cursor;
	do {
		const page = await list(cursor ? { cursor } : undefined);
		out.push(...page[field]);
		cursor = page.nextCursor;
	} while (cursor);
	return out;
}

const updated = [];
const listChanged = { tools: 0 };
const client = new Client(
	{ name: 'gomcp-interop-gateway-ts-v2', version: '2.4.0' },
	{
		capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
		versionNegotiation: { mode: modern ? 'auto' : 'legacy' },
	},
);
client.setRequestHandler('sampling/createMessage', async () => ({
	role: 'assistant',
	content: { type: 'text', text: 'from the TypeScript client' },
	model: 'ts-v2',
	stopReason: 'endTurn',
}));
client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
client.setRequestHandler('roots/list', async () => ({ roots: [] }));
client.setNotificationHandler('notifications/resources/updated', (n) => updated.push(n.params.uri));
client.setNotificationHandler('notifications/tools/list_changed', () => listChanged.tools++);

await check(`connect (${era})`, async () => {
	await client.connect(new StreamableHTTPClientTransport(new URL(url)));
});
if (failed() > 0) {
	console.log(`gateway ts-v2-client (${era}): could not connect`);
	process.exit(1);
}

await check(`negotiated ${modern ? '2026-07-28' : '2025-11-25'}`, () => {
	assert.equal(client.getNegotiatedProtocolVersion(), modern ? '2026-07-28' : '2025-11-25');
});

const sorted = (a) => [...a].sort();
await check('every tool of every upstream, namespaced', async () => {
	const tools = await all((p) => client.listTools(p), 'tools');
	assert.deepEqual(sorted(tools.map((t) => t.name)), want.tools);
});
await check('every prompt, namespaced', async () => {
	const prompts = await all((p) => client.listPrompts(p), 'prompts');
	assert.deepEqual(sorted(prompts.map((p) => p.name)), want.prompts);
});
await check('every resource', async () => {
	const resources = await all((p) => client.listResources(p), 'resources');
	assert.deepEqual(sorted(resources.map((r) => r.uri)), want.resources);
});
await check('every resource template', async () => {
	const templates = await all((p) => client.listResourceTemplates(p), 'resourceTemplates');
	assert.deepEqual(sorted(templates.map((r) => r.uriTemplate)), want.templates);
});

for (const [name, args, expect] of [
	['ours_test_simple_text', {}, 'This is a simple text response for testing.'],
	['ref_echo', { message: 'ts through the gateway' }, 'Echo: ts through the gateway'],
	['fs_read_text_file', { path: path.join(root, 'hello.txt') }, 'hello from the gateway test'],
	['remote_echo', { text: 'ts through the gateway' }, 'ts through the gateway'],
	['remote_add', { a: 2, b: 3 }, '{"sum":5}'],
]) {
	await check(`tools/call ${name}`, async () => {
		const res = await client.callTool({ name, arguments: args });
		assert.ok(!res.isError, JSON.stringify(res));
		assert.ok(textOf(res).includes(expect), textOf(res));
	});
}

await check('every resource read', async () => {
	for (const uri of want.resources) {
		const res = await client.readResource({ uri });
		assert.ok(res.contents.length > 0, uri);
	}
	const [c] = (await client.readResource({ uri: 'file:///users/7' })).contents;
	assert.equal(c.text, 'user 7');
});

await check('prompts/get of three upstreams', async () => {
	assert.ok((await client.getPrompt({ name: 'ours_test_simple_prompt' })).messages.length > 0);
	assert.ok((await client.getPrompt({ name: 'ref_simple-prompt' })).messages.length > 0);
	const res = await client.getPrompt({ name: 'remote_greet', arguments: { name: 'bob' } });
	assert.equal(res.messages[0].content.text, 'Hello, bob!');
});

if (modern) {
	await check('subscriptions/listen: tools/list_changed from an upstream arrives', async () => {
		const sub = await client.listen({ toolsListChanged: true });
		const before = listChanged.tools;
		assert.equal(textOf(await client.callTool({ name: 'ours_test_trigger_tool_change' })), 'Tool list changed');
		await waitFor('notifications/tools/list_changed', () => listChanged.tools > before, 10000);
		assert.equal(textOf(await client.callTool({ name: 'ours_test_trigger_tool_change' })), 'Tool list changed');
		await sub.close();
	});
} else {
	await check('resources/subscribe: an upstream\'s update arrives', async () => {
		const uri = 'demo://resource/static/document/architecture.md';
		await client.subscribeResource({ uri });
		assert.ok(textOf(await client.callTool({ name: 'ref_toggle-subscriber-updates', arguments: {} })).startsWith('Started'));
		await waitFor(`notifications/resources/updated for ${uri}`, () => updated.includes(uri), 10000);
		assert.ok(textOf(await client.callTool({ name: 'ref_toggle-subscriber-updates', arguments: {} })).startsWith('Stopped'));
		await client.unsubscribeResource({ uri });
	});
}

await client.close();
finish(`gateway ts-v2-client (${era})`);
