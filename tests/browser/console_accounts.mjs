// Signing in when it goes wrong, and recovering an account, in a real
// browser (docs/console.md, docs/security.md's lockout): a wrong password, an
// unverified address, the lockout after five failures (the API's 429
// message), then the reset-password journey on the locked account — the
// mailed link, a refused password beside its field, a new one that leads to
// the sign-in page without signing in — and signing in at once (a completed
// reset lifts the lock). Run by tests/tests/e2e/console_browser.rs.
//
// Reads DEVMGR_EMAIL (verified), DEVMGR_UNVERIFIED, DEVMGR_LOCKED (verified,
// fresh), DEVMGR_PASSWORD (of all three) and DEVMGR_NEW_PASSWORD.
import {
  allowingHttpErrors, base, begin, check, checkPage, env, expectFieldError, expectPath, mailLink, main, newPage,
  waitForText,
} from "./console_lib.mjs";

const password = env("DEVMGR_PASSWORD");
const button = (page, name) => page.getByRole("button", { name, exact: true });
const alert = (page) => page.getByRole("alert").filter({ hasText: /\S/ });

async function signIn(page, email, secret) {
  await page.goto(`${base}/console/login/`);
  await page.getByRole("textbox", { name: "E-mail", exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(secret);
  await button(page, "Log in").click();
  await page.waitForLoadState();
}

/** Signs in and expects to stay on the sign-in page with `message` in role=alert. */
async function refused(page, email, secret, message) {
  await allowingHttpErrors(async () => {
    await signIn(page, email, secret);
    await waitForText(page, message, `the sign-in page says ${message}`, 5_000, () => alert(page).first().innerText());
  });
  check(new URL(page.url()).pathname === "/console/login/", `a refused sign-in stays on /console/login/, is at ${page.url()}`);
}

await main(async (browser, track) => {
  const page = track(await newPage(browser));

  begin("a wrong password");
  await refused(page, env("DEVMGR_EMAIL"), "not-the-password-1", /Unable to log in with provided credentials\./);
  await checkPage(page, "login-refused", { open: async (copy) => copy.goto(`${base}/console/login/`) });

  begin("an unverified address");
  await refused(page, env("DEVMGR_UNVERIFIED"), password, /E-mail address is not verified\./);

  begin("the lockout after five failures");
  const locked = env("DEVMGR_LOCKED");
  for (let attempt = 1; attempt <= 5; attempt += 1) {
    await refused(page, locked, `wrong-password-${attempt}`, /Unable to log in with provided credentials\./);
  }
  await refused(page, locked, password, /Request was throttled\. Expected available in \d+ seconds\./);
  await page.screenshot({ path: `${env("DEVMGR_SCREENSHOTS")}/login-locked.png`, fullPage: true });

  begin("reset: ask for the link");
  await page.goto(`${base}/console/login/`);
  await page.getByRole("link", { name: "Forgot your password?", exact: true }).click();
  await expectPath(page, "/console/reset-password/");
  await page.getByRole("textbox", { name: "E-mail", exact: true }).fill(locked);
  await button(page, "Send reset link").click();
  await page.getByRole("status").filter({ hasText: /\S/ }).first().waitFor();

  begin("reset: the mailed link's page");
  const link = await mailLink(locked, "/reset-password/confirm/?key=");
  await page.goto(link);
  const newPassword = page.getByLabel("New password", { exact: true });
  await newPassword.waitFor();
  check((await page.locator("h1").count()) === 1, "one <h1> on the reset page");
  await checkPage(page, "set-password", { open: async (copy) => copy.goto(link) });

  begin("reset: a refused password is explained beside the field");
  await newPassword.fill("12345678");
  await allowingHttpErrors(async () => {
    await button(page, "Set password").click();
    await expectFieldError(page.getByLabel("New password", { exact: true }), "This password is entirely numeric.");
  });

  begin("reset: a good password leads to the sign-in page, not signed in");
  await page.getByLabel("New password", { exact: true }).fill(env("DEVMGR_NEW_PASSWORD"));
  await button(page, "Set password").click();
  await expectPath(page, "/console/login/");
  await page.getByRole("status").filter({ hasText: /\S/ }).first().waitFor();
  await page.goto(`${base}/console/`);
  await expectPath(page, "/console/login/");

  begin("the reset lifted the lock: signing in works at once");
  await signIn(page, locked, env("DEVMGR_NEW_PASSWORD"));
  await expectPath(page, "/console/");
  await page.getByRole("heading", { level: 1, name: "Devices" }).waitFor();
});
