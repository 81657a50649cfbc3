// The fleet view (docs/console.md, Devices): filters by search, status, tag
// and machine type that live in the URL (and survive a reload), pages of 50,
// tag chips that lead to the view of their tag, "Tag devices" on the
// filtered selection (a preview of its count, then the change, and a
// refusal that changes nothing), a device's tags edited on its page, and a
// filtered view kept live. Run by tests/tests/e2e/console_browser.rs.
//
// Reads DEVMGR_EMAIL, DEVMGR_PASSWORD (an account without devices; the
// server runs with --throttle off so that the script enrols 55 devices).
import {
  allowingHttpErrors, base, begin, check, checkPage, env, expectFieldError, expectPath, heartbeat, install,
  installCommand, main, newPage, row, shots, waitForText,
} from "./console_lib.mjs";

const button = (page, name) => page.getByRole("button", { name, exact: true });
const select = (page, name) => page.getByRole("combobox", { name, exact: true });
const search = (page) => page.getByRole("searchbox", { name: "Search", exact: true });
const summary = (page) => page.locator("#search-result");
const sensors = Array.from({ length: 52 }, (_, n) => `Sensor ${String(n + 1).padStart(2, "0")}`);

/** The names in the fleet table, in order. */
const names = (page) => page.locator("#device-rows tr td:first-child > a").allInnerTexts();

/**
 * Waits until the table lists exactly `expected` (names, in any order: the
 * devices are enrolled within a second, and the fleet orders those by serial).
 */
