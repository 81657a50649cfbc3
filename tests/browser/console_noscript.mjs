// The console without script (docs/console.md: "Every action is a button: an
// HTML form with method=post that works without script"): sign in, reboot a
// device through a confirmation page, edit it (a blank name refused beside
// the field), delete it through a confirmation page, and log out, in a
// browser with JavaScript disabled. Run by tests/tests/e2e/console_browser.rs.
//
// Reads DEVMGR_EMAIL, DEVMGR_PASSWORD and DEVMGR_SERIAL (of "Kitchen Pi").
import {
  allowingHttpErrors, base, begin, check, checkPage, env, expectFieldError, expectPath, main, newPage, waitForText,
} from "./console_lib.mjs";

const button = (page, name) => page.getByRole("button", { name, exact: true });
const commandsTable = (page) => page.locator("main table").filter({ has: page.locator("caption", { hasText: "Commands" }) });

await main(async (browser, track) => {
  const page = track(await newPage(browser, { javaScriptEnabled: false }));
  const devicePath = `/console/devices/${env("DEVMGR_SERIAL")}/`;

  begin("sign in without script");
  await page.goto(`${base}/console/login/`);
  await page.getByRole("textbox", { name: "E-mail", exact: true }).fill(env("DEVMGR_EMAIL"));
  await page.getByLabel("Password", { exact: true }).fill(env("DEVMGR_PASSWORD"));
  await button(page, "Log in").click();
  await expectPath(page, "/console/");
  await page.locator("main").getByRole("link", { name: "Kitchen Pi", exact: true }).click();
  await expectPath(page, devicePath);

  begin("reboot through a confirmation page");
  await button(page, "Reboot").click();
  await button(page, "Reboot now").waitFor();
  check(new URL(page.url()).pathname !== devicePath, "without script, Reboot opens a confirmation page");
  check((await page.locator("h1").count()) === 1, "one <h1> on the confirmation page");
  await checkPage(page, "reboot-confirm");
  await button(page, "Reboot now").click();
  await expectPath(page, devicePath);
  await waitForText(page, /pending/, "the command is listed as pending", 2_000, () => commandsTable(page).innerText());

  begin("edit without script");
  await button(page, "Edit").click();
  await page.getByRole("textbox", { name: "Name", exact: true }).fill(" ");
  await allowingHttpErrors(async () => {
    await button(page, "Save").click();
    await expectFieldError(page.getByRole("textbox", { name: "Name", exact: true }), "This field may not be blank.");
  });
  await page.getByRole("textbox", { name: "Name", exact: true }).fill("Hall Pi");
  await button(page, "Save").click();
  await page.getByRole("heading", { level: 1, name: "Hall Pi" }).waitFor();

  begin("delete through a confirmation page");
  await page.goto(`${base}${devicePath}`);
  await button(page, "Delete device").click();
  await button(page, "Delete").waitFor();
  check(new URL(page.url()).pathname !== devicePath, "without script, Delete device opens a confirmation page");
  await checkPage(page, "delete-confirm");
  await button(page, "Delete").click();
  await expectPath(page, "/console/");
  check(!(await page.locator("main").innerText()).includes("Hall Pi"), "the deleted device is gone");

  begin("log out without script");
  await button(page, "Log out").click();
  await expectPath(page, "/console/login/");
});
