#!/usr/bin/env python3
"""Throughput and latency of devmgr's main read and write routes, SQLite beside
PostgreSQL (standard library only; the load comes from `wrk`).

For each backend of `--backends` (default: both):

1. makes a fresh database: a temporary SQLite file, or a PostgreSQL database
   `devmgr_bench_<random>` created with `psql` on the server of
   `--postgres-url` (dropped afterwards with `DROP DATABASE … WITH (FORCE)`,
   also when something fails);
2. starts `devmgr serve --bind 127.0.0.1:0 --throttle off` on it and reads the
   `{"listening": URL}` line;
3. with the command line on the same database, makes an account and
   `--devices` devices (`user create`, `device add --online`), then enrols
   `--agents` more through `POST /install/` for their device tokens;
4. checks each route once (it must answer its 2xx), then runs wrk against it
   for `--seconds` with `--connections` keep-alive connections:
     reads:  GET /devices/, GET /devices/{serial}/, GET /profile/
     writes: PATCH /devices/{serial}/ (a rename), POST /devices/{serial}/reboot/,
             POST /agent/heartbeat/ (an agent's full facts, ports included)
   The {serial} routes go round the `--devices` devices made by the command
   line, the heartbeat round the enrolled ones (16 by default: in a fleet each
   device heartbeats for itself; with `--agents 1` every heartbeat waits for
   the previous one's lock on the same device row, which measures contention
   instead). After the first round every device has a reboot pending, so the
   reboot route then measures its answer to a repeated request: the device is
   locked, the pending reboot found, nothing queued, 202.
   `POST /auth/` is left out: Argon2id dominates it (see bench/login_burst.py).
5. prints route x backend: requests/s, latency p50 and p99, and the responses
   that were not 2xx/3xx plus socket errors (both must be 0; the script exits
   with status 1 otherwise).

wrk, the server and (for PostgreSQL) the database share the machine's cores,
so compare backends with each other rather than with another machine. The
server runs with DEVMGR_LOG=warn (its warnings and errors are shown if it
fails); `DEVMGR_LOG=info python3 bench/routes.py` adds the line per request
that production logs, written to a temporary file.

Usage:
  cargo build --release -p devmgr && python3 bench/routes.py
  python3 bench/routes.py --backends sqlite --seconds 3 --route heartbeat
  DEVMGR_BINARY=/other/target/release/devmgr python3 bench/routes.py \\
      --postgres-url postgres://postgres@127.0.0.1:5432/postgres
The binary is target/release/devmgr under the repository unless DEVMGR_BINARY
names another. The PostgreSQL server is --postgres-url, else
DEVMGR_TEST_POSTGRES_URL, else postgres://postgres@127.0.0.1:5432/postgres; its
user must be allowed to create databases. wrk comes from Debian's `wrk`
package (installed with apt-get when missing and running as root).
All traffic goes to 127.0.0.1; every loop is bounded.
"""

import argparse
import http.client
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from urllib.parse import urlparse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.environ.get("DEVMGR_BINARY") or os.path.join(ROOT, "target", "release", "devmgr")
DEFAULT_POSTGRES_URL = (os.environ.get("DEVMGR_TEST_POSTGRES_URL")
                        or "postgres://postgres@127.0.0.1:5432/postgres")
EMAIL = "bench@example.com"

# What a devmgr-agent heartbeat carries: every fact, and the listening ports.
HEARTBEAT = {
    "agent_version": "0.1.0",
    "operating_system": "Debian GNU/Linux 12 (bookworm)",
    "uname": "Linux bench-pi 6.1.0-rpi7-rpi-v8 #1 SMP PREEMPT Debian 1:6.1.63-1+rpt1 aarch64",
    "machine_type": "rpi_4b",
    "disk_capacity": 31_914_983_424,
    "disk_used": 4_294_967_296,
    "ram_capacity": 3_794,
    "processor_speed": 1_800,
    "ports": [
        {"port": 22, "protocol": "tcp", "name": "sshd"},
        {"port": 53, "protocol": "udp", "name": "systemd-resolve"},
        {"port": 80, "protocol": "tcp", "name": "nginx"},
    ],
}

