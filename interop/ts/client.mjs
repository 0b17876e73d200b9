// interop/ts/client.mjs drives gomcp's everything-server with the official
// TypeScript SDK client (@modelcontextprotocol/sdk), over stdio or Streamable
// HTTP, through every feature the server offers, and checks each answer the
// way the MCP conformance suite does.
//
// Usage: node client.mjs <target> <expected json_schema_2020_12_tool inputSchema>
//
// target is either the everything-server binary, which the SDK starts and
// talks to over stdio, or the URL of a running everything-server's
// Streamable HTTP endpoint (http://HOST:PORT/mcp).
//
// MCP_TS_SDK_DIR must name the node_modules folder holding
// @modelcontextprotocol/sdk (scripts/tools.sh exports it). Node ignores
// NODE_PATH for ES modules, so the SDK is imported by absolute path.
//
// It prints one line per check ("ok ..." or "FAIL ...") and exits 1 if any
// check failed, 2 on a usage error.

import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { check, failed, finish, sleep } from './harness.mjs';

const [target, expectedSchemaText] = process.argv.slice(2);
const sdkDir = process.env.MCP_TS_SDK_DIR;
if (!target || !expectedSchemaText || !sdkDir) {
	console.error(
		'usage: MCP_TS_SDK_DIR=<node_modules> node client.mjs <everything-server binary | http://HOST:PORT/mcp> <expected 2020-12 inputSchema JSON>',
	);
	process.exit(2);
}
const expectedSchema = JSON.parse(expectedSchemaText);
const overHTTP = /^https?:\/\//.test(target);
const mode = overHTTP ? 'streamable-http' : 'stdio';

