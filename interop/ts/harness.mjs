// What the interop scripts share: named checks and their tally, the exit
// status that reports them to the Go test, and polling.

let checks = 0;
let failures = 0;

// check records one named assertion: fn throws (or rejects) to fail it.
export async function check(name, fn) {
	checks++;
	try {
		await fn();
		console.log(`ok   ${name}`);
	} catch (err) {
		failures++;
		const msg = err instanceof Error ? err.message : String(err);
		console.log(`FAIL ${name}: ${msg.replace(/\n/g, '\n       ')}`);
	}
}

// failed reports how many checks have failed so far.
export const failed = () => failures;

// finish prints the tally under label and exits: 1 if a check failed.
// before, if given, runs first when one did (to print a peer's stderr).
export function finish(label, before) {
	if (failures > 0) {
		before?.();
		console.log(`${label}: ${failures} of ${checks} checks FAILED`);
		process.exit(1);
	}
	console.log(`${label}: all ${checks} checks ok`);
	process.exit(0);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// waitFor polls cond until it holds, and rejects after ms milliseconds.
export async function waitFor(what, cond, ms = 5000) {
	const end = Date.now() + ms;
	while (!cond()) {
		if (Date.now() > end) {
			throw new Error(`timed out waiting for ${what}`);
		}
		await sleep(5);
	}
}