# wrk's Lua: a request() that goes round a list of {path, body, authorization}
# targets, each thread starting at another place (a `{n}` in a body becomes a
# running number), and a done() that prints the figures as one JSON line. wrk
# counts the answers that are not 2xx or 3xx in summary.errors.status.
LUA_TEMPLATE = """
local method = %(method)s
local targets = %(targets)s
local counter = 0

wrk.method = method
%(headers)s

local thread_count = 0
function setup(thread)
  thread:set("start", thread_count * 7)
  thread_count = thread_count + 1
end

function init(args)
  counter = start or 0
end

function request()
  counter = counter + 1
  local target = targets[(counter %% #targets) + 1]
  local body = target[2]
  if body ~= nil then
    body = string.gsub(body, "{n}", tostring(counter))
  end
  wrk.headers["Authorization"] = target[3]
  local path = string.gsub(target[1], "{n}", tostring(start or 0) .. "-" .. tostring(counter))
  return wrk.format(method, path, nil, body)
end

function done(summary, latency, requests)
  io.write(string.format(
    "BENCH-RESULT {\\"requests\\": %%d, \\"duration_us\\": %%d, \\"p50_us\\": %%d, " ..
    "\\"p99_us\\": %%d, \\"max_us\\": %%d, \\"non_2xx_3xx\\": %%d, \\"connect\\": %%d, " ..
    "\\"read\\": %%d, \\"write\\": %%d, \\"timeout\\": %%d}\\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency.max, summary.errors.status, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.timeout))
end
"""


def lua_string(text):
    return json.dumps(text)  # an ASCII JSON string is a valid Lua string literal


def lua_script(route):
    targets = "{" + ", ".join(
        "{%s, %s, %s}" % (lua_string(path), "nil" if body is None else lua_string(body),
                          lua_string(authorization))
        for path, body, authorization in route.targets) + "}"
    headers = ('wrk.headers["Content-Type"] = "application/json"'
               if route.targets[0][1] is not None else "")
    return LUA_TEMPLATE % {"method": lua_string(route.method), "targets": targets,
                           "headers": headers}


def ensure_wrk():
    if shutil.which("wrk"):
        return
    if os.geteuid() != 0:
        sys.exit("wrk is not installed: install Debian's `wrk` package "
                 "(sudo apt-get install wrk) and run again")
    print("wrk is missing: apt-get install -y wrk", file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-q", "wrk"]
    if subprocess.run(install, env=env, stdout=subprocess.DEVNULL).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=env, stdout=subprocess.DEVNULL)
        subprocess.run(install, env=env, stdout=subprocess.DEVNULL)
    if not shutil.which("wrk"):
        sys.exit("could not install wrk with apt-get: install it and run again")


def call(base, method, path, authorization=None, body=None):
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    headers = {"Authorization": authorization} if authorization else {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        payload = resp.read()
        return resp.status, json.loads(payload) if payload else None
    finally:
        conn.close()


def with_database(url, name):
    """The PostgreSQL URL `url` with its database replaced by `name`."""
    match = re.fullmatch(r"(postgres(?:ql)?://[^/?]*)(/[^?]*)?(\?.*)?", url)
    if not match:
        sys.exit(f"--postgres-url is not a postgres:// URL: {url}")
    return f"{match.group(1)}/{name}{match.group(3) or ''}"


def psql(url, sql):
    result = subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"psql failed: {sql}: {result.stderr.strip()}")


class Backend:
    """A fresh database of one kind, and its removal."""

    def __init__(self, kind, postgres_url):
        self.kind = kind
        self.postgres_url = postgres_url
        self.tmp = None
        self.database = None
        self.url = None

    def __enter__(self):
        if self.kind == "sqlite":
            self.tmp = tempfile.TemporaryDirectory()
            self.url = f"sqlite://{self.tmp.name}/bench.db"
        else:
            if not shutil.which("psql"):
                raise RuntimeError("psql is not installed (Debian: postgresql-client)")
            self.database = f"devmgr_bench_{secrets.token_hex(6)}"
            psql(self.postgres_url, f"CREATE DATABASE {self.database}")
            self.url = with_database(self.postgres_url, self.database)
        return self

    def __exit__(self, *exc):
        if self.tmp:
            self.tmp.cleanup()
        if self.database:
            try:
                psql(self.postgres_url, f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)")
            except Exception as error:  # noqa: BLE001 - report, never mask the first failure
                print(f"warning: could not drop {self.database}: {error}", file=sys.stderr)
        return False


