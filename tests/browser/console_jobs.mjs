// Fleet jobs in the console (docs/console.md, Jobs): "Reboot devices" on a
// filtered fleet view previews its selection and refuses settings with the
// API's messages; a job of one device per wave then opens its page, whose
// status, counts and targets follow the agents live (a wave done, the next
// started, a failing wave halting the job); "Resume" and "Cancel job"
// (confirmed) show the new status; the Jobs list shows the job with its
// counts. Without script, the same form starts a job. Run by
// tests/tests/e2e/console_browser.rs.
//
// Reads DEVMGR_EMAIL, DEVMGR_PASSWORD and DEVMGR_AGENTS: a JSON list of
// {"name", "serial", "token"} of four devices tagged "lab" (the account
// has a fifth, untagged).
import {
  ack, allowingHttpErrors, base, begin, check, checkPage, env, expectCall, expectFieldError, expectPath, main,
  newPage, pollCommands, row, shots, waitForText,
} from "./console_lib.mjs";

const agents = JSON.parse(env("DEVMGR_AGENTS"));
const button = (page, name) => page.getByRole("button", { name, exact: true });
const field = (page, name) => page.getByRole("textbox", { name, exact: true });
const status = (page) => page.locator("#job-status");
const counts = (page) => page.locator("#job-counts");
const jobPath = /^\/console\/jobs\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/$/;

/** Waits until the page shows a job's page; its path. */
async function expectJobPage(page) {
  await page.waitForURL((url) => jobPath.test(url.pathname), { timeout: 10_000 })
    .catch(() => { throw new Error(`expected a job's page, am at ${page.url()}`); });
  return new URL(page.url()).pathname;
}

/**
 * The agents check in, in turn, until one has a command: it acknowledges
 * it `received`, then `outcome` ("done" or "failed"). The names of the
 * devices that answered (one: the job runs in waves of one, and the agents
 * after it are not asked, or one of them might answer the next wave, which
 * the engine may start within the same pass).
 */
async function agentsAnswer(outcome) {
  const answered = [];
  for (const agent of agents) {
    const { commands } = await pollCommands(agent.token);
    for (const command of commands) {
      await ack(agent.token, command.id, "received");
      if (outcome === "failed") {
        await expectCall(204, "POST", `/agent/commands/${command.id}/ack/`,
          { body: { status: "failed", detail: "reboot: exit status 1" }, auth: `Device ${agent.token}` });
      } else {
        await ack(agent.token, command.id, outcome);
      }
      answered.push(agent.name);
    }
    if (answered.length > 0) break;
  }
  return answered;
}