const sdk = (p) => import(pathToFileURL(path.join(sdkDir, '@modelcontextprotocol', 'sdk', 'dist', 'esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const {
	CreateMessageRequestSchema,
	ElicitRequestSchema,
	EmptyResultSchema,
	LoggingMessageNotificationSchema,
	LATEST_PROTOCOL_VERSION,
	McpError,
} = await sdk('types.js');

// rejectsWith asserts that p fails with an McpError of the given code.
async function rejectsWith(p, code) {
	let err;
	try {
		await p;
	} catch (e) {
		err = e;
	}
	assert.ok(err, `expected an error with code ${code}, got success`);
	assert.ok(err instanceof McpError, `expected McpError ${code}, got ${err}`);
	assert.equal(err.code, code, `error code (message: ${err.message})`);
}

// tolerateLateProgress removes from clientErrors the SDK's complaint about
// the final progress notification of a request whose result was processed
// first (modelcontextprotocol/typescript-sdk#2580), and says so.
function tolerateLateProgress(token) {
	const pattern = `"progressToken":${JSON.stringify(token)}}`;
	const i = clientErrors.findIndex((e) => e.includes('unknown token') && e.includes(pattern));
	assert.ok(i >= 0, `final progress event missing and no unknown-token error for ${token}: ${JSON.stringify(clientErrors)}`);
	clientErrors.splice(i, 1);
	console.log('note typescript-sdk#2580: the SDK dropped the final progress notification that arrived with the result');
}

// waitFor polls cond for up to ms milliseconds.
async function waitFor(cond, ms = 2000) {
	const end = Date.now() + ms;
	while (!cond() && Date.now() < end) {
		await sleep(5);
	}
}

// ---- fixtures ----------------------------------------------------------------

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function assertPNG(b64) {
	const bytes = Buffer.from(b64, 'base64');
	assert.ok(bytes.subarray(0, 8).equals(PNG_MAGIC), `not a PNG: ${b64.slice(0, 24)}...`);
	assert.equal(bytes.toString('base64'), b64, 'data is not canonical base64');
}

function assertImage(block) {
	assert.equal(block.type, 'image');
	assert.equal(block.mimeType, 'image/png');
	assertPNG(block.data);
}

function textOf(result) {
	assert.ok(Array.isArray(result.content), 'content is not an array');
	assert.equal(result.content.length, 1, `want one content block, got ${JSON.stringify(result.content)}`);
	assert.equal(result.content[0].type, 'text');
	return result.content[0].text;
}

const TOOLS = [
	'test_simple_text',
	'test_image_content',
	'test_audio_content',
	'test_embedded_resource',
	'test_multiple_content_types',
	'test_tool_with_logging',
	'test_error_handling',
	'test_tool_with_progress',
	'test_sampling',
	'test_elicitation',
	'test_elicitation_sep1034_defaults',
	'test_elicitation_sep1330_enums',
	'json_schema_2020_12_tool',
];

const SAMPLING_ANSWER = 'This is a test response from the TypeScript client';

// ---- the session --------------------------------------------------------------

// Every message the server sends, parsed, in the order the client receives
// it: the wire as it was, before the SDK's schemas reshaped anything. rawLines
// holds the same messages as text: stdout lines over stdio; SSE data fields
// and JSON bodies over Streamable HTTP.
const wire = [];
const rawLines = [];
let stderr = '';
const clientErrors = [];
// Over Streamable HTTP, every exchange the transport had: the request's
// method and session headers, the answer's status, media type and session id.
const exchanges = [];
// Whether the taps below see the server's output.
let tapped = false;

function record(text) {
	rawLines.push(text);
	try {
		wire.push(JSON.parse(text));
	} catch {
		wire.push({ unparsable: text });
	}
}

function mediaTypeOf(res) {
	return (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

// sseTap returns a function fed the text of an SSE body piece by piece; it
// records the data of each event that has some (priming events have none).
function sseTap() {
	let pending = '';
	let data = null;
	return (text, end) => {
		pending += text;
		let nl;
		while ((nl = pending.indexOf('\n')) >= 0) {
			const line = pending.slice(0, nl).replace(/\r$/, '');
			pending = pending.slice(nl + 1);
			if (line === '') {
				if (data !== null && data !== '') {
					record(data);
				}
				data = null;
			} else if (line.startsWith('data:')) {
				const v = line.slice(line.startsWith('data: ') ? 6 : 5);
				data = data === null ? v : `${data}\n${v}`;
			}
		}
		if (end && data !== null && data !== '') {
			record(data); // an event the stream ended without terminating
		}
	};
}

// jsonTap returns a function fed the text of a JSON body; it records the
// body when it ends.
function jsonTap() {
	let body = '';
	return (text, end) => {
		body += text;
		if (end && body.trim() !== '') {
			record(body);
		}
	};
}

// tapFetch is the fetch the Streamable HTTP transport uses. It notes each
// exchange and copies the messages of every successful JSON or SSE answer to
// the wire as the bytes pass through, before the SDK reads them, so wire
// keeps the order in which messages arrived.
async function tapFetch(url, init) {
	tapped = true;
	const res = await fetch(url, init);
	const sent = new Headers(init?.headers);
	const ex = {
		method: init?.method ?? 'GET',
		sessionId: sent.get('mcp-session-id'),
		protocolVersion: sent.get('mcp-protocol-version'),
		status: res.status,
		type: mediaTypeOf(res),
		issuedSessionId: res.headers.get('mcp-session-id'),
	};
	exchanges.push(ex);
	let feed;
	if (ex.type === 'text/event-stream') {
		feed = sseTap();
	} else if (ex.type === 'application/json') {
		feed = jsonTap();
	}
	if (!res.ok || !res.body || !feed) {
		return res;
	}
	const decoder = new TextDecoder();
	const body = res.body.pipeThrough(
		new TransformStream({
			transform(chunk, ctl) {
				feed(decoder.decode(chunk, { stream: true }), false);
				ctl.enqueue(chunk);
			},
			flush() {
				feed(decoder.decode(), true);
			},
		}),
	);
	return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

let transport;
if (overHTTP) {
	transport = new StreamableHTTPClientTransport(new URL(target), { fetch: tapFetch });
} else {
	transport = new StdioClientTransport({ command: target, args: [], stderr: 'pipe' });
	transport.stderr?.on('data', (chunk) => {
		stderr += chunk.toString();
	});
	// Tap the raw stdout bytes: the SDK hands each chunk to its read buffer.
	const readBuffer = transport._readBuffer;
	tapped = typeof readBuffer?.append === 'function';
	if (tapped) {
		const append = readBuffer.append.bind(readBuffer);
		let rawPending = '';
		readBuffer.append = (chunk) => {
			rawPending += chunk.toString('utf8');
			let nl;
			while ((nl = rawPending.indexOf('\n')) >= 0) {
				const line = rawPending.slice(0, nl).replace(/\r$/, '');
				rawPending = rawPending.slice(nl + 1);
				record(line);
			}
			append(chunk);
		};
	}
}

// elicitReply decides how the client answers each elicitation/create; tests
// set it before calling the tool that elicits.
let elicitReply = () => ({ action: 'cancel' });
const elicitRequests = [];
const samplingRequests = [];
const logs = [];

const client = new Client(
	{ name: 'gomcp-interop-ts-client', version: '1.0.0' },
	{ capabilities: { sampling: {}, elicitation: { form: { applyDefaults: true } } } },
);
client.onerror = (err) => clientErrors.push(err instanceof Error ? err.message : String(err));
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
	samplingRequests.push(req.params);
	return {
		role: 'assistant',
		content: { type: 'text', text: SAMPLING_ANSWER },
		model: 'interop-test-model',
		stopReason: 'endTurn',
	};
});
client.setRequestHandler(ElicitRequestSchema, async (req) => {
	elicitRequests.push(req.params);
	return elicitReply(req.params);
});
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
	logs.push(n.params);
});

await check(`initialize: connect over ${mode}`, async () => {
	await client.connect(transport);
});
if (failed() > 0) {
	finish();
}

// How the server exits: the SDK forgets its child process on close.
let exited = null;
const exitSeen = new Promise((resolve) => {
	const child = transport._process;
	if (!child) {
		resolve();
		return;
	}
	child.on('exit', (code, signal) => {
		exited = { code, signal };
		resolve();
	});
});

await check('initialize: raw server output is observable', () => {
	assert.ok(
		tapped,
		overHTTP
			? 'the SDK did not use the fetch option; update the tap in client.mjs'
			: 'the SDK no longer has transport._readBuffer.append; update the tap in client.mjs',
	);
	const init = wire.find((m) => m.id === 0 && m.result);
	assert.ok(init, 'initialize response not seen on the wire');
});

await check('initialize: negotiated protocol version', () => {
	const init = wire.find((m) => m.id === 0 && m.result);
	assert.equal(init.result.protocolVersion, LATEST_PROTOCOL_VERSION);
});

await check('initialize: serverInfo and instructions', () => {
	assert.deepEqual(client.getServerVersion(), { name: 'gomcp-everything-server', version: '1.0.0' });
	assert.equal(client.getInstructions(), 'The gomcp conformance fixture server.');
});

await check('initialize: capabilities', () => {
	assert.deepEqual(client.getServerCapabilities(), {
		logging: {},
		completions: {},
		prompts: { listChanged: true },
		resources: { subscribe: true, listChanged: true },
		tools: { listChanged: true },
		// 2025-11-25 core tasks (package tasks): tools/call as a task.
		tasks: { cancel: {}, list: {}, requests: { tools: { call: {} } } },
		// Extensions are negotiated in initialize at every revision, as the
		// TypeScript SDK 2 and MCP Apps hosts do (the 2026 tasks extension
		// is not offered here, beside the revision's core tasks).
		extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
	});
});

if (overHTTP) {
	await check('streamable-http: initialize answered 200 with an Mcp-Session-Id', () => {
		const [init] = exchanges;
		assert.equal(init?.method, 'POST');
		assert.equal(init.status, 200, `initialize answered ${init.status} ${init.type}`);
		assert.ok(init.issuedSessionId, 'no Mcp-Session-Id header');
		assert.equal(transport.sessionId, init.issuedSessionId);
	});

	await check('streamable-http: the standalone GET stream is open', async () => {
		await waitFor(() => exchanges.some((e) => e.method === 'GET'));
		const get = exchanges.find((e) => e.method === 'GET');
		assert.ok(get, 'the SDK opened no GET stream');
		assert.deepEqual([get.status, get.type], [200, 'text/event-stream']);
	});
}

await check('ping', async () => {
	assert.deepEqual(await client.ping(), {});
});

// ---- tools ----------------------------------------------------------------------

let tools = [];
await check('tools/list: every fixture, in order, on one page', async () => {
	const res = await client.listTools();
	tools = res.tools;
	// The fixture server may grow; the tools checked here stay, in order.
	const names = tools.map((t) => t.name);
	assert.deepEqual(names.filter((n) => TOOLS.includes(n)), TOOLS, `tools: ${names.join(', ')}`);
	assert.equal(res.nextCursor, undefined, 'unexpected nextCursor');
	for (const t of tools.filter((t) => TOOLS.includes(t.name))) {
		assert.equal(t.inputSchema.type, 'object', `${t.name} inputSchema type`);
		assert.ok(t.description, `${t.name} has no description`);
		assert.equal(t.outputSchema, undefined, `${t.name} has an outputSchema`);
	}
});

await check('tools/list: inferred argument schemas', () => {
	const sampling = tools.find((t) => t.name === 'test_sampling');
	assert.equal(sampling?.inputSchema.properties?.prompt?.type, 'string');
	assert.deepEqual(sampling.inputSchema.required, ['prompt']);
	const elicit = tools.find((t) => t.name === 'test_elicitation');
	assert.equal(elicit?.inputSchema.properties?.message?.type, 'string');
	assert.deepEqual(elicit.inputSchema.required, ['message']);
});

await check('tools/list: json_schema_2020_12_tool inputSchema preserved (parsed)', () => {
	const t = tools.find((t) => t.name === 'json_schema_2020_12_tool');
	assert.ok(t, 'tool missing');
	assert.deepEqual(t.inputSchema, expectedSchema);
});

await check('tools/list: json_schema_2020_12_tool inputSchema byte-identical on the wire', () => {
	const line = rawLines.find((l) => l.includes('"json_schema_2020_12_tool"') && l.includes('"tools"'));
	assert.ok(line, 'tools/list response not seen on the wire');
	assert.ok(
		line.includes(`"inputSchema":${expectedSchemaText}`),
		`inputSchema bytes differ from everything.JSONSchema202012 in: ${line}`,
	);
});

await check('tools/list: invalid cursor is -32602', async () => {
	await rejectsWith(client.listTools({ cursor: 'not-a-cursor' }), -32602);
});

await check('tools/call test_simple_text', async () => {
	const res = await client.callTool({ name: 'test_simple_text' });
	assert.deepEqual(res.content, [{ type: 'text', text: 'This is a simple text response for testing.' }]);
	assert.ok(!res.isError);
});

await check('tools/call test_image_content', async () => {
	const res = await client.callTool({ name: 'test_image_content', arguments: {} });
	assert.equal(res.content.length, 1);
	assertImage(res.content[0]);
});

await check('tools/call test_audio_content', async () => {
	const res = await client.callTool({ name: 'test_audio_content' });
	assert.equal(res.content.length, 1);
	const [block] = res.content;
	assert.equal(block.type, 'audio');
	assert.equal(block.mimeType, 'audio/wav');
	const bytes = Buffer.from(block.data, 'base64');
	assert.equal(bytes.subarray(0, 4).toString('latin1'), 'RIFF');
	assert.equal(bytes.subarray(8, 12).toString('latin1'), 'WAVE');
});

await check('tools/call test_embedded_resource', async () => {
	const res = await client.callTool({ name: 'test_embedded_resource' });
	assert.deepEqual(res.content, [
		{
			type: 'resource',
			resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
		},
	]);
});

await check('tools/call test_multiple_content_types', async () => {
	const res = await client.callTool({ name: 'test_multiple_content_types' });
	assert.equal(res.content.length, 3);
	assert.deepEqual(res.content[0], { type: 'text', text: 'Multiple content types test:' });
	assertImage(res.content[1]);
	const r = res.content[2];
	assert.equal(r.type, 'resource');
	assert.equal(r.resource.uri, 'test://mixed-content-resource');
	assert.equal(r.resource.mimeType, 'application/json');
	assert.deepEqual(JSON.parse(r.resource.text), { test: 'data', value: 123 });
});

await check('logging/setLevel debug + tools/call test_tool_with_logging: 3 notifications/message', async () => {
	assert.deepEqual(await client.setLoggingLevel('debug'), {});
	logs.length = 0;
	const res = await client.callTool({ name: 'test_tool_with_logging' });
	assert.equal(textOf(res), 'Logging test completed');
	await waitFor(() => logs.length >= 3);
	assert.deepEqual(
		logs.map((l) => [l.level, l.logger, l.data]),
		[
			['info', 'everything', 'Tool execution started'],
			['info', 'everything', 'Tool processing data'],
			['info', 'everything', 'Tool execution completed'],
		],
	);
});

await check('logging/setLevel warning filters the info messages out', async () => {
	await client.setLoggingLevel('warning');
	logs.length = 0;
	const res = await client.callTool({ name: 'test_tool_with_logging' });
	assert.equal(textOf(res), 'Logging test completed');
	await sleep(50);
	assert.deepEqual(logs, []);
	await client.setLoggingLevel('debug');
});

await check('logging/setLevel with an unknown level is -32602', async () => {
	await rejectsWith(client.request({ method: 'logging/setLevel', params: { level: 'loud' } }, EmptyResultSchema), -32602);
});

await check('tools/call test_error_handling: isError result', async () => {
	const res = await client.callTool({ name: 'test_error_handling' });
	assert.equal(res.isError, true);
	assert.deepEqual(res.content, [{ type: 'text', text: 'This tool intentionally returns an error for testing' }]);
});

await check('tools/call test_tool_with_progress: 3 progress notifications', async () => {
	const events = [];
	const wireBefore = wire.length;
	const res = await client.callTool({ name: 'test_tool_with_progress' }, undefined, {
		onprogress: (e) => events.push(e),
	});
	assert.equal(textOf(res), 'Progress test completed');
	// What the server sent: three notifications, in order, before the result.
	const sent = wire.slice(wireBefore);
	const progress = sent.filter((m) => m.method === 'notifications/progress');
	const want = [
		[0, 100, 'progress 0%'],
		[50, 100, 'progress 50%'],
		[100, 100, 'progress 100%'],
	];
	assert.deepEqual(
		progress.map((m) => [m.params.progress, m.params.total, m.params.message]),
		want,
	);
	const token = progress[0].params.progressToken;
	assert.ok(progress.every((m) => m.params.progressToken === token), 'progress tokens differ');
	const answer = sent.findIndex((m) => m.id === token && 'result' in m);
	assert.ok(answer > sent.lastIndexOf(progress[2]), 'the result was sent before the last progress notification');
	// What the SDK delivered. It dispatches notifications a microtask later
	// than responses, so a last notification read in the same chunk as the
	// result reaches onerror ("unknown token") instead of onprogress:
	// modelcontextprotocol/typescript-sdk#2580. Tolerate exactly that.
	await sleep(20);
	assert.ok(events.length >= 2, `onprogress saw ${events.length} events`);
	assert.deepEqual(events.map((e) => [e.progress, e.total, e.message]), want.slice(0, events.length));
	if (events.length === 2) {
		tolerateLateProgress(token);
	}
});

await check('tools/call test_sampling: sampling/createMessage round trip', async () => {
	samplingRequests.length = 0;
	const res = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Test prompt for sampling' } });
	assert.equal(textOf(res), `LLM response: ${SAMPLING_ANSWER}`);
	assert.equal(samplingRequests.length, 1);
	const p = samplingRequests[0];
	assert.equal(p.maxTokens, 100);
	assert.deepEqual(p.messages, [{ role: 'user', content: { type: 'text', text: 'Test prompt for sampling' } }]);
});

await check('tools/call test_sampling without its required argument: isError', async () => {
	const res = await client.callTool({ name: 'test_sampling', arguments: {} });
	assert.equal(res.isError, true, JSON.stringify(res));
});

await check('tools/call test_elicitation: accept', async () => {
	elicitRequests.length = 0;
	elicitReply = () => ({ action: 'accept', content: { username: 'testuser', email: 'test@example.com' } });
	const res = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Please provide your information' } });
	assert.equal(textOf(res), 'User response: <action: accept, content: {"email":"test@example.com","username":"testuser"}>');
	assert.equal(elicitRequests.length, 1);
	const p = elicitRequests[0];
	assert.equal(p.message, 'Please provide your information');
	assert.deepEqual(p.requestedSchema, {
		type: 'object',
		properties: {
			username: { type: 'string', description: "User's response" },
			email: { type: 'string', description: "User's email address" },
		},
		required: ['username', 'email'],
	});
});

await check('tools/call test_elicitation: decline', async () => {
	elicitReply = () => ({ action: 'decline' });
	const res = await client.callTool({ name: 'test_elicitation', arguments: { message: 'again' } });
	assert.equal(textOf(res), 'User response: <action: decline, content: null>');
});

await check('tools/call test_elicitation_sep1034_defaults: defaults sent and applied', async () => {
	elicitRequests.length = 0;
	elicitReply = () => ({ action: 'accept', content: {} }); // the client fills in the defaults
	const res = await client.callTool({ name: 'test_elicitation_sep1034_defaults' });
	assert.equal(
		textOf(res),
		'Elicitation completed: action=accept, content={"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}',
	);
	const p = elicitRequests[0];
	assert.equal(p.message, 'Please review your profile');
	assert.deepEqual(p.requestedSchema, {
		type: 'object',
		properties: {
			name: { type: 'string', description: 'User name', default: 'John Doe' },
			age: { type: 'integer', description: 'User age', default: 30 },
			score: { type: 'number', description: 'User score', default: 95.5 },
			status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
			verified: { type: 'boolean', description: 'Verified', default: true },
		},
	});
});

await check('tools/call test_elicitation_sep1330_enums: every enum form', async () => {
	elicitRequests.length = 0;
	elicitReply = () => ({
		action: 'accept',
		content: {
			untitledSingle: 'option1',
			titledSingle: 'value2',
			legacyEnum: 'opt3',
			untitledMulti: ['option1', 'option3'],
			titledMulti: ['value1'],
		},
	});
	const res = await client.callTool({ name: 'test_elicitation_sep1330_enums' });
	assert.equal(
		textOf(res),
		'Elicitation completed: action=accept, content={"legacyEnum":"opt3","titledMulti":["value1"],"titledSingle":"value2","untitledMulti":["option1","option3"],"untitledSingle":"option1"}',
	);
	const p = elicitRequests[0];
	assert.deepEqual(p.requestedSchema, {
		type: 'object',
		properties: {
			untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
			titledSingle: {
				type: 'string',
				oneOf: [
					{ const: 'value1', title: 'First Option' },
					{ const: 'value2', title: 'Second Option' },
					{ const: 'value3', title: 'Third Option' },
				],
			},
			legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
			untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
			titledMulti: {
				type: 'array',
				items: {
					anyOf: [
						{ const: 'value1', title: 'First Choice' },
						{ const: 'value2', title: 'Second Choice' },
						{ const: 'value3', title: 'Third Choice' },
					],
				},
			},
		},
	});
});

await check('tools/call json_schema_2020_12_tool: valid arguments echoed', async () => {
	const args = { name: 'Ann', address: { street: '1 Main St', city: 'Springfield' }, contactMethod: 'email', email: 'ann@example.com' };
	const text = textOf(await client.callTool({ name: 'json_schema_2020_12_tool', arguments: args }));
	assert.ok(text.startsWith('Received: '), text);
	assert.deepEqual(JSON.parse(text.slice('Received: '.length)), args);
});

await check('tools/call json_schema_2020_12_tool: if/then violation is an isError result', async () => {
	const res = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { contactMethod: 'phone', email: 'a@b.c' } });
	assert.equal(res.isError, true, JSON.stringify(res));
});

