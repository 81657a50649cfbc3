// Swagger UI's "Try it out", as a person uses it: open /docs/, authorize with
// a user token through the Authorize dialog, then for login, listDevices and
// rebootDevice press "Try it out" and "Execute" with the bodies Swagger UI
// fills in from the document's examples (only the reboot's serial is typed),
// and read the status Swagger UI shows. Prints the statuses, and any error
// the page logged, as one JSON object; saves screenshots of the page and of
// each operation tried. Driven by playwright-core with the chromium of
// the machine. Run by tests/tests/e2e/swagger_ui.rs.
//
// Reads DEVMGR_URL, DEVMGR_TOKEN, DEVMGR_SERIAL, DEVMGR_CHROMIUM and
// DEVMGR_SCREENSHOTS (a folder).
import { chromium } from "playwright-core";

const env = (name) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const browser = await chromium.launch({
  executablePath: env("DEVMGR_CHROMIUM"),
  args: ["--no-sandbox", "--disable-gpu"],
});
const statuses = {};
const problems = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  await page.goto(`${env("DEVMGR_URL")}/docs/`);
  await page.getByRole("heading", { name: /devmgr/ }).first().waitFor();

  // Authorize: the "Token" scheme's value is the whole Authorization header.
  await page.locator(".auth-wrapper").getByRole("button", { name: "Authorize" }).click();
  // The dialog lists one form per scheme, headed by the scheme's name (its
  // inputs share an id, so they are found by role within the form).
  const dialog = page.locator(".modal-ux");
  const scheme = dialog
    .locator(".auth-container")
    .filter({ has: page.getByRole("heading", { name: /^Token\s+\(apiKey\)$/ }) });
  await scheme.getByRole("textbox").fill(`Token ${env("DEVMGR_TOKEN")}`);
  await scheme.getByRole("button", { name: "Apply credentials" }).click();
  // Authorized: the form now offers to remove the credentials instead.
  await scheme.getByRole("button", { name: "Remove authorization" }).waitFor();
  await scheme.getByRole("button", { name: "Close" }).click();

  const tryOut = async (tag, operationId, fill = async () => {}) => {
    const block = page.locator(`#operations-${tag}-${operationId}`);
    await block.locator(".opblock-summary").first().click();
    await block.getByRole("button", { name: "Try it out" }).click();
    await fill(block);
    await block.getByRole("button", { name: "Execute" }).click();
    const status = block.locator(".live-responses-table .response .response-col_status");
    await status.first().waitFor();
    statuses[operationId] = (await status.first().innerText()).trim();
    await block.screenshot({ path: `${env("DEVMGR_SCREENSHOTS")}/${operationId}.png` });
    return block;
  };
  await tryOut("Accounts", "login");
  await tryOut("Devices", "listDevices");
  await tryOut("Devices", "rebootDevice", async (block) => {
    await block.getByPlaceholder("serial").fill(env("DEVMGR_SERIAL"));
  });
  await page.screenshot({ path: `${env("DEVMGR_SCREENSHOTS")}/page.png`, fullPage: true });
} finally {
  await browser.close();
}
console.log(JSON.stringify({ statuses, problems }));
