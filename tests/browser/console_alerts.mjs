// Alerts, monitors and webhooks in the console (docs/console.md, Alerts,
// Monitors and Webhooks): "Alert me when any of these is offline…" on a
// filtered fleet view opens a form prefilled from the filters, refuses a
// share above 100 % with the API's message, and creates the monitor; when a
// device stops its heartbeats its alert appears on the Alerts page live,
// with its reason, and resolves live once the device is back; the monitor is
// snoozed and the snooze ended from the list; a webhook is created and its
// secret shown once, a ping fills its delivery log; the monitor is deleted,
// confirmed. Run by tests/tests/e2e/console_browser.rs.
//
// Reads DEVMGR_EMAIL, DEVMGR_PASSWORD and DEVMGR_AGENTS: a JSON list of
// {"name", "serial", "token"} of two devices tagged "lab" (the account has a
// third, untagged); the server's online window is 2 s.
import {
  allowingHttpErrors, apiLogin, base, begin, check, checkPage, env, expectCall, expectFieldError, expectPath,
  heartbeat, main, newPage, row, waitForText,
} from "./console_lib.mjs";

const agents = JSON.parse(env("DEVMGR_AGENTS"));
const button = (page, name) => page.getByRole("button", { name, exact: true });
const link = (page, name) => page.getByRole("link", { name, exact: true });
const field = (page, name) => page.getByRole("textbox", { name, exact: true });
const select = (page, name) => page.getByRole("combobox", { name, exact: true });
const notice = (page) => page.getByRole("status").first().innerText();
const monitorPath = /^\/console\/monitors\/[0-9a-f-]{36}\/$/;