await check('tools/call json_schema_2020_12_tool: additionalProperties violation is an isError result', async () => {
	const res = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { email: 'a@b.c', extra: 1 } });
	assert.equal(res.isError, true, JSON.stringify(res));
});

await check('tools/call unknown tool is -32602', async () => {
	await rejectsWith(client.callTool({ name: 'no_such_tool' }), -32602);
});

// ---- cancellation -------------------------------------------------------------------

await check('cancellation: AbortSignal on test_tool_with_progress stops the server', async () => {
	// The tool pauses 50ms between its three progress notifications; the
	// client aborts when the first arrives, which sends notifications/cancelled.
	const ac = new AbortController();
	let first = null;
	const errorsBefore = clientErrors.length;
	const wireBefore = wire.length;
	const p = client.callTool({ name: 'test_tool_with_progress' }, undefined, {
		signal: ac.signal,
		onprogress: (e) => {
			first ??= e;
			ac.abort('interop test cancels');
		},
	});
	let err;
	try {
		await p;
	} catch (e) {
		err = e;
	}
	assert.ok(err, 'the aborted call succeeded');
	assert.equal(first?.progress, 0);
	// Had the server ignored the cancellation it would send two more progress
	// notifications and a response within ~100ms, which the SDK reports
	// through onerror (unknown progress token / unknown message id).
	await sleep(400);
	assert.deepEqual(clientErrors.slice(errorsBefore), []);
	const after = wire.slice(wireBefore);
	const progress = after.filter((m) => m.method === 'notifications/progress');
	assert.equal(progress.length, 1, `progress after cancel: ${JSON.stringify(progress)}`);
	const token = progress[0].params.progressToken;
	assert.ok(!after.some((m) => m.id === token && ('result' in m || 'error' in m)), 'the server answered the cancelled request');
	assert.deepEqual(await client.ping(), {});
});

