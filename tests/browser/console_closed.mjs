// A private instance (`serve --registration closed`, docs/console.md): the
// sign-in page offers no registration, and the registration page only says
// that registration is closed. Run by tests/tests/e2e/console_browser.rs.
import { allowingHttpErrors, base, begin, check, checkPage, expectPath, main, newPage } from "./console_lib.mjs";

await main(async (browser, track) => {
  const page = track(await newPage(browser));

  begin("the sign-in page offers no registration");
  await page.goto(`${base}/console/login/`);
  await page.getByRole("button", { name: "Log in", exact: true }).waitFor();
  check((await page.getByRole("link", { name: "Create an account" }).count()) === 0, "no link to create an account");
  check((await page.getByRole("link", { name: "Forgot your password?", exact: true }).count()) === 1, "the reset link stays");

  begin("the registration page says registration is closed");
  await allowingHttpErrors(async () => {
    const answer = await page.goto(`${base}/console/register/`);
    check(answer.status() === 403, `the registration page answers 403, not ${answer.status()}`);
    await expectPath(page, "/console/register/");
    await page.getByRole("heading", { name: "Registration is closed", level: 1 }).waitFor();
    check((await page.getByRole("textbox").count()) === 0, "no field to fill");
    check((await page.getByRole("button", { name: "Create account" }).count()) === 0, "no button to create an account");
    await checkPage(page, "register-closed", { phone: true, open: async (copy) => copy.goto(`${base}/console/register/`) });
  });
});
