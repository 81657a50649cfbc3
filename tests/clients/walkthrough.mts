// Log in, list the devices, reboot one and follow its command, log out, with
// openapi-fetch and the types openapi-typescript generated from /openapi.json
// (./schema.ts).
// Reads DEVMGR_URL, DEVMGR_EMAIL, DEVMGR_PASSWORD and DEVMGR_SERIAL; prints
// what each call answered as one JSON object, which
// tests/tests/e2e/api_clients.rs checks. Type-checked with tsc, run with tsx.
import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};
const baseUrl = env("DEVMGR_URL");
const answers: Record<string, unknown> = {};

const anonymous = createClient<paths>({ baseUrl });
const login = await anonymous.POST("/auth/", {
  body: { email: env("DEVMGR_EMAIL"), password: env("DEVMGR_PASSWORD") },
});
if (login.data === undefined) throw new Error(`login: ${JSON.stringify(login.error)}`);
answers.login = login.response.status;

const client = createClient<paths>({
  baseUrl,
  headers: { Authorization: `Token ${login.data.token}` },
});
const list = await client.GET("/devices/");
if (list.data === undefined) throw new Error(`list: ${JSON.stringify(list.error)}`);
// Without `limit` the list is the plain array; with it, a page.
if (!Array.isArray(list.data)) throw new Error(`list: a page without limit`);
const devices = list.data;
answers.list = [list.response.status, devices.map((device) => device.name)];
const serial = env("DEVMGR_SERIAL");
if (!devices.some((device) => device.serial === serial)) throw new Error(`${serial} not listed`);
const page = await client.GET("/devices/", { params: { query: { limit: 1 } } });
if (page.data === undefined || Array.isArray(page.data)) throw new Error(`page: ${page.data}`);
if (page.data.count !== devices.length || page.data.results.length !== 1) {
  throw new Error(`page: ${JSON.stringify(page.data)}`);
}

const reboot = await client.POST("/devices/{serial}/reboot/", { params: { path: { serial } } });
if (reboot.data === undefined) throw new Error(`reboot: ${JSON.stringify(reboot.error)}`);
answers.reboot = [reboot.response.status, reboot.data.detail];
// `Location` is where the reboot's command is read: follow it.
const id = reboot.data.command.id;
const location = reboot.response.headers.get("location");
if (location !== `${baseUrl}/devices/${serial}/commands/${id}/`) throw new Error(`Location ${location}`);
const command = await client.GET("/devices/{serial}/commands/{id}/", {
  params: { path: { serial, id } },
});
if (command.data === undefined) throw new Error(`command: ${JSON.stringify(command.error)}`);
if (command.data.id !== id) throw new Error(`command ${command.data.id} is not ${id}`);
answers.command = [command.response.status, command.data.status];

const logout = await client.DELETE("/auth/");
answers.logout = logout.response.status;
const after = await client.GET("/devices/");
answers.after_logout = [after.response.status, after.error?.detail];

console.log(JSON.stringify(answers));