/** The agents check in until one had a command; its names. */
async function agentsAnswerOnce(outcome, what) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const answered = await agentsAnswer(outcome);
    if (answered.length > 0) return answered;
    if (Date.now() > deadline) throw new Error(`${what}: no device was given a reboot within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Presses Tab from the top of the page until the button `name` has the focus (keyboard alone). */
async function tabTo(page, name) {
  await page.locator("body").evaluate(() => document.activeElement?.blur());
  for (let presses = 0; presses < 40; presses += 1) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const element = document.activeElement;
      return element?.tagName === "BUTTON" ? element.textContent.trim() : null;
    });
    if (focused === name) return;
  }
  throw new Error(`the button ${JSON.stringify(name)} is not reached by Tab`);
}

/** Waits until the target row of `name` says `word`, live (within 5 s). */
const expectTarget = (page, name, word, what) =>
  waitForText(page, new RegExp(`\\b${word}\\b`), what, 5_000, () => row(page, name).innerText());

await main(async (browser, track) => {
  const page = track(await newPage(browser));

  begin("sign in, filter the fleet by a tag");
  await page.goto(`${base}/console/login/`);
  await field(page, "E-mail").fill(env("DEVMGR_EMAIL"));
  await page.getByLabel("Password", { exact: true }).fill(env("DEVMGR_PASSWORD"));
  await button(page, "Log in").click();
  await expectPath(page, "/console/");
  await page.getByRole("combobox", { name: "Tag", exact: true }).selectOption("lab");
  await page.waitForURL((url) => url.search === "?tag=lab", { timeout: 5_000 });
  await waitForText(page, /4 of 5 devices match\./, "the view of lab", 5_000, () => page.locator("#search-result").innerText());

  begin("reboot devices: the preview counts the selection");
  await button(page, "Reboot devices").click();
  await expectPath(page, "/console/reboot-devices/");
  await page.getByRole("heading", { level: 1, name: "Reboot devices" }).waitFor();
  await waitForText(page, /4 devices/, "the preview's count", 5_000, () => page.locator("#selection").innerText());
  check((await field(page, "Wave interval (seconds)").inputValue()) === "0", "the interval defaults to 0");
  check((await field(page, "Halt failure ratio").inputValue()) === "0.5", "the ratio defaults to 0.5");
  check((await page.getByLabel("Start time (UTC)", { exact: true }).inputValue()) === "", "the start time is empty: now");
  await checkPage(page, "reboot-devices", { phone: true });

  begin("reboot devices: refused settings, with the API's messages");
  await field(page, "Wave size").fill("0");
  await field(page, "Halt failure ratio").fill("2");
  await allowingHttpErrors(async () => {
    await button(page, "Reboot devices").click();
    await expectFieldError(field(page, "Wave size"), "Ensure this value is greater than or equal to 1.");
    await expectFieldError(field(page, "Halt failure ratio"), "Ensure this value is less than or equal to 1.");
  });
  await waitForText(page, /4 devices/, "the count after a refusal", 5_000, () => page.locator("#selection").innerText());
  await checkPage(page, "reboot-devices-refused", {
    open: async (copy) => {
      await copy.goto(`${base}/console/reboot-devices/?tag=lab`);
      await field(copy, "Wave size").fill("0");
      await field(copy, "Halt failure ratio").fill("2");
      await button(copy, "Reboot devices").click();
      await copy.locator("#wave_size-errors").waitFor();
    },
  });

  begin("reboot devices: one device per wave");
  await field(page, "Wave size").fill("1");
  await field(page, "Halt failure ratio").fill("0.5");
  await button(page, "Reboot devices").click();
  const path = await expectJobPage(page);
  await page.getByRole("heading", { level: 1, name: "Reboot · tagged lab" }).waitFor();
  await waitForText(page, /^running$/, "the job runs", 5_000, () => status(page).innerText());
  await waitForText(page, /^1 pending · 3 waiting$/, "the first wave is under way", 5_000, () => counts(page).innerText());
  const targets = page.getByRole("table", { name: "Targets" });
  check((await targets.locator("tbody tr").count()) === 4, "the targets table lists the four devices");
  await checkPage(page, "job", { phone: true, dark: true });

  begin("the first wave is done, live, and the second starts");
  const [first] = await agentsAnswerOnce("done", "the first wave");
  await expectTarget(page, first, "done", "the first target turns done live");
  await waitForText(page, /^1 done · 1 pending · 2 waiting$/, "the second wave starts live", 5_000, () => counts(page).innerText());
  check(!(await button(page, "Resume").isVisible()), "a running job offers no Resume");

  begin("a failing wave halts the job, live");
  const [second] = await agentsAnswerOnce("failed", "the second wave");
  await expectTarget(page, second, "failed", "the second target turns failed live");
  await waitForText(page, /reboot: exit status 1/, "its detail", 5_000, () => row(page, second).innerText());
  await waitForText(page, /^halted$/, "the job halts live", 5_000, () => status(page).innerText());
  await waitForText(page, /^1 done · 1 failed · 2 waiting$/, "the counts of a halted job", 5_000, () => counts(page).innerText());
  await button(page, "Resume").waitFor({ state: "visible", timeout: 5_000 });
  await checkPage(page, "job-halted", { dark: true });

  begin("resume, by keyboard");
  await tabTo(page, "Resume");
  await page.keyboard.press("Enter");
  await waitForText(page, /its next wave is under way/, "the notice", 5_000, () => page.getByRole("status").innerText());
  check(new URL(page.url()).pathname === path, "back on the job's page");
  await waitForText(page, /^running$/, "the job runs again", 5_000, () => status(page).innerText());
  await waitForText(page, /^1 done · 1 failed · 1 pending · 1 waiting$/, "the third wave is under way", 5_000, () => counts(page).innerText());

  begin("cancel the job, confirmed");
  // Resume loaded a new page: until its script has run, Cancel job is the
  // plain link to the confirmation page, not the dialog.
  await page.waitForLoadState();
  await button(page, "Cancel job").click();
  const dialog = page.getByRole("dialog", { name: "Cancel this job?" });
  await dialog.waitFor();
  await page.screenshot({ path: `${shots}/job-cancel-dialog.png` });
  await dialog.getByRole("button", { name: "Keep the job", exact: true }).click();
  await dialog.waitFor({ state: "hidden" });
  await waitForText(page, /^running$/, "kept: still running", 5_000, () => status(page).innerText());
  await button(page, "Cancel job").click();
  await dialog.getByRole("button", { name: "Cancel job now", exact: true }).click();
  await waitForText(page, /waiting devices are skipped/, "the notice", 5_000, () => page.getByRole("status").innerText());
  await waitForText(page, /^cancelled$/, "the job is cancelled", 5_000, () => status(page).innerText());
  await waitForText(page, /^1 done · 1 failed · 1 skipped · 1 pending$/, "its waiting target is skipped", 5_000, () => counts(page).innerText());
  check(!(await button(page, "Cancel job").isVisible()), "a cancelled job offers no Cancel job");
  check(!(await button(page, "Resume").isVisible()), "a cancelled job offers no Resume");
  await checkPage(page, "job-cancelled");

  begin("a command already given goes on after the cancel");
  const [third] = await agentsAnswerOnce("done", "the third wave's command");
  await expectTarget(page, third, "done", "the third target turns done live");
  await waitForText(page, /^2 done · 1 failed · 1 skipped$/, "the counts follow", 5_000, () => counts(page).innerText());

  begin("the Jobs list shows the job with its counts");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Jobs", exact: true }).click();
  await expectPath(page, "/console/jobs/");
  await page.getByRole("heading", { level: 1, name: "Jobs" }).waitFor();
  const listed = row(page, "Reboot · tagged lab");
  await waitForText(page, /cancelled[\s\S]*2 done · 1 failed · 1 skipped/, "the job's row", 5_000, () => listed.innerText());
  await checkPage(page, "jobs", { phone: true });
  await listed.getByRole("link", { name: "Reboot · tagged lab" }).click();
  await expectPath(page, path);

  begin("without script: Reboot devices is a plain form, Cancel job a page");
  const plain = await newPage(browser, { javaScriptEnabled: false, storageState: await page.context().storageState() });
  await plain.goto(`${base}/console/?tag=lab`);
  await button(plain, "Reboot devices").click();
  await expectPath(plain, "/console/reboot-devices/");
  await button(plain, "Reboot devices").click();
  const secondPath = await expectJobPage(plain);
  check(secondPath !== path, "a second job");
  await waitForText(plain, /^running$/, "the second job runs", 5_000, () => status(plain).innerText());
  await waitForText(plain, /^4 pending$/, "one wave of four", 5_000, () => counts(plain).innerText());
  await button(plain, "Cancel job").click();
  await plain.getByRole("heading", { level: 1, name: /^Cancel Reboot · tagged lab\?$/ }).waitFor();
  await button(plain, "Cancel job now").click();
  await expectPath(plain, secondPath);
  await waitForText(plain, /^cancelled$/, "the second job is cancelled", 5_000, () => status(plain).innerText());
  await plain.goto(`${base}/console/jobs/`);
  await waitForText(plain, /2 jobs\./, "the list counts both", 5_000, () => plain.locator("#jobs-summary").innerText());
  const rows = await plain.locator("#job-rows tr").allInnerTexts();
  check(rows.length === 2 && /4 pending/.test(rows[0]), `newest first: ${JSON.stringify(rows)}`);
  await plain.context().close();
});