class Server:
    """`devmgr serve` on a database, stopped on exit."""

    def __init__(self, database_url):
        self.database_url = database_url
        self.process = None
        self.stderr = tempfile.TemporaryFile(mode="w+", errors="replace")
        self.base = None

    def __enter__(self):
        # Warnings and errors only, unless DEVMGR_LOG says otherwise: at info
        # level the log (one line per request) would grow by the hundreds of MB.
        env = dict(os.environ, DEVMGR_LOG=os.environ.get("DEVMGR_LOG", "warn"))
        self.process = subprocess.Popen(
            [BINARY, "--database-url", self.database_url, "serve", "--bind", "127.0.0.1:0",
             "--throttle", "off"],
            stdout=subprocess.PIPE, stderr=self.stderr, text=True, env=env)
        try:
            line = self.process.stdout.readline()
            if not line:
                self.process.wait(timeout=30)
                raise RuntimeError(f"devmgr serve exited ({self.process.returncode}): "
                                   f"{self.last_errors()}")
            self.base = json.loads(line)["listening"]
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def last_errors(self, lines=5):
        size = self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, size - 16384))
        return " | ".join(self.stderr.read().strip().splitlines()[-lines:])

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        self.stderr.close()
        return False


def cli(database_url, *args):
    result = subprocess.run([BINARY, "--database-url", database_url, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"devmgr {' '.join(args[:2])} failed: {result.stderr.strip()}")
    return json.loads(result.stdout)


def prepare(database_url, base, devices, agents, tags=()):
    """The account's token, its device serials, and the enrolled devices' tokens.
    Each device added carries `tags`."""
    user = cli(database_url, "user", "create", "--email", EMAIL, "--verified")
    tagged = [arg for tag in tags for arg in ("--tag", tag)]
    serials = [cli(database_url, "device", "add", "--owner", EMAIL, "--name", f"pi-{i}",
                   "--online", "--machine-type", "rpi_4b", *tagged)["serial"]
               for i in range(devices)]
    device_tokens = []
    for i in range(agents):
        status, body = call(base, "POST", "/install/", body={
            "install_token": user["install_token"], "name": f"agent-{i}"})
        if status != 201:
            raise RuntimeError(f"POST /install/ answered {status}: {body}")
        device_tokens.append(body["device_token"])
    return user["token"], serials, device_tokens


class Route:
    """One measured route: its method, the requests wrk goes round, and the
    status it must answer."""

    def __init__(self, label, method, targets, expected):
        self.label, self.method, self.targets, self.expected = label, method, targets, expected


def routes(token, serials, device_tokens):
    user = f"Token {token}"
    heartbeat = json.dumps(HEARTBEAT)
    rename = '{"name": "pi-renamed-{n}"}'
    return [
        Route("GET /devices/", "GET", [("/devices/", None, user)], 200),
        Route("GET /devices/{serial}/", "GET",
              [(f"/devices/{s}/", None, user) for s in serials], 200),
        Route("GET /profile/", "GET", [("/profile/", None, user)], 200),
        Route("PATCH /devices/{serial}/", "PATCH",
              [(f"/devices/{s}/", rename, user) for s in serials], 200),
        Route("POST /devices/{serial}/reboot/", "POST",
              [(f"/devices/{s}/reboot/", None, user) for s in serials], 202),
        Route("POST /agent/heartbeat/", "POST",
              [("/agent/heartbeat/", heartbeat, f"Device {t}") for t in device_tokens], 200),
    ]


def smoke(base, route):
    """One request through Python first: the route must answer its 2xx."""
    path, body, authorization = route.targets[0]
    path = path.replace("{n}", "0")
    headers = {"Authorization": authorization}
    if body is not None:
        body = body.replace("{n}", "0").encode()
        headers["Content-Type"] = "application/json"
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    try:
        conn.request(route.method, path, body=body, headers=headers)
        resp = conn.getresponse()
        payload = resp.read()
    finally:
        conn.close()
    if resp.status != route.expected:
        raise RuntimeError(f"{route.method} {path} answered {resp.status}, not "
                           f"{route.expected}: {payload[:300]!r}")


def run_wrk(base, script_path, seconds, connections, threads):
    command = ["wrk", "--latency", "-t", str(threads), "-c", str(connections),
               "-d", f"{seconds}s", "--timeout", "10s", "-s", script_path, base]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, timeout=seconds + 120)
    for line in result.stdout.splitlines():
        if line.startswith("BENCH-RESULT "):
            return json.loads(line[len("BENCH-RESULT "):])
    raise RuntimeError(f"wrk failed ({result.returncode}): {result.stdout}{result.stderr}")


