// The web console's main journey, in a real browser, as a person uses it
// (docs/console.md): register, verify the address through the mailed link, set
// a first password, log out and in, enrol a device through the agent API and
// watch it come online, reboot it and watch the command's status change, edit
// it (a blank name first), delete it, rotate the install token, and log out
// everywhere. Every page passes axe-core, fits 360 px and is photographed.
// Run by tests/tests/e2e/console_browser.rs; see console_lib.mjs.
//
// Reads DEVMGR_EMAIL and DEVMGR_PASSWORD besides the common variables.
import {
  allowingHttpErrors, apiLogin, apiStatus, ack, base, begin, check, checkPage, env, expectFieldError,
  expectPath, heartbeat, install, installCommand, mailLink, main, newPage, pollCommands, row,
  textOutsideTables, waitForText,
} from "./console_lib.mjs";

const email = env("DEVMGR_EMAIL");
const password = env("DEVMGR_PASSWORD");

const nav = (page, name) => page.getByRole("navigation").getByRole("link", { name, exact: true });
const button = (page, name) => page.getByRole("button", { name, exact: true });
const field = (page, label) => page.getByLabel(label, { exact: true });
const notice = (page) => page.getByRole("status").filter({ hasText: /\S/ });

await main(async (browser, track) => {
  const page = track(await newPage(browser));

  begin("signed out, /console/ leads to the sign-in page");
  await page.goto(`${base}/console/`);
  await expectPath(page, "/console/login/");
  check((await page.locator("main").count()) === 1, "one <main>");
  check((await page.locator("h1").count()) === 1, "one <h1> on the sign-in page");
  await page.getByRole("textbox", { name: "E-mail", exact: true }).waitFor();
  await field(page, "Password").waitFor();
  await button(page, "Log in").waitFor();
  await checkPage(page, "login");

  begin("forgot-password page");
  await page.getByRole("link", { name: "Forgot your password?", exact: true }).click();
  await expectPath(page, "/console/reset-password/");
  await page.getByRole("textbox", { name: "E-mail", exact: true }).waitFor();
  await button(page, "Send reset link").waitFor();
  await checkPage(page, "reset-password");

  begin("register");
  await page.goto(`${base}/console/login/`);
  await page.getByRole("link", { name: "Create an account", exact: true }).click();
  await expectPath(page, "/console/register/");
  await checkPage(page, "register");
  await page.getByRole("textbox", { name: "E-mail", exact: true }).fill(email);
  await button(page, "Create account").click();
  await expectPath(page, "/console/");
  await waitForText(page, /Verify your e-mail address/, "the fleet asks to verify the address");
  await checkPage(page, "fleet-unverified");

  begin("send the verification link again");
  await button(page, "Send the link again").click();
  await notice(page).first().waitFor();

  begin("verify through the mailed link");
  const link = await mailLink(email, "/verify-email/");
  await page.goto(link);
  await waitForText(page, /E-mail address verified\./, "the verification page", 5_000, (p) => p.locator("body").innerText());
  check((await page.locator("h1").count()) === 1, "one <h1> on the verification page");
  await checkPage(page, "verified");

  begin("the empty fleet");
  await page.goto(`${base}/console/`);
  await page.getByRole("heading", { level: 1, name: "Devices" }).waitFor();
  const fleetText = await page.locator("main").innerText();
  check(!/Verify your e-mail address/.test(fleetText), "a verified account is not asked to verify");
  await installCommand(page);
  await page.getByRole("main").getByRole("link", { name: "Add a device", exact: true }).waitFor();
  await checkPage(page, "fleet-empty");

  begin("account: set the first password");
  await nav(page, "Account").click();
  await expectPath(page, "/console/account/");
  check((await field(page, "Current password").count()) === 0, "no Current password before the first password");
  await field(page, "New password").fill(password);
  await button(page, "Change password").click();
  await notice(page).first().waitFor();
  await page.goto(`${base}/console/account/`);
  await field(page, "Current password").waitFor();

  begin("account: name");
  await page.getByRole("textbox", { name: "Name", exact: true }).fill("Alice Example");
  await button(page, "Save").click();
  await notice(page).first().waitFor();
  await page.goto(`${base}/console/account/`);
  const name = await page.getByRole("textbox", { name: "Name", exact: true }).inputValue();
  check(name === "Alice Example", `the saved name shows, not ${JSON.stringify(name)}`);
  await checkPage(page, "account");

  begin("add a device: the install command and Copy");
  await nav(page, "Add a device").click();
  await expectPath(page, "/console/add-device/");
  const before = await installCommand(page);
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  await button(page, "Copy").click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  check(copied.trim() === before.text, `Copy puts the command on the clipboard, not ${JSON.stringify(copied)}`);
  await checkPage(page, "add-device");

  begin("account: a new install token");
  await nav(page, "Account").click();
  await button(page, "New install token").click();
  await page.waitForLoadState();
  await page.goto(`${base}/console/add-device/`);
  const after = await installCommand(page);
  check(after.token !== before.token, "New install token changes the install command");

  begin("log out, log in");
  await button(page, "Log out").click();
  await expectPath(page, "/console/login/");
  await page.goto(`${base}/console/account/`);
  await expectPath(page, "/console/login/");
  await page.getByRole("textbox", { name: "E-mail", exact: true }).fill(email);
  await field(page, "Password").fill(password);
  await button(page, "Log in").click();
  await expectPath(page, "/console/");

  begin("enrol a device; it is listed offline, never seen");
  const device = await install(after.token, "Kitchen Pi", { machine_type: "rpi_4b" });
  await page.reload();
  await row(page, "Kitchen Pi").waitFor();
  await waitForText(page, /Offline/, "the new device is offline", 5_000, () => row(page, "Kitchen Pi").innerText());
  await waitForText(page, /never/, "the new device was never seen", 5_000, () => row(page, "Kitchen Pi").innerText());
  await waitForText(page, /Raspberry Pi 4 Model B/, "the machine type's name", 5_000, () => row(page, "Kitchen Pi").innerText());
  await waitForText(page, /(^|\D)0 online/, "the count of online devices", 5_000, textOutsideTables);
  await waitForText(page, /(^|\D)1 offline/, "the count of offline devices", 5_000, textOutsideTables);
  const nameLink = row(page, "Kitchen Pi").getByRole("link", { name: "Kitchen Pi" });
  check((await nameLink.getAttribute("href")).endsWith(`/console/devices/${device.serial}/`), "the name links to the device");

  begin("a heartbeat shows it online without reload");
  await heartbeat(device.device_token, {
    agent_version: "1.4.2", operating_system: "Raspberry Pi OS 12", uname: "Linux kitchen 6.6.31-v8+ aarch64",
    disk_capacity: 32000000000, disk_used: 8000000000, ram_capacity: 4096, processor_speed: 1800,
    ports: [{ port: 22, protocol: "tcp", name: "ssh" }, { port: 8080, protocol: "tcp", name: "http-alt" }],
  });
  await waitForText(page, /Online/, "the device turns Online live", 5_000, () => row(page, "Kitchen Pi").innerText());
  await waitForText(page, /(^|\D)1 online/, "the online count changes live", 5_000, textOutsideTables);
  await waitForText(page, /(^|\D)0 offline/, "the offline count changes live", 5_000, textOutsideTables);
  await page.reload();
  const seen = row(page, "Kitchen Pi").locator("[title]").filter({ hasText: /ago|now|second|minute|min/i }).first();
  await seen.waitFor();
  check(/\d{1,2}:\d{2}|\d{4}-\d{2}-\d{2}/.test(await seen.getAttribute("title")), "the exact time of the last heartbeat is in the title");
  await checkPage(page, "fleet", { phone: true, dark: true });

  begin("the device page");
  await row(page, "Kitchen Pi").getByRole("link", { name: "Kitchen Pi" }).click();
  await expectPath(page, `/console/devices/${device.serial}/`);
  await page.getByRole("heading", { level: 1, name: "Kitchen Pi" }).waitFor();
  const facts = await page.locator("main").innerText();
  for (const fact of ["Operating system", "Kernel", "Agent version", "RAM", "Disk", "CPU speed", "Serial", "Created",
    "Raspberry Pi OS 12", "Linux kitchen 6.6.31-v8+ aarch64", "1.4.2", device.serial]) {
    check(facts.includes(fact), `the device page shows ${JSON.stringify(fact)}`);
  }
  const ports = page.locator("main table").filter({ has: page.locator("caption", { hasText: "Ports" }) });
  await waitForText(page, /22[\s\S]*ssh[\s\S]*8080/, "the ports table", 5_000, () => ports.innerText());
  await checkPage(page, "device", { phone: true, dark: true });

  begin("reboot: the confirmation");
  const devicePath = `${base}/console/devices/${device.serial}/`;
  await button(page, "Reboot").click();
  const confirm = button(page, "Reboot now");
  await confirm.waitFor();
  const dialog = page.getByRole("dialog");
  check((await dialog.count()) === 1, "with script, Reboot asks in a dialog");
  check(await dialog.evaluate((d) => d.matches(":modal") || d.getAttribute("aria-modal") === "true"), "the dialog is modal");
  check(await dialog.getByRole("button", { name: "Reboot now" }).isVisible(), "Reboot now is in the dialog");
  await checkPage(page, "reboot-dialog", {
    open: async (copy) => { await copy.goto(devicePath); await button(copy, "Reboot").click(); await button(copy, "Reboot now").waitFor(); },
  });

  begin("reboot: the command's status, live");
  await confirm.click();
  const commands = page.locator("main table").filter({ has: page.locator("caption", { hasText: "Commands" }) });
  await waitForText(page, /pending/, "the new command is pending", 5_000, () => commands.innerText());
  const handed = (await pollCommands(device.device_token)).commands;
  check(handed.length === 1 && handed[0].action === "reboot", `the agent gets the reboot: ${JSON.stringify(handed)}`);
  await waitForText(page, /delivered/, "the command shows delivered live", 5_000, () => commands.innerText());
  await ack(device.device_token, handed[0].id, "received");
  await waitForText(page, /received/, "the command shows received live", 5_000, () => commands.innerText());
  await ack(device.device_token, handed[0].id, "done");
  await waitForText(page, /done/, "the command shows done live", 5_000, () => commands.innerText());

  begin("edit: a blank name is refused beside the field");
  await button(page, "Edit").click();
  const nameField = page.getByRole("textbox", { name: "Name", exact: true });
  await nameField.waitFor();
  await page.getByRole("textbox", { name: "Description", exact: true }).waitFor();
  await checkPage(page, "edit", {
    open: async (copy) => { await copy.goto(page.url()); const edit = button(copy, "Edit"); if (await edit.count()) await edit.click(); await copy.getByRole("textbox", { name: "Name", exact: true }).waitFor(); },
  });
  await nameField.fill("   ");
  await allowingHttpErrors(async () => {
    await button(page, "Save").click();
    await expectFieldError(page.getByRole("textbox", { name: "Name", exact: true }), "This field may not be blank.");
  });

  begin("edit: a new name and description");
  await page.getByRole("textbox", { name: "Name", exact: true }).fill("Hall Pi");
  await page.getByRole("textbox", { name: "Description", exact: true }).fill("By the front door");
  await button(page, "Save").click();
  await page.getByRole("heading", { level: 1, name: "Hall Pi" }).waitFor();
  await page.goto(devicePath);
  await page.getByRole("heading", { level: 1, name: "Hall Pi" }).waitFor();
  check((await page.locator("main").innerText()).includes("By the front door"), "the description shows");

  begin("delete: the confirmation");
  await button(page, "Delete device").click();
  await button(page, "Delete").waitFor();
  await checkPage(page, "delete-dialog", {
    shot: true,
    open: async (copy) => { await copy.goto(devicePath); await button(copy, "Delete device").click(); await button(copy, "Delete").waitFor(); },
  });
  await button(page, "Delete").click();
  await expectPath(page, "/console/");
  await page.getByRole("main").getByRole("link", { name: "Add a device", exact: true }).waitFor();
  check(!(await page.locator("main").innerText()).includes("Hall Pi"), "the deleted device is gone");
  await installCommand(page);

  begin("log out everywhere ends the API's tokens and the console's session");
  const token = await apiLogin(email, password);
  check((await apiStatus("GET", "/profile/", token)) === 200, "the API token works at first");
  await nav(page, "Account").click();
  await button(page, "Log out everywhere").click();
  await page.waitForLoadState();
  check((await apiStatus("GET", "/profile/", token)) === 401, "after Log out everywhere the API token is refused (401)");
  await page.goto(`${base}/console/`);
  await expectPath(page, "/console/login/");
});