// The agents' heartbeats, every 400 ms, while their device is "up" (until
// the script ends); `beating` holds each one's last beat, answered or not.
const up = new Set(agents.map((agent) => agent.name));
const beating = new Map();
(async () => {
  for (;;) {
    for (const agent of agents) {
      if (!up.has(agent.name)) continue;
      const beat = heartbeat(agent.token).catch(() => {
        // The next beat tries again.
      });
      beating.set(agent.name, beat);
      await beat;
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
})();

await main(async (browser, track) => {
  const page = track(await newPage(browser));

  begin("sign in, filter the fleet by a tag");
  await page.goto(`${base}/console/login/`);
  await field(page, "E-mail").fill(env("DEVMGR_EMAIL"));
  await page.getByLabel("Password", { exact: true }).fill(env("DEVMGR_PASSWORD"));
  await button(page, "Log in").click();
  await expectPath(page, "/console/");
  await select(page, "Tag").selectOption("lab");
  await page.waitForURL((url) => url.search === "?tag=lab", { timeout: 5_000 });
  await waitForText(page, /2 of 3 devices match\./, "the view of lab", 5_000, () => page.locator("#search-result").innerText());

  begin("alert me: a form prefilled from the filters");
  await link(page, "Alert me when any of these is offline…").click();
  await expectPath(page, "/console/monitors/new/");
  await page.getByRole("heading", { level: 1, name: "New monitor" }).waitFor();
  await waitForText(page, /2 devices[\s\S]*tagged lab/, "the selection", 5_000, () => page.locator("#selection").innerText());
  check((await field(page, "Name").inputValue()) === "Offline: tagged lab", "the name comes from the filters");
  check((await select(page, "Alert me when").inputValue()) === "device_offline", "any device offline by default");
  check((await select(page, "For at least").inputValue()) === "600", "10 minutes by default");
  await checkPage(page, "monitor-new", { phone: true });

  begin("a share above 100 % is refused with the API's message");
  await select(page, "Alert me when").selectOption({ label: "More than a share of them is offline" });
  await field(page, "Share offline (%)").fill("150");
  await allowingHttpErrors(async () => {
    await button(page, "Create monitor").click();
    await expectFieldError(field(page, "Share offline (%)"), "Ensure this value is less than or equal to 100.");
  });
  await checkPage(page, "monitor-new-refused", {
    open: async (copy) => {
      await copy.goto(`${base}/console/monitors/new/?tag=lab`);
      await select(copy, "Alert me when").selectOption("fleet_offline_ratio");
      await field(copy, "Share offline (%)").fill("150");
      await button(copy, "Create monitor").click();
      await copy.locator("#percent-errors").waitFor();
    },
  });

  begin("create the monitor: any lab device offline for the online window");
  await select(page, "Alert me when").selectOption({ label: "Any of these devices is offline" });
  await field(page, "Name").fill("Lab offline");
  await select(page, "For at least").selectOption({ label: "2 s" });
  await button(page, "Create monitor").click();
  await page.waitForURL((url) => monitorPath.test(url.pathname), { timeout: 10_000 });
  const monitor = new URL(page.url()).pathname;
  await page.getByRole("heading", { level: 1, name: "Lab offline" }).waitFor();
  await waitForText(page, /The monitor is created/, "the notice", 5_000, () => notice(page));
  await waitForText(page, /any device offline for 2 s/, "the kind in words", 5_000, () => page.locator("#monitor-kind").innerText());
  await checkPage(page, "monitor");

  begin("a device stops its heartbeats: its alert appears live");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts", exact: true }).click();
  await expectPath(page, "/console/alerts/");
  await page.getByRole("heading", { level: 1, name: "Alerts" }).waitFor();
  await page.evaluate(() => { window.stayed = true; });
  const [silent] = agents;
  const owner = await apiLogin(env("DEVMGR_EMAIL"), env("DEVMGR_PASSWORD"));
  // A heartbeat that the whole suite's load delays past the 2 s window
  // opens an alert, which resolves once the device has been back for a
  // window: the silence starts with none of the device's alerts open, so
  // that the one it opens appears on the page live.
  const openRows = row(page, `No heartbeat from "${silent.name}" since`).and(page.locator('[data-state="open"]'));
  await waitForText(page, /^0$/, "none of the device's alerts open (API)", 30_000, async () => {
    const open = await expectCall(200, "GET", "/alerts/?state=open&limit=100", { auth: `Token ${owner}` });
    return String(open.results.filter((alert) => alert.serial === silent.serial).length);
  });
  await openRows.first().waitFor({ state: "detached", timeout: 30_000 });
  up.delete(silent.name);
  await beating.get(silent.name);
  const device = await expectCall(200, "GET", `/devices/${silent.serial}/`, { auth: `Token ${owner}` });
  // The silence's alert names the last heartbeat the server saw before it
  // (or, when the beat in flight itself came late, the beat before that:
  // the alert then opened before the late beat landed, and stays open
  // through the silence, since the device was not back for a window).
  const opened = openRows.first();
  // 60 s: under the whole suite's load (CI once: this script took 210 s,
  // four times its time alone) the alert took more than 20 s to appear.
  await opened.waitFor({ timeout: 60_000 });
  const since = (await opened.innerText()).match(/since (\S+) UTC/)?.[1] ?? "";
  check(since !== "" && since <= device.last_seen_time, `the alert should name a heartbeat the server saw, at or before ${device.last_seen_time}: ${since}`);
  const alert = page.locator(`main tr[data-id="${await opened.getAttribute("data-id")}"]`);
  await waitForText(page, /^open[\s\S]*Lab offline[\s\S]*opened/, "the open alert's row", 5_000, () => alert.innerText());
  check(await page.evaluate(() => window.stayed === true), "the alert appeared without a reload");
  await checkPage(page, "alerts", { phone: true, dark: true });

  begin("the device is back: its alert resolves live");
  up.add(silent.name);
  await waitForText(page, /^resolved[\s\S]*resolved/, "the alert resolves", 20_000, () => alert.innerText());
  check(await page.evaluate(() => window.stayed === true), "resolved without a reload");
  await checkPage(page, "alerts-resolved");

  begin("snooze the monitor for 8 h, then end the snooze");
  await link(page, "Monitors").click();
  await expectPath(page, "/console/monitors/");
  await button(page, "Snooze Lab offline for 8 h").click();
  await waitForText(page, /The monitor is snoozed/, "the notice", 5_000, () => notice(page));
  await waitForText(page, /snoozed until/, "the list says until when", 5_000);
  await checkPage(page, "monitors", { phone: true });
  await button(page, "End snooze of Lab offline").click();
  await waitForText(page, /not snoozed: its alerts are notified again/, "the notice", 5_000, () => notice(page));

  begin("a webhook: its secret shown once");
  await link(page, "Webhooks").click();
  await expectPath(page, "/console/webhooks/");
  await link(page, "New webhook").click();
  await expectPath(page, "/console/webhooks/new/");
  for (const name of ["An alert opens alert.opened", "An alert resolves alert.resolved", "A job completes job.completed", "A job halts job.halted"]) {
    check(await page.getByRole("checkbox", { name, exact: true }).isChecked(), `${name} is checked at first`);
  }
  await checkPage(page, "webhook-new");
  await page.getByRole("textbox", { name: "Target URL", exact: true }).fill("https://203.0.113.10/devmgr-events");
  await button(page, "Create webhook").click();
  await page.getByRole("heading", { level: 1, name: "Webhook created" }).waitFor();
  const secret = (await page.locator("#webhook-secret").innerText()).trim();
  check(/^[0-9a-f]{40}$/.test(secret), `a secret of 40 hex digits: ${secret}`);
  await waitForText(page, /it is not shown again/, "the note");
  // The page is the answer to a post: axe reads the same HTML at its place.
  const created = await page.content();
  await checkPage(page, "webhook-created", {
    phone: true,
    open: async (copy) => {
      await copy.goto(`${base}/console/webhooks/`);
      await copy.setContent(created);
    },
  });

  begin("the webhook's page: no secret, a ping in its log");
  await link(page, "Go to the webhook").click();
  await page.getByRole("heading", { level: 1, name: /^Webhook to / }).waitFor();
  check(!(await page.locator("main").innerText()).includes(secret), "the secret is not shown again");
  await button(page, "Send ping").click();
  await waitForText(page, /A ping is on its way/, "the notice", 5_000, () => notice(page));
  await waitForText(page, /ping/, "the ping in the log", 5_000, () => page.locator("#delivery-rows").innerText());
  await checkPage(page, "webhook", { phone: true });

  begin("delete the monitor, confirmed");
  await page.goto(`${base}${monitor}`);
  await link(page, "Delete monitor").click();
  await page.getByRole("heading", { level: 1, name: "Delete Lab offline?" }).waitFor();
  await button(page, "Delete monitor now").click();
  await expectPath(page, "/console/monitors/");
  await waitForText(page, /The monitor and its alerts are deleted/, "the notice", 5_000, () => notice(page));
  await page.getByRole("heading", { level: 2, name: "No monitors yet" }).waitFor();
});
