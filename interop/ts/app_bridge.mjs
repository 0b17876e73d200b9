// interop/ts/app_bridge.mjs drives gomcp's example MCP Apps server
// (examples/appserver) with the official host library,
// @modelcontextprotocol/ext-apps/app-bridge, in Node without a browser.
//
// The TypeScript SDK 2 client (@modelcontextprotocol/client) connects to the
// server over stdio, declaring the MCP Apps extension. The view's script
// (the <script> of the HTML the server serves) runs in a node:vm context
// whose window, document and ResizeObserver are small stand-ins; the two
// windows exchange messages as postMessage does (structured clones,
// delivered later, with event.source naming the sender). The AppBridge
// (the host end of the app bridge) talks to the view through the library's
// own PostMessageTransport and forwards the view's tools/call to the server.
//
// Usage: node app_bridge.mjs <appserver binary> <auto | legacy>
//
// "auto" is versionNegotiation {mode: 'auto'} (2026-07-28, where the
// client's capabilities travel in each request's _meta); "legacy" is the
// initialize handshake (2025-11-25).
//
// MCP_TS_SDK_DIR must name the node_modules folder holding
// @modelcontextprotocol/ext-apps and @modelcontextprotocol/client.
// It prints one line per check ("ok ..." or "FAIL ...") and "checks ok" when
// all passed; it exits 1 if any failed, 2 on a usage error.

import assert from 'node:assert/strict';
import path from 'node:path';
import vm from 'node:vm';
import { pathToFileURL } from 'node:url';

const [server, era] = process.argv.slice(2);
const sdkDir = process.env.MCP_TS_SDK_DIR;
if (!server || !['auto', 'legacy'].includes(era) || !sdkDir) {
	console.error('usage: MCP_TS_SDK_DIR=<node_modules> node app_bridge.mjs <appserver binary> <auto | legacy>');
	process.exit(2);
}
const wantVersion = era === 'auto' ? '2026-07-28' : '2025-11-25';
const mod = (p) => import(pathToFileURL(path.join(sdkDir, '@modelcontextprotocol', p)).href);
const { Client } = await mod('client/dist/index.mjs');
const { StdioClientTransport } = await mod('client/dist/stdio.mjs');
const { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, getToolUiResourceUri, isToolVisibilityAppOnly } =
	await mod('ext-apps/dist/src/app-bridge.js');

let failures = 0;
async function check(name, fn) {
	try {
		await fn();
		console.log(`ok   ${name}`);
	} catch (err) {
		failures++;
		console.log(`FAIL ${name}: ${err && err.stack || err}`);
	}
}

// waitFor resolves with the first value got() returns that is not
// undefined, polling on the event loop; it rejects after a few seconds.
async function waitFor(what, got) {
	for (let i = 0; i < 500; i++) {
		const v = got();
		if (v !== undefined) return v;
		await new Promise((r) => setTimeout(r, 10));
	}
	throw new Error(`timed out waiting for ${what}`);
}

// ---- two windows that talk by postMessage -------------------------------

// makeWindow returns a stand-in for a window: an EventTarget whose message
// events carry data and source as a browser's do.
function makeWindow() {
	const w = new EventTarget();
	w.deliver = (data, source) => {
		const copy = structuredClone(data);
		setTimeout(() => {
			const e = new Event('message');
			Object.defineProperties(e, { data: { value: copy }, source: { value: source } });
			w.dispatchEvent(e);
		}, 0);
	};
	return w;
}
console.debug = () => {}; // the library logs every message at debug level
const hostWindow = makeWindow(); // the library listens on the global window
const viewWindow = makeWindow();
globalThis.window = hostWindow;
viewWindow.parent = { postMessage: (data) => hostWindow.deliver(data, viewWindow) };
viewWindow.postMessage = (data) => viewWindow.deliver(data, viewWindow.parent);
viewWindow.window = viewWindow;

// The view's document: the elements its script looks up, by id.
const elements = new Map();
const document = {
	documentElement: { style: {}, scrollWidth: 400, scrollHeight: 180 },
	getElementById(id) {
		if (!elements.has(id)) elements.set(id, { id, textContent: '', onclick: null, style: {} });
		return elements.get(id);
	},
};
class ResizeObserver {
	constructor(cb) { this.cb = cb; }
	observe() { setTimeout(() => this.cb([]), 0); }
	disconnect() {}
}

// ---- the host ------------------------------------------------------------

const client = new Client({ name: 'app-bridge-interop', version: '1.0.0' }, {
	capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } },
	versionNegotiation: { mode: era },
});
await client.connect(new StdioClientTransport({ command: server, args: [] }));

