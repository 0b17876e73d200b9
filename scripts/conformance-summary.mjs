// conformance-summary.mjs: read the checks.json files an MCP conformance suite run wrote into its
// output folder (-o DIR), print one line per scenario plus every failing check, and exit non-zero
// unless every scenario passed.
//
// Usage: node conformance-summary.mjs DIR [--expect N] [--strict] [--label TEXT]
//   --expect N   the run was meant to cover N scenarios; fewer checks.json files is a failure
//                (a scenario that crashed the runner writes none)
//   --strict     WARNING checks count as failures too (the suite's own exit code ignores them
//                for server runs)
//   --label T    prefix for the printed lines
//
// A scenario fails when any check is FAILURE (or WARNING with --strict), or when no check at all
// is SUCCESS (it only reported INFO/SKIPPED, i.e. it exercised nothing).
//
// Statuses used by the suite: SUCCESS, FAILURE, WARNING, INFO, SKIPPED.
// Exit codes: 0 all passed, 1 some check failed or scenarios are missing, 2 usage error.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const args = process.argv.slice(2);
let dir;
let expect = -1;
let strict = false;
let label = 'conformance';
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--expect') expect = Number(args[++i]);
  else if (a === '--strict') strict = true;
  else if (a === '--label') label = args[++i];
  else if (dir === undefined) dir = a;
  else {
    console.error(`conformance-summary: unexpected argument ${a}`);
    process.exit(2);
  }
}
if (dir === undefined || Number.isNaN(expect)) {
  console.error('usage: conformance-summary.mjs DIR [--expect N] [--strict] [--label TEXT]');
  process.exit(2);
}

// The runner names each result folder <prefix><scenario>-<ISO time with ':' and '.' as '-'>,
// with prefix "server-" for server runs; client scenario names may contain '/' (auth/...).
const stamp = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

function findChecks(root) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === 'checks.json') out.push(p);
    }
  };
  walk(root);
  // Run order: by the time stamp in the folder name, then by path.
  const key = (p) => (p.split(sep).slice(-2, -1)[0].match(stamp)?.[0] ?? '') + p;
  return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

let files;
try {
  files = findChecks(dir);
} catch (e) {
  console.error(`${label}: cannot read ${dir}: ${e.message}`);
  process.exit(1);
}

let bad = 0;
const totals = { SUCCESS: 0, FAILURE: 0, WARNING: 0, INFO: 0, SKIPPED: 0 };
for (const f of files) {
  const folder = relative(dir, f).split(sep).slice(0, -1).join('/');
  const scenario = folder.replace(stamp, '').replace(/^server-/, '');
  let checks;
  try {
    checks = JSON.parse(readFileSync(f, 'utf8'));
  } catch (e) {
    console.log(`FAIL ${scenario}: unreadable ${f}: ${e.message}`);
    bad++;
    continue;
  }
  const n = { SUCCESS: 0, FAILURE: 0, WARNING: 0, INFO: 0, SKIPPED: 0 };
  for (const c of checks) n[c.status] = (n[c.status] ?? 0) + 1;
  for (const k of Object.keys(totals)) totals[k] += n[k] ?? 0;
  // A scenario where nothing succeeded (only INFO/SKIPPED checks, or none) tested nothing:
  // count it as failed rather than let it pass silently.
  const nothing = n.SUCCESS === 0;
  const failed = n.FAILURE > 0 || (strict && n.WARNING > 0) || nothing;
  if (failed) bad++;
  const extra = [
    n.WARNING ? `${n.WARNING} warning` : '',
    n.SKIPPED ? `${n.SKIPPED} skipped` : '',
    nothing ? 'no check succeeded' : '',
  ]
    .filter(Boolean)
    .join(', ');
  console.log(
    `${failed ? 'FAIL' : 'ok  '} ${scenario}: ${n.SUCCESS} success, ${n.FAILURE} failure${extra ? ', ' + extra : ''}`,
  );
  for (const c of checks) {
    if (c.status === 'FAILURE' || c.status === 'WARNING') {
      const msg = (c.errorMessage ?? c.description ?? '').replace(/\s+/g, ' ').slice(0, 600);
      console.log(`       ${c.status} [${c.id}] ${c.name}: ${msg}`);
    }
  }
}

const missing = expect >= 0 && files.length < expect ? expect - files.length : 0;
if (missing > 0) {
  console.log(`FAIL ${missing} scenario(s) wrote no results (expected ${expect}, found ${files.length})`);
}
if (files.length === 0) {
  console.log(`FAIL no scenario results under ${dir}`);
}
const ok = bad === 0 && missing === 0 && files.length > 0;
console.log(
  `${label}: ${ok ? 'PASS' : 'FAIL'}, scenarios ${files.length - bad}/${Math.max(files.length, expect)} ok; ` +
    `checks ${totals.SUCCESS} success, ${totals.FAILURE} failure, ${totals.WARNING} warning, ${totals.SKIPPED} skipped`,
);
process.exit(ok ? 0 : 1);
