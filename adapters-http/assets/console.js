// devmgr console: live updates, filters as you type, confirmation dialogs,
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
    // A time to come (data-ahead) keeps the words the page gave it.
    for (const t of document.querySelectorAll("time[datetime]:not([data-ahead])")) {
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

  // Tags as links to the fleet view of one tag.
  const tagList = (tags, label) =>
    el(
      "ul",
      label ? { class: "tags", "aria-label": label } : { class: "tags" },
      ...tags.map((t) => el("li", {}, el("a", { class: "tag", href: `/console/?tag=${encodeURIComponent(t)}` }, t))),
    );

  // Live updates.
  const status = (online) =>
    el("span", { class: `status ${online ? "online" : "offline"}` }, online ? "Online" : "Offline");
  const show = (id, shown) => {
    const node = document.getElementById(id);
    if (node) node.hidden = !shown;
  };

  const showFleet = (state) => {
    document.getElementById("online-count").textContent = `${state.online} online`;
    document.getElementById("offline-count").textContent = `${state.offline} offline`;
    if (state.online + state.offline > 0) {
      show("fleet", true);
      show("empty-fleet", false);
    }
    const summary = document.getElementById("search-result");
    if (summary) summary.textContent = state.summary;
    show("no-match", state.count === 0);
    show("fleet-table", state.count > 0);
    show("tag-action", state.count > 0);
    show("reboot-action", state.count > 0);
    show("alert-action", state.count > 0);
    const rows = document.getElementById("device-rows");
    if (!rows) return;
    const rowOf = (d) =>
      el(
        "tr",
        {
          "data-serial": d.serial,
          "data-search": `${d.name.toLowerCase()} ${d.serial} ${d.description.toLowerCase()}`,
        },
        el(
          "td",
          {},
          el("a", { href: `/console/devices/${d.serial}/` }, d.name),
          ...(d.tags.length ? [tagList(d.tags, `Tags of ${d.name}`)] : []),
        ),
        el("td", {}, status(d.online)),
        el("td", {}, d.machine_type),
        el("td", {}, timeElement(d.last_seen)),
      );
    if (state.complete) {
      rows.replaceChildren(...state.devices.map(rowOf));
      return;
    }
    // Only what changed: a changed device's row is replaced, a new one
    // added, one that left the view removed; then the rows take the
    // view's order.
    const find = (serial) => rows.querySelector(`tr[data-serial="${CSS.escape(serial)}"]`);
    for (const d of state.devices) {
      const old = find(d.serial);
      if (old) old.replaceWith(rowOf(d));
      else rows.append(rowOf(d));
    }
    for (const serial of state.removed) find(serial)?.remove();
    for (const serial of state.order) {
      const row = find(serial);
      if (row) rows.append(row);
    }
  };

  const showDevice = (state) => {
    if (!state.device) {
      window.location.assign("/console/?notice=deleted");
      return;
    }
    const badge = document.getElementById("device-status");
    if (badge) badge.replaceWith(Object.assign(status(state.device.online), { id: "device-status" }));
    const tags = document.getElementById("device-tags");
    if (tags) tags.replaceChildren(state.device.tags.length ? tagList(state.device.tags) : "none");
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

  // A job's page: its status, counts, buttons and the targets of its page.
  const showJob = (state) => {
    if (!state.job) {
      window.location.assign("/console/jobs/");
      return;
    }
    const job = state.job;
    const badge = document.getElementById("job-status");
    if (badge) badge.replaceWith(el("span", { class: `state ${job.status}`, id: "job-status" }, job.status));
    const counts = document.getElementById("job-counts");
    if (counts && counts.textContent !== job.counts) counts.textContent = job.counts;
    show("cancel-action", job.can_cancel);
    show("resume-action", job.can_resume);
    const targets = document.getElementById("target-rows");
    if (!targets || state.targets.length === 0) return;
    targets.replaceChildren(
      ...state.targets.map((t) =>
        el(
          "tr",
          { "data-serial": t.serial },
          el("td", {}, String(t.wave)),
          el("td", {}, el("a", { href: `/console/devices/${t.serial}/` }, t.name)),
          el("td", { class: "serial" }, t.serial),
          el("td", {}, el("span", { class: `state ${t.status}` }, t.status)),
          el("td", {}, t.detail),
        ),
      ),
    );
  };

  // The Alerts page: when the version of its list changes (an alert
  // opened or resolved), the list is read again and put in place.
  let alertsReading = false;
  let alertsWanted = null;
  const showAlerts = async (state, again = true) => {
    alertsWanted = state.version;
    const view = document.getElementById("alerts-view");
    if (!view || view.dataset.version === state.version || alertsReading) return;
    alertsReading = true;
    try {
      const response = await fetch(window.location.href, { headers: { Accept: "text/html" } });
      if (!response.ok || response.redirected) return;
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.getElementById("alerts-view");
      if (fresh) document.getElementById("alerts-view").replaceWith(document.adoptNode(fresh));
    } catch {
      // The next event tries again.
    } finally {
      alertsReading = false;
    }
    // An alert that changed while the page was read: once more.
    if (again && alertsWanted !== state.version) showAlerts({ version: alertsWanted }, false);
  };

  let events = null;
  const connect = () => {
    const source = document.body.dataset.events;
    if (!source || !("EventSource" in window)) return;
    events = new EventSource(source);
    events.addEventListener("fleet", (event) => showFleet(JSON.parse(event.data)));
    events.addEventListener("device", (event) => showDevice(JSON.parse(event.data)));
    events.addEventListener("job", (event) => showJob(JSON.parse(event.data)));
    events.addEventListener("alerts", (event) => showAlerts(JSON.parse(event.data)));
  };
  connect();
  window.addEventListener("pagehide", () => events?.close());

  // The fleet's filters: as you type or choose, the view (and its URL, so
  // it can be bookmarked) follows without a reload; without script, the
  // form's "Filter" button loads the same URL.
  const filters = document.getElementById("filters");
  if (filters && "DOMParser" in window) {
    let latest = 0;
    const refresh = async (push) => {
      const params = new URLSearchParams(new FormData(filters));
      for (const [name, value] of [...params]) if (!value.trim()) params.delete(name);
      const query = params.toString();
      const url = `/console/${query ? `?${query}` : ""}`;
      const ticket = ++latest;
      let html = null;
      try {
        const response = await fetch(url, { headers: { Accept: "text/html" } });
        if (response.ok && !response.redirected) html = await response.text();
      } catch {
        html = null;
      }
      if (ticket !== latest) return;
      const page = html && new DOMParser().parseFromString(html, "text/html");
      const view = page?.getElementById("fleet-view");
      if (!view) {
        window.location.assign(url);
        return;
      }
      events?.close();
      document.getElementById("fleet-view").replaceWith(document.adoptNode(view));
      for (const id of ["online-count", "offline-count"]) {
        const fresh = page.getElementById(id);
        if (fresh) document.getElementById(id).textContent = fresh.textContent;
      }
      if (push) window.history.pushState(null, "", url);
      else window.history.replaceState(null, "", url);
      document.body.dataset.events = page.body.dataset.events;
      connect();
    };
    let typing = null;
    filters.addEventListener("input", (event) => {
      if (event.target.tagName !== "INPUT") return;
      // At once, the rows of this page that do not match step aside; the
      // view of the whole fleet follows from the server.
      const words = event.target.value.trim().toLowerCase();
      for (const row of document.querySelectorAll("#device-rows tr[data-search]")) {
        row.hidden = !row.dataset.search.includes(words);
      }
      clearTimeout(typing);
      typing = setTimeout(() => refresh(false), 250);
    });
    filters.addEventListener("change", (event) => {
      if (event.target.tagName === "SELECT") refresh(true);
    });
    filters.addEventListener("submit", (event) => {
      event.preventDefault();
      clearTimeout(typing);
      refresh(true);
    });
    window.addEventListener("popstate", () => window.location.reload());
    for (const button of filters.querySelectorAll("[data-no-script]")) button.hidden = true;
  }
})();
