#!/usr/bin/env python3
"""What the audit log costs: reboot requests per second with and without it
(standard library only; docs/performance.md, "Audit log cost").

Every `POST /devices/{serial}/reboot/` now appends an audit entry in the
reboot's own transaction, under the chain's one lock (docs/audit.md). This
compares two release builds under the same load:

- `--with`: the current devmgr (default: target/release/devmgr, or
  $DEVMGR_BENCH_WITH);
- `--without`: devmgr from the commit before the audit log
  ($DEVMGR_BENCH_WITHOUT), built with

      git worktree add /tmp/pre-audit a270d38
      (cd /tmp/pre-audit && CARGO_TARGET_DIR=/tmp/pre-audit-target cargo build --release -p devmgr)

Both servers run side by side, each on a fresh database of its own, with
one account and `--devices` devices; the load then goes to one server at a
time, in alternating rounds (without, with, without, with, …), so both see
the same machine. A round is `--seconds` of reboots by `--clients`
keep-alive connections (spread over `--processes` client processes, so
Python's own lock does not cap the load), each rebooting the devices in
turn. The first reboot of a device queues a command and later ones join
the pending one: without the log a join writes nothing, with it every
reboot writes its entry. For comparison, `rename` rounds send `PATCH
/devices/{serial}/` with a new name, a write in both builds (`--actions`).
The table shows each build's median requests per second over `--rounds`
rounds, the median latency, and the ratio with/without.

SQLite always; PostgreSQL too when $DEVMGR_BENCH_POSTGRES_URL names a
server database where the user may create databases (two scratch databases
are made with createdb and dropped afterwards).

Usage: python3 bench/audit.py [--rounds 5] [--seconds 10] [--clients 16]
All traffic goes to 127.0.0.1 (and the PostgreSQL server); every loop is bounded.
"""