async function expectNames(page, expected, what) {
  const deadline = Date.now() + 5_000;
  const sorted = (list) => JSON.stringify([...list].sort());
  let shown = [];
  while (Date.now() < deadline) {
    shown = await names(page).catch(() => []);
    if (sorted(shown) === sorted(expected)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: expected the rows ${JSON.stringify(expected)}, see ${JSON.stringify(shown)}`);
}

/** Waits until the page's query string is `query` (as URLSearchParams writes it). */
async function expectQuery(page, query, what) {
  await page.waitForURL((url) => url.pathname === "/console/" && url.searchParams.toString() === query, { timeout: 5_000 })
    .catch(() => { throw new Error(`${what}: expected /console/?${query}, am at ${page.url()}`); });
}

await main(async (browser, track) => {
  const page = track(await newPage(browser));

  begin("sign in, enrol a fleet");
  await page.goto(`${base}/console/login/`);
  await page.getByRole("textbox", { name: "E-mail", exact: true }).fill(env("DEVMGR_EMAIL"));
  await page.getByLabel("Password", { exact: true }).fill(env("DEVMGR_PASSWORD"));
  await button(page, "Log in").click();
  await expectPath(page, "/console/");
  await page.goto(`${base}/console/add-device/`);
  const { token } = await installCommand(page);
  const kitchen = await install(token, "Kitchen Pi", { machine_type: "rpi_4b" });
  const garage = await install(token, "Garage NAS", { machine_type: "x86_64" });
  await install(token, "Office printer");
  const enrolled = [];
  for (const name of sensors) enrolled.push(await install(token, name, { machine_type: "rpi_zero_2_w" }));
  await heartbeat(kitchen.device_token, { agent_version: "1.4.2" });
  await heartbeat(garage.device_token, { agent_version: "1.4.2" });

  begin("the first page of 50, then the next");
  await page.goto(`${base}/console/`);
  await waitForText(page, /55 devices\. Showing 1–50\./, "the summary of the first page", 5_000, () => summary(page).innerText());
  const first = await names(page);
  check(first.length === 50, `the first page shows 50 devices, not ${first.length}`);
  await page.getByRole("link", { name: "Next page", exact: true }).click();
  await expectQuery(page, "page=2", "Next page");
  await waitForText(page, /Showing 51–55\./, "the summary of the second page", 5_000, () => summary(page).innerText());
  const second = await names(page);
  await expectNames(page, ["Kitchen Pi", "Garage NAS", "Office printer", ...sensors].filter((n) => !first.includes(n)),
    "the second page shows the other five");
  await page.reload();
  await expectNames(page, second, "the second page after a reload");
  await page.getByRole("link", { name: "Previous page", exact: true }).click();
  await expectQuery(page, "", "Previous page");

  begin("a device's tags, edited on its page");
  await row(page, "Kitchen Pi").getByRole("link", { name: "Kitchen Pi" }).click();
  await button(page, "Edit").click();
  const tags = page.getByRole("textbox", { name: "Tags", exact: true });
  await tags.fill("lab Bad!Tag");
  await allowingHttpErrors(async () => {
    await button(page, "Save").click();
    await expectFieldError(page.getByRole("textbox", { name: "Tags", exact: true }),
      "Enter a valid tag: 1 to 40 characters from a-z, 0-9, \".\", \"_\", \":\" and \"-\", beginning with a letter or digit.");
  });
  begin("a device's tags: the refusal's page checks");
  await checkPage(page, "device-tags-refused", {
    open: async (copy) => {
      await copy.goto(`${base}/console/devices/${kitchen.serial}/edit/`);
      await copy.getByRole("textbox", { name: "Tags", exact: true }).fill("lab Bad!Tag");
      await button(copy, "Save").click();
      await copy.locator("#tags-errors").waitFor();
    },
  });
  begin("a device's tags: saved");
  await page.getByRole("textbox", { name: "Tags", exact: true }).fill("Lab, site:berlin");
  await button(page, "Save").click();
  await expectPath(page, `/console/devices/${kitchen.serial}/`);
  await waitForText(page, /lab\s*site:berlin/, "the device page shows its tags", 5_000, () => page.locator("#device-tags").innerText());
  await checkPage(page, "device-tags", { phone: true });

  begin("a tag chip leads to the view of its tag");
  await page.getByRole("link", { name: "site:berlin", exact: true }).click();
  await expectQuery(page, "tag=site%3Aberlin", "the chip on the device page");
  await expectNames(page, ["Kitchen Pi"], "the view of site:berlin");
  await waitForText(page, /1 of 55 devices match\./, "the summary of a tag", 5_000, () => summary(page).innerText());

  begin("filter by search as you type");
  await page.goto(`${base}/console/`);
  await search(page).click();
  await search(page).pressSequentially("sensor 1", { delay: 40 });
  await expectQuery(page, "search=sensor+1", "the search in the URL");
  await expectNames(page, sensors.slice(9, 19), "searching \"sensor 1\"");
  await waitForText(page, /10 of 55 devices match\./, "the summary of a search", 5_000, () => summary(page).innerText());
  await page.reload();
  await expectNames(page, sensors.slice(9, 19), "the search after a reload");
  check((await search(page).inputValue()) === "sensor 1", "the search field keeps its text after a reload");

  begin("filter by status, then machine type");
  await page.goto(`${base}/console/`);
  await select(page, "Status").selectOption("online");
  await expectQuery(page, "status=online", "the status in the URL");
  await expectNames(page, ["Kitchen Pi", "Garage NAS"], "the online devices");
  await select(page, "Machine type").selectOption({ label: "Raspberry Pi 4 Model B" });
  await expectQuery(page, "status=online&machine_type=rpi_4b", "status and machine type in the URL");
  await expectNames(page, ["Kitchen Pi"], "online Raspberry Pi 4s");
  await page.reload();
  await expectNames(page, ["Kitchen Pi"], "the filters after a reload");
  check((await select(page, "Status").inputValue()) === "online", "Status keeps Online after a reload");
  check((await select(page, "Machine type").inputValue()) === "rpi_4b", "Machine type is kept after a reload");
  await checkPage(page, "fleet-filtered", { phone: true, dark: true });

  begin("a filter that matches nothing offers to clear the filters");
  await select(page, "Machine type").selectOption({ label: "Raspberry Pi Zero 2 W" });
  await expectQuery(page, "status=online&machine_type=rpi_zero_2_w", "no match");
  await page.getByRole("heading", { name: "No device matches these filters" }).waitFor();
  check(!(await button(page, "Tag devices").isVisible()), "nothing to tag: no Tag devices");
  await checkPage(page, "fleet-no-match");
  await page.getByRole("main").getByRole("link", { name: "Clear filters" }).first().click();
  await expectPath(page, "/console/");
  await waitForText(page, /^55 devices\./, "every device again", 5_000, () => summary(page).innerText());

  begin("tag devices: the preview counts the filtered selection");
  await page.goto(`${base}/console/?search=sensor&machine_type=rpi_zero_2_w`);
  await waitForText(page, /52 of 55 devices match\./, "the sensors", 5_000, () => summary(page).innerText());
  await button(page, "Tag devices").click();
  await expectPath(page, "/console/tag-devices/");
  await page.getByRole("heading", { level: 1, name: "Tag devices" }).waitFor();
  await waitForText(page, /52 devices/, "the preview's count", 5_000, () => page.locator("#selection").innerText());
  await checkPage(page, "tag-devices", { phone: true });

  begin("tag devices: a refusal changes nothing");
  const add = page.getByRole("textbox", { name: "Add tags", exact: true });
  await allowingHttpErrors(async () => {
    await button(page, "Change tags").click();
    await waitForText(page, /Give tags to add or to remove\./, "neither field", 5_000, () => page.getByRole("alert").innerText());
    await add.fill("field -oops");
    await button(page, "Change tags").click();
    await expectFieldError(page.getByRole("textbox", { name: "Add tags", exact: true }), "beginning with a letter or digit.");
  });
  await checkPage(page, "tag-devices-refused", {
    open: async (copy) => {
      await copy.goto(`${base}/console/tag-devices/?search=sensor&machine_type=rpi_zero_2_w`);
      await copy.getByRole("textbox", { name: "Add tags", exact: true }).fill("field -oops");
      await button(copy, "Change tags").click();
      await copy.locator("#add-errors").waitFor();
    },
  });
  await waitForText(page, /52 devices/, "the count after a refusal", 5_000, () => page.locator("#selection").innerText());

  begin("tag devices: applied, back on the same view");
  await page.getByRole("textbox", { name: "Add tags", exact: true }).fill("field, batch:7");
  await button(page, "Change tags").click();
  await expectQuery(page, "search=sensor&machine_type=rpi_zero_2_w&notice=tagged&tagged=52", "back on the filtered view");
  await waitForText(page, /Tags changed on 52 devices\./, "the notice", 5_000, () => page.getByRole("status").innerText());
  await waitForText(page, /batch:7\s*field/, "the chips of a tagged row", 5_000, () => row(page, "Sensor 01").innerText());
  check((await row(page, "Kitchen Pi").count()) === 0, "Kitchen Pi is not in this view");
  await checkPage(page, "fleet-tagged", { phone: true, dark: true });
  // The top of the page, as people see it first (for docs/console.md).
  await page.screenshot({ path: `${shots}/fleet-tagged-top.png` });

  begin("filter by tag, from the list of the account's tags");
  await page.goto(`${base}/console/`);
  await select(page, "Tag").selectOption("lab");
  await expectQuery(page, "tag=lab", "the tag in the URL");
  await expectNames(page, ["Kitchen Pi"], "the view of lab");
  check((await select(page, "Tag").locator("option").allInnerTexts()).includes("field (52)"), "the tag list counts devices");
  await page.reload();
  await expectNames(page, ["Kitchen Pi"], "the view of lab after a reload");

  begin("a filtered view stays live");
  await page.goto(`${base}/console/?status=online`);
  await expectNames(page, ["Kitchen Pi", "Garage NAS"], "the online devices");
  await heartbeat(enrolled[0].device_token, {});
  await expectNames(page, ["Kitchen Pi", "Garage NAS", "Sensor 01"], "a device that comes online joins the view live");
  await waitForText(page, /3 of 55 devices match\./, "the summary follows", 5_000, () => summary(page).innerText());
  await waitForText(page, /(^|\D)3 online/, "the counts follow", 5_000, () => page.locator("#online-count").innerText());

  begin("without script: filters and Tag devices are plain forms");
  const plain = await newPage(browser, { javaScriptEnabled: false, storageState: await page.context().storageState() });
  await plain.goto(`${base}/console/`);
  await select(plain, "Tag").selectOption("lab");
  await button(plain, "Filter").click();
  await expectQuery(plain, "search=&status=&tag=lab&machine_type=", "the form's address");
  await expectNames(plain, ["Kitchen Pi"], "the view of lab without script");
  await button(plain, "Tag devices").click();
  await expectPath(plain, "/console/tag-devices/");
  await waitForText(plain, /1 device\b/, "the preview's count", 5_000, () => plain.locator("#selection").innerText());
  await plain.getByRole("textbox", { name: "Remove tags", exact: true }).fill("site:berlin");
  await button(plain, "Change tags").click();
  await expectQuery(plain, "tag=lab&notice=tagged&tagged=1", "back on the view without script");
  await waitForText(plain, /Tags changed on 1 device\./, "the notice", 5_000, () => plain.getByRole("status").innerText());
  check(!(await row(plain, "Kitchen Pi").innerText()).includes("site:berlin"), "the removed tag is gone");
  await plain.context().close();
});