// ---- resources ---------------------------------------------------------------------

await check('resources/list', async () => {
	const res = await client.listResources();
	assert.equal(res.nextCursor, undefined);
	assert.deepEqual(res.resources, [
		{ uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' },
		{ uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource (a PNG image)', mimeType: 'image/png' },
		{ uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource clients can subscribe to', mimeType: 'text/plain' },
		{
			uri: 'skill://pdf-processing/SKILL.md',
			name: 'pdf-processing',
			description: 'Extract, fill, and assemble PDF documents',
			mimeType: 'text/markdown',
			size: 259,
		},
	]);
});

await check('resources/templates/list', async () => {
	const res = await client.listResourceTemplates();
	assert.deepEqual(res.resourceTemplates, [
		{
			uriTemplate: 'test://template/{id}/data',
			name: 'template-data',
			description: 'A resource template with an id',
			mimeType: 'application/json',
		},
		{ uriTemplate: 'skill://{+path}', name: 'skill-file', description: 'A file of a skill; skills/list names them all.' },
	]);
});

await check('resources/read test://static-text', async () => {
	const res = await client.readResource({ uri: 'test://static-text' });
	assert.deepEqual(res.contents, [
		{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
	]);
});

await check('resources/read test://static-binary', async () => {
	const res = await client.readResource({ uri: 'test://static-binary' });
	assert.equal(res.contents.length, 1);
	const [c] = res.contents;
	assert.equal(c.uri, 'test://static-binary');
	assert.equal(c.mimeType, 'image/png');
	assert.equal(c.text, undefined);
	assertPNG(c.blob);
});

await check('resources/read test://template/123/data (template)', async () => {
	const res = await client.readResource({ uri: 'test://template/123/data' });
	assert.equal(res.contents.length, 1);
	const [c] = res.contents;
	assert.equal(c.uri, 'test://template/123/data');
	assert.equal(c.mimeType, 'application/json');
	assert.deepEqual(JSON.parse(c.text), { id: '123', templateTest: true, data: 'Data for ID: 123' });
});

await check('resources/read unknown uri is -32002', async () => {
	await rejectsWith(client.readResource({ uri: 'test://no-such-resource' }), -32002);
});

await check('resources/subscribe and resources/unsubscribe', async () => {
	assert.deepEqual(await client.subscribeResource({ uri: 'test://watched-resource' }), {});
	assert.deepEqual(await client.unsubscribeResource({ uri: 'test://watched-resource' }), {});
});

// ---- prompts ---------------------------------------------------------------------

await check('prompts/list', async () => {
	const res = await client.listPrompts();
	assert.equal(res.nextCursor, undefined);
	const want = ['test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image'];
	const names = res.prompts.map((p) => p.name);
	assert.deepEqual(names.filter((n) => want.includes(n)), want, `prompts: ${names.join(', ')}`);
	const withArgs = res.prompts.find((p) => p.name === 'test_prompt_with_arguments');
	assert.deepEqual(withArgs.arguments, [
		{ name: 'arg1', description: 'First test argument', required: true },
		{ name: 'arg2', description: 'Second test argument', required: true },
	]);
	const embedded = res.prompts.find((p) => p.name === 'test_prompt_with_embedded_resource');
	assert.deepEqual(embedded.arguments, [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }]);
});

await check('prompts/get test_simple_prompt', async () => {
	const res = await client.getPrompt({ name: 'test_simple_prompt' });
	assert.deepEqual(res.messages, [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }]);
});

await check('prompts/get test_prompt_with_arguments', async () => {
	const res = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'hello', arg2: 'world' } });
	assert.deepEqual(res.messages, [
		{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='hello', arg2='world'" } },
	]);
});