import argparse
import http.client
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Connection:
    """One keep-alive HTTP/1.1 connection to the server."""

    def __init__(self, base, authorization):
        url = urllib.parse.urlparse(base)
        self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        self.authorization = authorization

    def call(self, method, path, body=None):
        headers = {"Authorization": self.authorization} if self.authorization else {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.conn.request(method, path, body=data, headers=headers)
        resp = self.conn.getresponse()
        payload = resp.read()
        return resp.status, json.loads(payload) if payload else None


class Server:
    """A `devmgr serve` process on its own database, with an account and devices."""

    def __init__(self, binary, database_url, devices, workers):
        self.binary, self.database_url = binary, database_url
        user = json.loads(self.cli("user", "create", "--email", "bench@example.com", "--verified"))
        self.token = user["token"]
        command = [binary, "--database-url", database_url, "serve", "--bind", "127.0.0.1:0",
                   "--throttle", "off", "--log-level", "warn"]
        if workers:
            command += ["--workers", str(workers)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        self.base = json.loads(self.process.stdout.readline())["listening"]
        self.serials = []
        anonymous = Connection(self.base, None)
        for n in range(devices):
            status, body = anonymous.call("POST", "/install/", {
                "install_token": user["install_token"], "name": f"bench-{n}"})
            assert status == 201, (status, body)
            self.serials.append(body["serial"])

    def cli(self, *args):
        return subprocess.check_output([self.binary, "--database-url", self.database_url, *args])

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def client(base, token, serials, action, start_at, stop_at, results):
    """One connection rebooting (or renaming) `serials` in turn from
    `start_at` to `stop_at`."""
    conn = Connection(base, f"Token {token}")
    while time.time() < start_at:
        time.sleep(0.001)
    done, latencies, n = 0, [], 0
    tag = os.urandom(4).hex()
    while True:
        started = time.perf_counter()
        if time.time() >= stop_at:
            break
        serial = serials[n % len(serials)]
        if action == "reboot":
            status, body = conn.call("POST", f"/devices/{serial}/reboot/")
            assert status == 202, (status, body)
        else:
            status, body = conn.call("PATCH", f"/devices/{serial}/", {"name": f"bench {tag} {n}"})
            assert status == 200, (status, body)
        latencies.append(time.perf_counter() - started)
        done, n = done + 1, n + 1
    results.put((done, latencies))


def process_clients(base, token, serials, action, start_at, stop_at, clients, results):
    """A client process running `clients` connections on threads of its own."""
    import threading
    threads = [threading.Thread(target=client, args=(
        base, token, serials[i::clients] or serials, action, start_at, stop_at, results))
        for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)


def round_of(server, action, seconds, clients, processes):
    """Requests per second and the median latency (ms) of one round."""
    results = multiprocessing.Queue()
    start_at = time.time() + 1.0
    stop_at = start_at + seconds
    per_process = [clients // processes + (1 if i < clients % processes else 0)
                   for i in range(processes)]
    workers, offset = [], 0
    for count in per_process:
        if count == 0:
            continue
        mine = server.serials[offset::processes] or server.serials
        offset += 1
        workers.append(multiprocessing.Process(target=process_clients, args=(
            server.base, server.token, mine, action, start_at, stop_at, count, results)))
    for worker in workers:
        worker.start()
    done, latencies = 0, []
    for _ in range(clients):
        count, times = results.get(timeout=seconds + 120)
        done += count
        latencies += times
    for worker in workers:
        worker.join(timeout=60)
    return done / seconds, statistics.median(latencies) * 1000


def compare(store, servers, action, args):
    """Alternating rounds of `action` over `servers` ({label: Server});
    prints their rows of the table."""
    measured = {label: [] for label in servers}
    for n in range(args.rounds):
        for label, server in servers.items():
            rate, latency = round_of(server, action, args.seconds, args.clients, args.processes)
            measured[label].append((rate, latency))
            print(f"  {store} {action} round {n + 1} {label:<8} {rate:8.0f} req/s  "
                  f"p50 {latency:6.2f} ms", file=sys.stderr)
    medians = {label: (statistics.median(r for r, _ in rounds),
                       statistics.median(l for _, l in rounds))
               for label, rounds in measured.items()}
    without, with_log = medians["without"], medians["with"]
    for label in ("without", "with"):
        rate, latency = medians[label]
        print(f"| {store} | {action} | {label} the audit log | {rate:,.0f} | {latency:.2f} |")
    print(f"| {store} | {action} | with / without | {with_log[0] / without[0]:.2f} | "
          f"{with_log[1] / without[1]:.2f} |")


def postgres_databases(admin_url, names):
    """Creates the scratch databases `names` beside `admin_url`'s; their URLs."""
    url = urllib.parse.urlparse(admin_url)
    urls = []
    for name in names:
        subprocess.run(["psql", admin_url, "-q", "-c", f"DROP DATABASE IF EXISTS {name}",
                        "-c", f"CREATE DATABASE {name}"], check=True,
                       stdout=subprocess.DEVNULL)
        urls.append(urllib.parse.urlunparse(url._replace(path=f"/{name}")))
    return urls


def drop_postgres_databases(admin_url, names):
    for name in names:
        subprocess.run(["psql", admin_url, "-q", "-c",
                        f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"],
                       stdout=subprocess.DEVNULL, check=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--with", dest="with_log",
                        default=os.environ.get("DEVMGR_BENCH_WITH",
                                               os.path.join(ROOT, "target", "release", "devmgr")),
                        help="the devmgr binary with the audit log")
    parser.add_argument("--without", default=os.environ.get(
        "DEVMGR_BENCH_WITHOUT", "/tmp/pre-audit-target/release/devmgr"),
        help="the devmgr binary of the commit before the audit log")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--devices", type=int, default=64)
    parser.add_argument("--actions", default="reboot,rename",
                        help="what the clients do, in turn: reboot (POST …/reboot/), "
                             "rename (PATCH /devices/{serial}/ with a new name)")
    parser.add_argument("--workers", type=int, default=0,
                        help="--workers of each server (default: one per core)")
    args = parser.parse_args()
    binaries = {"without": args.without, "with": args.with_log}
    for label, binary in binaries.items():
        if not os.access(binary, os.X_OK):
            sys.exit(f"no devmgr binary {label} the audit log at {binary}")

    actions = [action for action in args.actions.split(",") if action]
    for action in actions:
        if action not in ("reboot", "rename"):
            sys.exit(f"unknown action {action!r}: reboot or rename")
    print(f"Requests per second, {args.clients} connections, {args.devices} devices, "
          f"median of {args.rounds} rounds of {args.seconds:g} s\n")
    print("| store | request | build | requests/s | median latency (ms) |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        servers = {label: Server(binary, f"sqlite://{tmp}/{label}.db", args.devices, args.workers)
                   for label, binary in binaries.items()}
        try:
            for action in actions:
                compare("SQLite", servers, action, args)
        finally:
            for server in servers.values():
                server.stop()

    admin = os.environ.get("DEVMGR_BENCH_POSTGRES_URL")
    if admin:
        names = [f"devmgr_bench_audit_{label}" for label in binaries]
        urls = postgres_databases(admin, names)
        servers = {}
        try:
            for (label, binary), url in zip(binaries.items(), urls):
                servers[label] = Server(binary, url, args.devices, args.workers)
            for action in actions:
                compare("PostgreSQL", servers, action, args)
        finally:
            for server in servers.values():
                server.stop()
            drop_postgres_databases(admin, names)


if __name__ == "__main__":
    main()
