// The console at 360 px with the longest things people and agents write
// (docs/console.md: "At 360 px wide no page scrolls sideways"): a long e-mail
// address in the header, a device name of 100 characters and a description
// of 1000 without a space, long facts from the agent and long port names.
// Wide tables and code may scroll inside their own box; the page may not.
// Run by tests/tests/e2e/console_browser.rs.
//
// Reads DEVMGR_EMAIL, DEVMGR_PASSWORD and DEVMGR_SERIAL.
import { base, begin, check, env, expectPath, main, newPage, report, shots } from "./console_lib.mjs";

const button = (page, name) => page.getByRole("button", { name, exact: true });

async function fits(page, name) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  if (width > 360) report.wide.push(`${name}: scrollWidth ${width} at 360 px (${page.url()})`);
  await page.screenshot({ path: `${shots}/long-${name}-phone.png`, fullPage: true });
}

await main(async (browser, track) => {
  const page = track(await newPage(browser, { viewport: { width: 360, height: 780 } }));
  const device = `${base}/console/devices/${env("DEVMGR_SERIAL")}/`;

  begin("sign in at 360 px");
  await page.goto(`${base}/console/login/`);
  await page.getByRole("textbox", { name: "E-mail", exact: true }).fill(env("DEVMGR_EMAIL"));
  await page.getByLabel("Password", { exact: true }).fill(env("DEVMGR_PASSWORD"));
  await button(page, "Log in").click();
  await expectPath(page, "/console/");
  await fits(page, "fleet");

  begin("the device page, its dialogs and edit page");
  await page.goto(device);
  await fits(page, "device");
  await button(page, "Reboot").click();
  await button(page, "Reboot now").waitFor();
  await fits(page, "reboot-dialog");
  await page.goto(device);
  await button(page, "Delete device").click();
  await button(page, "Delete").waitFor();
  await fits(page, "delete-dialog");
  await page.goto(device);
  await button(page, "Edit").click();
  await page.getByRole("textbox", { name: "Name", exact: true }).waitFor();
  await fits(page, "edit");

  begin("the account and add-a-device pages");
  await page.goto(`${base}/console/account/`);
  await fits(page, "account");
  await page.goto(`${base}/console/add-device/`);
  await fits(page, "add-device");

  begin("without script, the confirmation pages");
  const plain = track(await newPage(browser, {
    viewport: { width: 360, height: 780 }, javaScriptEnabled: false, storageState: await page.context().storageState(),
  }));
  await plain.goto(device);
  await button(plain, "Reboot").click();
  await button(plain, "Reboot now").waitFor();
  check(new URL(plain.url()).pathname !== new URL(device).pathname, "a confirmation page");
  await fits(plain, "reboot-confirm");
  await plain.goto(device);
  await button(plain, "Delete device").click();
  await button(plain, "Delete").waitFor();
  await fits(plain, "delete-confirm");
});