def bench_backend(kind, args, tmpdir):
    """route label -> wrk's figures, on a fresh database of `kind`."""
    results = {}
    with Backend(kind, args.postgres_url) as backend, Server(backend.url) as server:
        try:
            token, serials, device_tokens = prepare(backend.url, server.base, args.devices,
                                                    args.agents, args.tags)
            for route in routes(token, serials, device_tokens):
                if args.route and not any(part in route.label for part in args.route):
                    continue
                smoke(server.base, route)
                script_path = os.path.join(tmpdir, f"{kind}-{len(results)}.lua")
                with open(script_path, "w") as f:
                    f.write(lua_script(route))
                print(f"  {kind:<8} {route.label:<32} {args.seconds} s x {args.connections} "
                      f"connections", file=sys.stderr, flush=True)
                results[route.label] = run_wrk(server.base, script_path, args.seconds,
                                               args.connections, args.threads)
        except Exception as error:
            if server.process.poll() is not None:
                error = f"{error} (devmgr serve exited: {server.last_errors()})"
            raise RuntimeError(error) from None
    return results


def print_table(all_results, backends):
    labels = []
    for results in all_results.values():
        labels += [label for label in results if label not in labels]
    print()
    print(f"{'route':<32} {'backend':<9} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'non-2xx':>8} {'sock err':>8}")
    failures = 0
    for label in labels:
        for kind in backends:
            r = all_results.get(kind, {}).get(label)
            if r is None:
                continue
            rate = r["requests"] / (r["duration_us"] / 1e6)
            socket_errors = r["connect"] + r["read"] + r["write"] + r["timeout"]
            failures += r["non_2xx_3xx"] + socket_errors
            print(f"{label:<32} {kind:<9} {rate:>9.0f} {r['p50_us'] / 1000:>8.2f} "
                  f"{r['p99_us'] / 1000:>8.2f} {r['non_2xx_3xx']:>8} {socket_errors:>8}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="sqlite,postgres",
                        help="comma-separated: sqlite, postgres (default: both)")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL,
                        help="PostgreSQL server (and a database on it) where the user may "
                             "create databases (default: $DEVMGR_TEST_POSTGRES_URL or "
                             "postgres://postgres@127.0.0.1:5432/postgres)")
    parser.add_argument("--seconds", type=int, default=10, help="duration of each route's run")
    parser.add_argument("--connections", type=int, default=16, help="concurrent connections")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--devices", type=int, default=50, help="devices of the account")
    parser.add_argument("--agents", type=int, default=16,
                        help="devices enrolled through /install/ whose heartbeats are sent "
                             "(default 16; 1 measures 16 connections queuing on one device)")
    parser.add_argument("--tag", dest="tags", action="append", default=[], metavar="TAG",
                        help="a tag on every device of the account (repeatable)")
    parser.add_argument("--route", action="append", default=[], metavar="TEXT",
                        help="measure only the routes whose label contains TEXT "
                             "(repeatable), e.g. --route heartbeat")
    args = parser.parse_args()

    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = [b for b in backends if b not in ("sqlite", "postgres")]
    if unknown or not backends:
        parser.error(f"--backends takes sqlite and/or postgres, not {','.join(unknown)}")
    if args.seconds < 1 or args.connections < 1 or args.devices < 1 or args.agents < 1:
        parser.error("--seconds, --connections, --devices and --agents must be at least 1")
    args.threads = max(1, min(args.threads, args.connections))
    if not os.access(BINARY, os.X_OK):
        sys.exit(f"no devmgr binary at {BINARY}: cargo build --release -p devmgr, "
                 "or set DEVMGR_BINARY")
    ensure_wrk()

    all_results, errors = {}, []
    with tempfile.TemporaryDirectory() as tmpdir:
        for kind in backends:
            print(f"{kind}: fresh database, {args.devices} devices, {args.agents} enrolled",
                  file=sys.stderr, flush=True)
            try:
                all_results[kind] = bench_backend(kind, args, tmpdir)
            except Exception as error:  # noqa: BLE001 - report and go on with the next backend
                errors.append(f"{kind}: {error}")
                print(f"error: {kind}: {error}", file=sys.stderr, flush=True)

    print(f"devmgr routes: {args.seconds} s each, {args.connections} connections, "
          f"{args.threads} wrk threads, {args.devices} devices, {args.agents} enrolled, "
          f"{os.cpu_count()} cores shared by wrk, devmgr and the database")
    failures = print_table(all_results, backends)
    for error in errors:
        print(f"FAILED {error}")
    if failures:
        print(f"{failures} responses were not 2xx/3xx or hit socket errors")
    sys.exit(1 if errors or failures else 0)


if __name__ == "__main__":
    main()