await check(`negotiated ${wantVersion}; the server advertises the extension`, () => {
	assert.equal(client.getNegotiatedProtocolVersion(), wantVersion);
	assert.ok(client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/ui'], 'extension advertised');
});

const seen = { messages: [], contexts: [], links: [], logs: [], sizes: [] };
let counter, increment, html;

await check('tools/list: counter links its view, increment is app-only', async () => {
	const { tools } = await client.listTools();
	counter = tools.find((t) => t.name === 'counter');
	increment = tools.find((t) => t.name === 'increment');
	assert.ok(counter && increment, 'both tools listed to a host that renders views');
	assert.equal(getToolUiResourceUri(counter), 'ui://counter/view.html');
	assert.equal(isToolVisibilityAppOnly(increment), true);
	assert.equal(isToolVisibilityAppOnly(counter), false);
});

await check('resources/read: the view is text/html;profile=mcp-app with _meta.ui', async () => {
	const res = await client.readResource({ uri: getToolUiResourceUri(counter) });
	const c = res.contents[0];
	assert.equal(c.mimeType, RESOURCE_MIME_TYPE);
	assert.equal(c._meta?.ui?.prefersBorder, true);
	html = c.text;
	assert.match(html, /<script>/);
});

const bridge = new AppBridge(client, { name: 'app-bridge-interop', version: '1.0.0' },
	{ openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
	{ hostContext: { theme: 'dark', displayMode: 'inline', containerDimensions: { width: 400, maxHeight: 600 } } });
bridge.onmessage = async (p) => { seen.messages.push(p); return {}; };
bridge.onupdatemodelcontext = async (p) => { seen.contexts.push(p); return {}; };
bridge.onopenlink = async (p) => { seen.links.push(p.url); return {}; };
bridge.onloggingmessage = (p) => { seen.logs.push(p); };
bridge.onsizechange = (p) => { seen.sizes.push(p); };
let initialized = false;
bridge.oninitialized = () => { initialized = true; };
await bridge.connect(new PostMessageTransport(viewWindow, viewWindow));

// ---- the view --------------------------------------------------------------

const script = html.match(/<script>([\s\S]*)<\/script>/)[1];
const ctx = vm.createContext({ window: viewWindow, document, ResizeObserver, console, JSON, Map, Promise, Math, String, Object, Error });
vm.runInContext(script, ctx, { filename: 'view.html' });

await check('ui/initialize, then ui/notifications/initialized', async () => {
	await waitFor('initialized', () => (initialized ? true : undefined));
	assert.equal(bridge.getAppVersion()?.name, 'counter-view');
	assert.deepEqual(bridge.getAppCapabilities()?.availableDisplayModes, ['inline']);
	assert.equal(document.documentElement.style.colorScheme, 'dark', 'the view applied the host theme');
});

await check('ui/notifications/size-changed', async () => {
	const size = await waitFor('a size', () => seen.sizes[0]);
	assert.deepEqual(size, { width: 400, height: 180 });
});

await check('tool input and result reach the view', async () => {
	const args = { by: 2 };
	await bridge.sendToolInput({ arguments: args });
	const result = await client.callTool({ name: 'counter', arguments: args });
	assert.deepEqual(result.structuredContent, { count: 2 });
	await bridge.sendToolResult(result);
	await waitFor('the count', () => (elements.get('count')?.textContent === '2' ? true : undefined));
});

await check('the view calls the app-only tool through the bridge', async () => {
	await elements.get('increment').onclick();
	assert.equal(elements.get('count').textContent, '3');
});

await check('ui/message', async () => {
	await elements.get('message').onclick();
	assert.deepEqual(seen.messages[0], { role: 'user', content: [{ type: 'text', text: 'The counter shows 3.' }] });
});

await check('ui/update-model-context', async () => {
	await elements.get('context').onclick();
	assert.deepEqual(seen.contexts[0].structuredContent, { count: 3 });
	assert.equal(seen.contexts[0].content[0].type, 'text');
});

await check('ui/open-link', async () => {
	await elements.get('link').onclick();
	assert.deepEqual(seen.links, ['https://modelcontextprotocol.io/extensions/apps']);
});

await check('notifications/message from the view', async () => {
	const log = await waitFor('logs', () => (seen.logs.length >= 4 ? seen.logs : undefined));
	assert.deepEqual(log.map((l) => l.data), ['+1', 'Message', 'Model context', 'Open link']);
	assert.equal(log[0].logger, 'counter-view');
});

await check('ui/resource-teardown is answered', async () => {
	await bridge.teardownResource({});
	assert.match(elements.get('status').textContent, /Closing/);
});

await bridge.close();
await client.close();
if (failures > 0) {
	console.log(`${failures} checks failed`);
	process.exit(1);
}
console.log('checks ok');
