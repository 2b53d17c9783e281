// revline mcp driven by the official MCP TypeScript SDK's Client over its
// StdioClientTransport, as an agent built on it drives it (t_sdk.sh sets the
// scene: a repository with a change, rules, the fake LLM). What it checks:
// the environment the SDK passes (its short default list: no provider, and
// the review says first what to set; the variables named in `env`: the
// review runs), a review's progress up to its total and its result (text,
// JSON text, structuredContent), a cancelled review (the SDK hears nothing
// more of it), a request over the line limit (answered to its id: the
// call fails at once, not at its timeout), and findings answered while a
// review runs. Any message the SDK could not place is a failure (its
// onerror). Prints ok/FAIL lines; exits 1 when a check failed.
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

const { REVLINE, RULES, REPO, MCP_SDK_DIR } = process.env;
const require = createRequire(`${MCP_SDK_DIR}/package.json`);
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { McpError, LATEST_PROTOCOL_VERSION } = require('@modelcontextprotocol/sdk/types.js');

let failures = 0;
function check(cond, what) {
  console.log(`${cond ? 'ok' : 'FAIL'}: ${what}`);
  if (!cond) failures++;
}

// A client of its own revline mcp; every message it receives is kept, and what the SDK could not place.
async function connect(env) {
  const transport = new StdioClientTransport({
    command: REVLINE, args: ['mcp', '--rules', RULES, '--no-builtin'], cwd: REPO, env, stderr: 'inherit',
  });
  const session = { client: new Client({ name: 't_sdk', version: '1' }), messages: [], errors: [] };
  transport.onmessage = (message) => session.messages.push({ at: Date.now(), message });
  session.client.onerror = (error) => session.errors.push(String(error));
  await session.client.connect(transport);
  return session;
}

const first = (result) => result.content[0].text;

// --- the SDK's own environment: HOME, LOGNAME, PATH, SHELL, TERM, USER, no provider ------------
let s = await connect(undefined);
check(s.client.getServerVersion()?.name === 'revline' && s.client.getInstructions()?.includes('review'),
  `initialize with the SDK's revision (${LATEST_PROTOCOL_VERSION}): revline, with its instructions`);
let r = await s.client.callTool({ name: 'review', arguments: { rules: ['injection'], no_cache: true } });
check(!r.isError && first(r).startsWith('Review incomplete: 1 of 1 rule did not run') &&
  first(r).indexOf('no LLM is configured') < first(r).indexOf('revline reviewed') &&
  first(r).includes('What to set:') && first(r).includes('"env": {"OPENAI_API_KEY": "${OPENAI_API_KEY}"}'),
  `with the SDK's default environment the review says first that it is incomplete and what to set: ${first(r).slice(0, 400)}`);
await s.client.close();

// --- the provider's variables named in the server's env, as .mcp.json's "env" does ---------------
const env = {};
for (const name of ['OPENAI_API_KEY', 'REVLINE_BASE_URL', 'REVLINE_MODEL', 'REVLINE_DB', 'REVLINE_DATADIR'])
  env[name] = process.env[name];
s = await connect(env);
const progress = [];
r = await s.client.callTool({ name: 'review', arguments: { rules: ['injection'] } }, undefined,
  { onprogress: (p) => progress.push(p) });
const last = progress[progress.length - 1] ?? {};
check(progress.length >= 2 && progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress) &&
  last.progress === last.total && last.message?.startsWith('review complete'),
  `a review's progress grows to its total: ${JSON.stringify(progress)}`);
const findings = r.structuredContent?.findings ?? [];
check(!r.isError && first(r).startsWith('revline reviewed') && findings.length === 1 &&
  first(r).includes(`finding ${findings[0].id}`) && findings[0].evidence?.code_examined ===
  'return subprocess.call(cmd, shell=True)',
  `with the variables passed the review runs and finds the injection: ${first(r).slice(0, 300)}`);
check(r.content.length === 2 && JSON.stringify(JSON.parse(r.content[1].text)) === JSON.stringify(r.structuredContent),
  'the JSON report is also a text block, the same as structuredContent');

// --- a cancelled review: the SDK sends notifications/cancelled and hears nothing more of it ----------
const abort = new AbortController();
const cancelledProgress = [];
const slow = s.client.callTool({ name: 'review', arguments: { rules: ['slow'], no_cache: true } }, undefined,
  { signal: abort.signal, onprogress: (p) => cancelledProgress.push(p) });
await sleep(300);
const abortedAt = Date.now();
abort.abort('the user stopped it');
let rejected = false;
try { await slow; } catch { rejected = true; }
await sleep(3000);
const late = s.messages.filter((m) => m.at >= abortedAt && m.message.method === 'notifications/progress');
check(rejected && !cancelledProgress.length && !late.length,
  `a cancelled review sends no progress after the cancellation: ${JSON.stringify(late.map((m) => m.message))}`);
await s.client.ping();
check(!s.errors.length, `no message the SDK could not place (a late progress or answer): ${JSON.stringify(s.errors)}`);

// --- a request over the line limit: an error for its id at once, not the SDK's timeout -------------
let started = Date.now(), error = null;
try {
  await s.client.callTool({ name: 'review', arguments: { rules: ['x'.repeat(1536 * 1024)] } }, undefined,
    { timeout: 30000 });
} catch (e) { error = e; }
check(error instanceof McpError && error.code === -32600 && error.message.includes('1 MiB') &&
  Date.now() - started < 10000,
  `a request over 1 MiB fails at once with revline's answer to its id (${Date.now() - started} ms): ${error}`);
await s.client.ping();

// --- findings while a review runs: answered before it ----------------------------------------------
const running = s.client.callTool({ name: 'review', arguments: { rules: ['slow'], no_cache: true } });
let reviewDone = false;
running.then(() => { reviewDone = true; }, () => { reviewDone = true; });
await sleep(300);
started = Date.now();
r = await s.client.callTool({ name: 'findings', arguments: {} });
check(!reviewDone && r.structuredContent?.running === true && Date.now() - started < 1500,
  `findings during a review is answered at once, saying the review still runs (${Date.now() - started} ms)`);
r = await running;
check(!r.isError && r.structuredContent?.rules?.some((rule) => rule.id === 'slow'), 'then the review answers');
check(!s.errors.length, `still no message the SDK could not place: ${JSON.stringify(s.errors)}`);
await s.client.close();

process.exit(failures ? 1 : 0);