await check('prompts/get test_prompt_with_arguments without arguments is -32602', async () => {
	await rejectsWith(client.getPrompt({ name: 'test_prompt_with_arguments' }), -32602);
});

await check('prompts/get test_prompt_with_embedded_resource', async () => {
	const res = await client.getPrompt({
		name: 'test_prompt_with_embedded_resource',
		arguments: { resourceUri: 'test://example-resource' },
	});
	assert.deepEqual(res.messages, [
		{
			role: 'user',
			content: {
				type: 'resource',
				resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
			},
		},
		{ role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
	]);
});

await check('prompts/get test_prompt_with_image', async () => {
	const res = await client.getPrompt({ name: 'test_prompt_with_image' });
	assert.equal(res.messages.length, 2);
	assert.equal(res.messages[0].role, 'user');
	assertImage(res.messages[0].content);
	assert.deepEqual(res.messages[1], { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } });
});

await check('prompts/get unknown prompt is -32602', async () => {
	await rejectsWith(client.getPrompt({ name: 'no_such_prompt' }), -32602);
});

// ---- completion ----------------------------------------------------------------------

await check('completion/complete for a prompt argument', async () => {
	const res = await client.complete({
		ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
		argument: { name: 'arg1', value: 'par' },
	});
	assert.deepEqual(res.completion, { values: ['par-completed'], total: 1 });
});

