// What the console's browser scripts share (console_journeys.mjs,
// console_accounts.mjs, console_live.mjs, console_keyboard.mjs): the browser,
// the problems a page reports, the checks every page passes (axe-core, no
// sideways scroll at 360 px, a screenshot), the questions a script asks the
// Rust test that runs it, and small helpers of the agent API.
//
// The protocol with the Rust side (tests/tests/e2e/console_runner.rs): a line
// `ASK <json>` on stdout is answered by one JSON line on stdin (e.g. the link
// of the last mail to an address); the script ends with one line
// `RESULT <json>`: {"failure": null | "<step>: <message>", "problems": [...],
// "axe": [...], "wide": [...], "focus": [...], "steps": [...]} and exit status 0 (1 on failure).
// Progress goes to stderr.
//
// Reads DEVMGR_URL, DEVMGR_CHROMIUM and DEVMGR_SCREENSHOTS (a folder).
import { chromium } from "playwright-core";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import readline from "node:readline";

export const env = (name) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

export const base = env("DEVMGR_URL");
export const shots = env("DEVMGR_SCREENSHOTS");
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** What the script found, printed at the end. */
export const report = { failure: null, problems: [], axe: [], wide: [], focus: [], steps: [] };
let step = "start";
let started = Date.now();
// While positive, "Failed to load resource: … status of 4xx" is expected
// (a form answered with its errors, a throttled sign-in).
let expectedHttpErrors = 0;

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();

/** Asks the Rust test a question; its JSON answer. */
export async function ask(question) {
  process.stdout.write(`ASK ${JSON.stringify(question)}\n`);
  const { value, done } = await lines.next();
  if (done) throw new Error(`no answer to ${JSON.stringify(question)}`);
  return JSON.parse(value);
}

/** The link of the newest mail to `to` whose text has `marker`, as the Rust side reads it. */
export async function mailLink(to, marker) {
  const answer = await ask({ ask: "mail", to, marker });
  if (!answer.link) throw new Error(`no mail to ${to} with ${marker}: ${JSON.stringify(answer)}`);
  return answer.link;
}

/** Names the step that runs now, for the report and failure messages. */
export function begin(name) {
  const now = Date.now();
  report.steps.push({ step, ms: now - started });
  step = name;
  started = now;
  process.stderr.write(`step: ${name}\n`);
}

/** Runs `action` while 4xx answers are expected (errors shown in a page). */
export async function allowingHttpErrors(action) {
  expectedHttpErrors += 1;
  try {
    return await action();
  } finally {
    expectedHttpErrors -= 1;
  }
}

/** Collects what a page reports as wrong: console errors, uncaught errors, CSP violations. */
export function watch(page) {
  page.on("console", (message) => {
    if (message.type() !== "error" && message.type() !== "warning") return;
    const text = message.text();
    if (message.type() === "warning" && !/Content.Security.Policy|violat/i.test(text)) return;
    if (expectedHttpErrors > 0 && /status of (400|403|409|422|429)\b/.test(text)) return;
    const source = message.location()?.url;
    report.problems.push(`${step}: console ${message.type()}: ${text} (${source || page.url()})`);
  });
  page.on("pageerror", (error) => report.problems.push(`${step}: page error: ${error.message} (${page.url()})`));
  return page;
}

export async function launch() {
  return chromium.launch({
    executablePath: env("DEVMGR_CHROMIUM"),
    args: ["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"],
  });
}

/** A context as people use it: CSP enforced, CSP violations logged as errors. */
export async function newContext(browser, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  context.setDefaultTimeout(10_000);
  return context;
}

export async function newPage(browser, options = {}) {
  const context = await newContext(browser, options);
  return watch(await context.newPage());
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The text of `<main>` outside its tables, white space collapsed. */
export async function textOutsideTables(page) {
  return page.locator("main").evaluate((main) => {
    const copy = main.cloneNode(true);
    copy.querySelectorAll("table").forEach((table) => table.remove());
    return copy.textContent.replace(/\s+/g, " ");
  });
}

/** Waits until `read(page)` (text) matches `pattern`; fails naming `what` after `ms`. */
export async function waitForText(page, pattern, what, ms = 5_000, read = (p) => p.locator("main").innerText()) {
  const deadline = Date.now() + ms;
  let seen = "";
  for (;;) {
    seen = await read(page).catch((e) => `(unreadable: ${e.message})`);
    if (pattern.test(seen)) return seen;
    if (Date.now() > deadline) throw new Error(`${what}: ${pattern} not seen within ${ms} ms; the page shows:\n${seen}`);
    await sleep(100);
  }
}

/** The row of the table in `main` that names `name`. */
export const row = (page, name) => page.locator("main tr").filter({ hasText: name });

/** The texts of the elements a field's aria-describedby names. */
export async function description(field) {
  const ids = ((await field.getAttribute("aria-describedby")) ?? "").split(/\s+/).filter(Boolean);
  const texts = [];
  for (const id of ids) {
    const element = field.page().locator(`[id="${id}"]`);
    texts.push((await element.count()) ? await element.innerText() : `(no element #${id})`);
  }
  return texts.join(" ");
}

/** Asserts that `field` is described by an element saying `message`. */
export async function expectFieldError(field, message) {
  const deadline = Date.now() + 5_000;
  let said = "";
  while (Date.now() < deadline) {
    said = await description(field);
    if (said.includes(message)) return;
    await sleep(100);
  }
  throw new Error(`the field should be described by ${JSON.stringify(message)}, its aria-describedby says ${JSON.stringify(said)}`);
}

export function check(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * The checks of a page in the state it shows: a screenshot (`name.png`,
 * 1280 wide, whole page), no sideways scroll at 360 px (with `name-phone.png`
 * when `phone` is set), and axe-core in a copy of the page made by `open` in
 * a context that bypasses CSP (by default the same URL with the same cookies),
 * at 1280 and at 360 px wide and in dark mode (`dark` also saves
 * `name-dark.png`).
 */
export async function checkPage(page, name, { phone = false, dark = false, open = null, shot = true } = {}) {
  if (shot) await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  const mains = await page.locator("main").count();
  const headings = await page.locator("h1").count();
  if (mains !== 1 || headings !== 1) report.problems.push(`${name}: ${mains} <main> and ${headings} <h1> (one each expected)`);
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: 360, height: 780 });
  await sleep(150);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  if (width > 360) report.wide.push(`${name}: scrollWidth ${width} at 360 px (${page.url()})`);
  if (phone) await page.screenshot({ path: `${shots}/${name}-phone.png`, fullPage: true });
  await page.setViewportSize(viewport);
  if (dark) {
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: `${shots}/${name}-dark.png`, fullPage: true });
    await page.emulateMedia({ colorScheme: "light" });
  }
  await runAxe(page, name, open);
  // At 360 px wide tables and code scroll inside their own box: such a box
  // must be reachable by keyboard too.
  await runAxe(page, `${name} (360 px)`, open, { viewport: { width: 360, height: 780 } });
  // People who prefer dark get it on every page: axe checks that too.
  await runAxe(page, `${name} (dark)`, open, { colorScheme: "dark" });
}

