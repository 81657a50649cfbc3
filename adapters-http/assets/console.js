// devmgr console: live updates, search as you type, confirmation dialogs,
// copy buttons and relative times. Every page works without it. Part of
// devmgr, under its licence (MIT). No inline script: the page's
// Content-Security-Policy allows only this file.
"use strict";

(() => {
  // Times: "3 min ago", the exact time in the title.
  const pad = (n) => String(n).padStart(2, "0");
  const exact = (d) =>
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
  const ago = (d) => {
    const s = Math.max(0, Math.floor((Date.now() - d.getTime()) / 1000));
    if (s < 5) return "just now";
    if (s < 60) return `${s} s ago`;
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
    if (s < 172800) return "1 day ago";
    return `${Math.floor(s / 86400)} days ago`;
  };
  const timeElement = (iso) => {
    if (!iso) return document.createTextNode("never");
    const d = new Date(iso);
    const t = document.createElement("time");
    t.dateTime = iso;
    t.title = exact(d);
    t.textContent = ago(d);
    return t;
  };
  const refreshTimes = () => {
    for (const t of document.querySelectorAll("time[datetime]")) {
      t.textContent = ago(new Date(t.dateTime));
    }
  };
  setInterval(refreshTimes, 15000);

  const el = (tag, attributes = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    for (const child of children) node.append(child);
    return node;
  };

  // Confirmation dialogs: a form with data-dialog opens the dialog instead
  // of the confirmation page.
  for (const form of document.querySelectorAll("form[data-dialog]")) {
    const dialog = document.getElementById(form.dataset.dialog);
    if (!dialog || typeof dialog.showModal !== "function") continue;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      dialog.showModal();
    });
  }

  // Copy buttons.
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    const status = document.getElementById("copy-status");
    button.addEventListener("click", async () => {
      const text = source.textContent;
      let copied = false;
      try {
        await navigator.clipboard.writeText(text);
        copied = true;
      } catch {
        const range = document.createRange();
        range.selectNodeContents(source);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        copied = document.execCommand("copy");
      }
      if (status) status.textContent = copied ? "Copied" : "Select the command and copy it";
    });
  }

  // Search as you type.
  const search = document.getElementById("search");
  const rows = document.getElementById("device-rows");
  const applySearch = () => {
    if (!search || !rows) return;
    const words = search.value.trim().toLowerCase();
    let shown = 0;
    const all = rows.querySelectorAll("tr[data-serial]");
    for (const row of all) {
      const match = !words || row.dataset.search.includes(words);
      row.hidden = !match;
      if (match) shown += 1;
    }
    const result = document.getElementById("search-result");
    if (result) {
      result.textContent = words
        ? shown === 0
          ? "No device matches."
          : `${shown} of ${all.length} devices match.`
        : "";
    }
  };
  if (search) {
    search.addEventListener("input", applySearch);
    for (const button of document.querySelectorAll("[data-no-script]")) button.hidden = true;
  }

  // Live updates.
  const status = (online) =>
    el("span", { class: `status ${online ? "online" : "offline"}` }, online ? "Online" : "Offline");

  const showFleet = (state) => {
    document.getElementById("online-count").textContent = `${state.online} online`;
    document.getElementById("offline-count").textContent = `${state.offline} offline`;
    const fleet = document.getElementById("fleet");
    const empty = document.getElementById("empty-fleet");
    if (state.devices.length > 0) {
      if (fleet) fleet.hidden = false;
      if (empty) empty.hidden = true;
    }
    if (!rows) return;
    const rowOf = (d) =>
      el(
        "tr",
        {
          "data-serial": d.serial,
          "data-search": `${d.name.toLowerCase()} ${d.serial} ${d.description.toLowerCase()}`,
        },
        el("td", {}, el("a", { href: `/console/devices/${d.serial}/` }, d.name)),
        el("td", {}, status(d.online)),
        el("td", {}, d.machine_type),
        el("td", {}, timeElement(d.last_seen)),
      );
    if (state.complete) {
      rows.replaceChildren(...state.devices.map(rowOf));
    } else {
      // Only what changed: a changed device's row is replaced, a new one
      // comes last (the newest), a removed one goes.
      const find = (serial) => rows.querySelector(`tr[data-serial="${CSS.escape(serial)}"]`);
      for (const d of state.devices) {
        const old = find(d.serial);
        if (old) old.replaceWith(rowOf(d));
        else rows.append(rowOf(d));
      }
      for (const serial of state.removed) find(serial)?.remove();
    }
    applySearch();
  };

  const showDevice = (state) => {
    if (!state.device) {
      window.location.assign("/console/?notice=deleted");
      return;
    }
    const badge = document.getElementById("device-status");
    if (badge) badge.replaceWith(Object.assign(status(state.device.online), { id: "device-status" }));
    const seen = document.getElementById("device-last-seen");
    if (seen) seen.replaceChildren(timeElement(state.device.last_seen));
    const commands = document.getElementById("command-rows");
    if (!commands) return;
    if (state.commands.length === 0) return;
    commands.replaceChildren(
      ...state.commands.map((c) =>
        el(
          "tr",
          { "data-id": c.id },
          el("td", {}, c.action),
          el("td", {}, el("span", { class: `state ${c.status}` }, c.status)),
          el("td", {}, timeElement(c.issued)),
          el("td", {}, timeElement(c.delivered)),
          el("td", {}, timeElement(c.acked)),
          el("td", {}, c.detail),
        ),
      ),
    );
  };

  const source = document.body.dataset.events;
  if (source && "EventSource" in window) {
    const events = new EventSource(source);
    events.addEventListener("fleet", (event) => showFleet(JSON.parse(event.data)));
    events.addEventListener("device", (event) => showDevice(JSON.parse(event.data)));
    window.addEventListener("pagehide", () => events.close());
  }
})();