await check('completion/complete for a resource template variable', async () => {
	const res = await client.complete({
		ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
		argument: { name: 'id', value: '' },
		context: { arguments: {} },
	});
	assert.deepEqual(res.completion, { values: ['1', '2', '3'], total: 3 });
});

await check('completion/complete with an unknown argument gives no values', async () => {
	const res = await client.complete({
		ref: { type: 'ref/prompt', name: 'test_simple_prompt' },
		argument: { name: 'nothing', value: 'x' },
	});
	assert.deepEqual(res.completion.values, []);
});

// ---- wire hygiene ----------------------------------------------------------------

await check('every server message is one JSON-RPC 2.0 message', () => {
	for (const m of wire) {
		assert.ok(!('unparsable' in m), `unparsable message: ${m.unparsable}`);
		assert.equal(m.jsonrpc, '2.0', JSON.stringify(m));
	}
});

await check('no client-side protocol errors', () => {
	assert.deepEqual(clientErrors, []);
});

if (overHTTP) {
	await check('streamable-http: every exchange was accepted, in the session', () => {
		const sid = exchanges[0].issuedSessionId;
		const bad = exchanges.filter((e, i) => e.status >= 300 || (i > 0 && e.sessionId !== sid));
		assert.deepEqual(bad, [], `session ${sid}`);
	});

	await check('close: DELETE ends the session; the server then answers 404 for it', async () => {
		const sid = transport.sessionId;
		await transport.terminateSession();
		const del = exchanges.at(-1);
		assert.equal(del.method, 'DELETE');
		assert.ok(del.status >= 200 && del.status < 300, `DELETE answered ${del.status}`);
		const res = await fetch(target, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				accept: 'application/json, text/event-stream',
				'mcp-session-id': sid,
				'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
			},
			body: JSON.stringify({ jsonrpc: '2.0', id: 'after-delete', method: 'ping' }),
		});
		await res.body?.cancel();
		assert.equal(res.status, 404, 'a request in the ended session');
		await client.close();
	});
	finish();
}

await check('close: the server exits cleanly when stdin closes', async () => {
	await client.close();
	await Promise.race([exitSeen, sleep(5000)]);
	assert.ok(transport._process === undefined || exited, 'the server did not exit');
	if (exited) {
		assert.deepEqual(exited, { code: 0, signal: null }, 'server exit status');
	}
	assert.equal(stderr, '', 'the server wrote to stderr (with -race, a data race report)');
});

finish('ts-client interop', () => {
	if (stderr.trim() !== '') {
		console.log(`server stderr:\n${stderr}`);
	}
});