async function runAxe(page, name, open, options = {}) {
  const context = await page.context().browser().newContext({
    bypassCSP: true,
    viewport: { width: 1280, height: 900 },
    storageState: await page.context().storageState(),
    ...options,
  });
  context.setDefaultTimeout(10_000);
  try {
    const copy = await context.newPage();
    if (open) await open(copy);
    else await copy.goto(page.url());
    await copy.addScriptTag({ content: axeSource });
    const results = await copy.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    for (const violation of results.violations) {
      if (violation.impact !== "serious" && violation.impact !== "critical") continue;
      const where = violation.nodes.slice(0, 3).map((node) => node.target.join(" ")).join(" | ");
      const why = violation.nodes[0]?.any?.[0]?.message ?? "";
      report.axe.push(`${name}: ${violation.impact} ${violation.id} (${violation.help}) at ${where}${why ? `: ${why}` : ""}`);
    }
  } finally {
    await context.close();
  }
}

/** Runs the journey; prints the report; exits 1 when a step failed. */
export async function main(journey) {
  const browser = await launch();
  let page = null;
  try {
    await journey(browser, (p) => (page = p));
  } catch (error) {
    report.failure = `${step}: ${error.stack ?? error}`;
    if (page) await page.screenshot({ path: `${shots}/failure-${step.replace(/\W+/g, "-")}.png`, fullPage: true }).catch(() => {});
  } finally {
    begin("end");
    await browser.close().catch(() => {});
  }
  process.stdout.write(`RESULT ${JSON.stringify(report)}\n`);
  process.exit(report.failure ? 1 : 0);
}

// The agent's side, as devmgr-agent speaks it (docs/agent-protocol.md).

async function call(method, path, { body, auth } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (auth) headers.Authorization = auth;
  const send = () => fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let response;
  try {
    response = await send();
  } catch (error) {
    // A kept-alive connection the server closed as it was reused (Node's
    // fetch keeps idle connections 4 s by a coarse clock, the server 5 s):
    // the request never arrived, so it is sent again, as an agent would.
    if (!(error instanceof TypeError)) throw error;
    response = await send();
  }
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

export async function expectCall(status, method, path, options) {
  const answer = await call(method, path, options);
  if (answer.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

export const install = (installToken, name, extra = {}) =>
  expectCall(201, "POST", "/install/", { body: { install_token: installToken, name, ...extra } });
export const heartbeat = (deviceToken, facts = {}) =>
  expectCall(200, "POST", "/agent/heartbeat/", { body: facts, auth: `Device ${deviceToken}` });
export const pollCommands = (deviceToken) =>
  expectCall(200, "GET", "/agent/commands/?wait=0", { auth: `Device ${deviceToken}` });
export const ack = (deviceToken, id, status) =>
  expectCall(204, "POST", `/agent/commands/${id}/ack/`, { body: { status }, auth: `Device ${deviceToken}` });
export const apiLogin = async (email, password) =>
  (await expectCall(201, "POST", "/auth/", { body: { email, password } })).token;
export const apiStatus = async (method, path, token) => (await call(method, path, { auth: `Token ${token}` })).status;

/** The install command the page shows in its code block. */
export async function installCommand(page) {
  const code = page.locator("main code").filter({ hasText: "devmgr-agent install" }).first();
  const text = (await code.innerText()).trim().replace(/\s+/g, " ");
  const match = text.match(/^devmgr-agent install --server (\S+) --token ([a-z0-9]{32})$/);
  check(match, `the install command should be "devmgr-agent install --server <base> --token <32 [a-z0-9]>", is ${JSON.stringify(text)}`);
  check(match[1] === base, `the install command's server should be ${base}, is ${match[1]}`);
  return { text, token: match[2] };
}

/** Waits for the page to be at `path` (after a navigation). */
export async function expectPath(page, path, ms = 10_000) {
  await page.waitForURL((url) => url.pathname === path, { timeout: ms }).catch(() => {
    throw new Error(`expected to be at ${path}, am at ${page.url()}`);
  });
}
