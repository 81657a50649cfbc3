// The console by keyboard alone (docs/console.md: "every page works by
// keyboard alone"): sign in and reboot a device with Tab, Shift+Tab, Enter
// and Space only — never a click. Every control reached shows where the focus
// is (an outline or a shadow), and while the reboot dialog is open the focus
// stays inside it; its Cancel closes it and gives the focus back. Run by tests/tests/e2e/console_browser.rs.
//
// Reads DEVMGR_EMAIL, DEVMGR_PASSWORD and DEVMGR_SERIAL (of "Kitchen Pi").
import { base, begin, check, env, expectPath, main, newPage, report, waitForText } from "./console_lib.mjs";

const isFocused = (locator) => locator.evaluate((element) => element === document.activeElement).catch(() => false);

/** Where the focus is: a short description of the focused element. */
const focused = (page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return "(body)";
    const name = element.getAttribute("aria-label") || element.labels?.[0]?.textContent || element.textContent;
    return `${element.tagName.toLowerCase()} ${JSON.stringify((name ?? "").trim().slice(0, 40))}`;
  });

/** Whether the focused element shows the focus (an outline or a box shadow). */
const showsFocus = (page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return true;
    const style = getComputedStyle(element);
    return (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== "none";
  });

/**
 * Presses Tab (or Shift+Tab with `back`) until `target` has the focus, at
 * most 40 times; checks each stop shows the focus, and stays within `inside`
 * when given.
 */
async function tabTo(page, target, { back = false, inside = null } = {}) {
  const path = [];
  for (let i = 0; i < 40; i += 1) {
    if (await isFocused(target)) return;
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
    const where = await focused(page);
    path.push(where);
    if (where !== "(body)" && !(await showsFocus(page))) report.focus.push(`${new URL(page.url()).pathname}: no visible focus on ${where}`);
    if (inside && !(await inside.evaluate((box) => box.contains(document.activeElement)))) {
      throw new Error(`the focus left the dialog: ${where}`);
    }
  }
  throw new Error(`${back ? "Shift+Tab" : "Tab"} never reached the target; the focus went ${path.join(" → ")}`);
}

await main(async (browser, track) => {
  const page = track(await newPage(browser));
  const email = page.getByRole("textbox", { name: "E-mail", exact: true });
  const password = page.getByLabel("Password", { exact: true });
  const logIn = page.getByRole("button", { name: "Log in", exact: true });

  begin("sign in by keyboard");
  await page.goto(`${base}/console/login/`);
  await tabTo(page, email);
  await page.keyboard.type(env("DEVMGR_EMAIL"));
  await tabTo(page, logIn);
  // Back to the password, which comes before the button.
  await tabTo(page, password, { back: true });
  await page.keyboard.type(env("DEVMGR_PASSWORD"));
  await tabTo(page, logIn);
  await page.keyboard.press("Enter");
  await expectPath(page, "/console/");

  begin("open the device by keyboard");
  const link = page.locator("main").getByRole("link", { name: "Kitchen Pi", exact: true });
  await link.waitFor();
  await tabTo(page, link);
  await page.keyboard.press("Enter");
  await expectPath(page, `/console/devices/${env("DEVMGR_SERIAL")}/`);

  begin("reboot by keyboard");
  const reboot = page.getByRole("button", { name: "Reboot", exact: true });
  await tabTo(page, reboot);
  await page.keyboard.press("Space");
  const dialog = page.getByRole("dialog");
  const now = page.getByRole("button", { name: "Reboot now", exact: true });
  await now.waitFor();
  const inDialog = (await dialog.count()) === 1 ? dialog : null;
  if (inDialog) {
    check(await inDialog.evaluate((box) => box.contains(document.activeElement)), `opening the dialog moves the focus into it, it is on ${await focused(page)}`);
  }
  // Cancel first: the dialog closes and the focus returns to Reboot.
  if (inDialog) {
    const cancel = inDialog.getByRole("button", { name: "Cancel", exact: true });
    await tabTo(page, cancel, { inside: inDialog });
    await page.keyboard.press("Space");
    await inDialog.waitFor({ state: "hidden" });
    check(await isFocused(reboot), `closing the dialog returns the focus to Reboot, not ${await focused(page)}`);
    await page.keyboard.press("Enter");
    await now.waitFor();
  }
  await tabTo(page, now, { inside: inDialog });
  await page.keyboard.press("Enter");
  const commands = page.locator("main table").filter({ has: page.locator("caption", { hasText: "Commands" }) });
  await waitForText(page, /pending/, "the reboot is pending", 5_000, () => commands.innerText());
});
