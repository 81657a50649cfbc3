// The Activity page and a device's recent activity (docs/console.md,
// Activity and A device): a reboot confirmed on the device's page shows in
// its "Recent activity" with the user's address, and on the Activity page
// (reached from the navigation) as a `device.reboot` row; the Device filter
// keeps that device's entries, then the Action filter the reboot alone; at
// 360 px every cell of a row is still shown. Run by
// tests/tests/e2e/console_audit.rs.
//
// Reads DEVMGR_EMAIL, DEVMGR_PASSWORD and DEVMGR_SERIAL: a device named
// "Lab Pi 1" the agent installed (the account has a second, "Office printer").
import { base, begin, check, checkPage, env, expectPath, main, newPage, waitForText } from "./console_lib.mjs";

const email = env("DEVMGR_EMAIL");
const serial = env("DEVMGR_SERIAL");
const button = (page, name) => page.getByRole("button", { name, exact: true });
const select = (page, name) => page.getByRole("combobox", { name, exact: true });
const activityRows = (page) => page.locator("main table.activity tbody tr");
const actionsOf = async (page) => (await activityRows(page).locator("code.action").allInnerTexts()).map((text) => text.trim());

await main(async (browser, track) => {
  const page = track(await newPage(browser));

  begin("sign in, reboot a device from its page");
  await page.goto(`${base}/console/login/`);
  await page.getByRole("textbox", { name: "E-mail", exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(env("DEVMGR_PASSWORD"));
  await button(page, "Log in").click();
  await expectPath(page, "/console/");
  await page.goto(`${base}/console/devices/${serial}/`);
  await button(page, "Reboot").click();
  await button(page, "Reboot now").click();
  await expectPath(page, `/console/devices/${serial}/`);

  begin("the device's recent activity: the reboot, by the user, from their address");
  const recent = page.locator("section.activity-section");
  await waitForText(page, /device\.reboot/, "the reboot in Recent activity", 5_000, () => recent.innerText());
  const newest = recent.locator("tbody tr").first();
  const newestText = await newest.innerText();
  check(/device\.reboot/.test(newestText), `the newest entry is the reboot: ${newestText}`);
  check(newestText.includes(email), `by ${email}: ${newestText}`);
  check(newestText.includes("127.0.0.1"), `from 127.0.0.1: ${newestText}`);
  const all = page.getByRole("link", { name: "All activity of this device", exact: true });
  check((await all.getAttribute("href")) === `/console/activity/?device=${serial}`, "the link filters the Activity page by the device");
  await page.locator("#activity-heading").scrollIntoViewIfNeeded();
  await checkPage(page, "device-activity", { phone: true });

  begin("the Activity page from the navigation: the reboot's row");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Activity", exact: true }).click();
  await expectPath(page, "/console/activity/");
  await page.getByRole("heading", { level: 1, name: "Activity" }).waitFor();
  const actions = await actionsOf(page);
  check(actions[0] === "device.reboot", `the newest entry is the reboot: ${actions.join(", ")}`);
  check(actions.includes("device.install") && actions.includes("account.create"), `the installs and the account are there too: ${actions.join(", ")}`);
  const reboot = activityRows(page).first();
  const cells = (await reboot.locator("td").allInnerTexts()).map((text) => text.trim());
  check(cells[1] === email && cells[2] === "device.reboot" && cells[3] === "Lab Pi 1" && cells[4] === "127.0.0.1",
    `time, actor, action, target, address: ${JSON.stringify(cells)}`);
  check((await reboot.getByRole("link", { name: "Lab Pi 1" }).getAttribute("href")) === `/console/devices/${serial}/`, "the target links to the device");
  check(/ago|just now/.test(cells[0]), `the time is relative: ${cells[0]}`);
  await checkPage(page, "activity", { phone: true, dark: true });

  begin("at 360 px every cell is shown, each after its column's name");
  await page.setViewportSize({ width: 360, height: 780 });
  const shown = await reboot.locator("td").evaluateAll((tds) => tds.map((td) => {
    const box = td.getBoundingClientRect();
    return { label: td.dataset.label, visible: box.width > 0 && box.height > 0 && box.right <= 360 };
  }));
  check(shown.length === 5 && shown.every((cell) => cell.visible), `every cell within the screen: ${JSON.stringify(shown)}`);
  await page.setViewportSize({ width: 1280, height: 900 });

  begin("filter by the device");
  await select(page, "Device").selectOption({ label: "Lab Pi 1" });
  await button(page, "Filter").click();
  await page.waitForURL((url) => url.searchParams.get("device") === serial, { timeout: 5_000 });
  const ofDevice = await actionsOf(page);
  check(ofDevice.join(",") === "device.reboot,device.install", `the device's entries: ${ofDevice.join(", ")}`);
  const targets = await activityRows(page).locator("td.target").allInnerTexts();
  check(targets.every((target) => target.trim() === "Lab Pi 1"), `only Lab Pi 1: ${targets.join(", ")}`);

  begin("then by the action");
  await select(page, "Action").selectOption("device.reboot");
  await button(page, "Filter").click();
  await page.waitForURL((url) => url.searchParams.get("action") === "device.reboot", { timeout: 5_000 });
  check(new URL(page.url()).searchParams.get("device") === serial, "the device filter is kept");
  await waitForText(page, /^1 entry\.$/, "one entry", 5_000, () => page.locator("#activity-summary").innerText());
  check((await actionsOf(page)).join(",") === "device.reboot", "the reboot alone");
  check((await select(page, "Device").inputValue()) === serial, "the device stays chosen");
  await checkPage(page, "activity-filtered");
});
