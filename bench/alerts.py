#!/usr/bin/env python3
"""Monitors over 10,000 devices: what evaluating them costs the server, and
how many alerts open when 1,000 devices stop (standard library only; the
HTTP client and enrolment are bench/fleet.py's, the server and database
helpers bench/routes.py's, the CPU readings bench/jobs.py's).

1. makes a fresh database (a temporary SQLite file; with `--postgres-url`, a
   scratch PostgreSQL database `devmgr_bench_<random>` on that server,
   dropped afterwards) and starts `devmgr serve --throttle off
   --online-window W` on it (`--online-window`, default 60 s);
2. makes one account with the command line, enrols `--devices` devices
   (default 10,000) through `POST /install/` and tags them with
   `POST /devices/tags/`: device i carries `group-<i mod 20>`;
3. heartbeats every device every W/2 s (`POST /agent/heartbeat/`, spread
   evenly over the interval, on `--connections` keep-alive connections), so
   every device stays online. With only the heartbeats, it measures the
   server's CPU (utime + stime from /proc/<pid>/stat) over `--seconds`
   (default 60) wall seconds;
4. makes `--monitors` monitors (default 100), alternately `device_offline`
   over `{"tags": [group-k]}` and `fleet_offline_ratio` (ratio 0.05) over
   `{"any_tags": [group-k, group-k+1]}`, k running through the 20 groups,
   all with `after_seconds` = W, and measures the server's CPU again over
   `--seconds` (the monitors evaluated twice a second, nothing to open);
5. stops the heartbeats of `--stop` devices (default 1,000: devices 0 to
   999, 50 of each group, 10 % of each group) and follows
   `GET /alerts/?state=open&limit=1` until the count reaches what the
   monitors must open (each stopped device once per device monitor of its
   group; each fleet monitor once) and then stays put for W s, or until
   `--timeout`; it measures the server's CPU from the stop to then, the
   time from the stop to the first alert and to the last;
6. prints a small table. Exits 1 unless the alerts opened are exactly
   those expected and the heartbeats kept up (every round within W/2 s).

The simulator (one Python thread), the server and the database share the
machine's cores; the heartbeats are the same load in steps 3 and 4, so the
difference between them is the monitors' cost. Say what else ran.

Usage:
  cargo build --release -p devmgr && python3 bench/alerts.py
  python3 bench/alerts.py --postgres-url postgres://postgres@127.0.0.1:5432/postgres
  DEVMGR_BINARY=target/debug/devmgr python3 bench/alerts.py --devices 200 \\
      --monitors 10 --seconds 10 --stop 20 --online-window 10
The binary is target/release/devmgr under the repository unless DEVMGR_BINARY
names another. All traffic goes to 127.0.0.1; every wait is bounded by
`--timeout`.
"""

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fleet import Http, enrol, memory  # noqa: E402
from jobs import cpu_seconds, postgres_seconds  # noqa: E402
from routes import BINARY, EMAIL, Backend, Server, cli  # noqa: E402

GROUPS = 20
FLEET_RATIO = 0.05


class AlertServer(Server):
    """routes.py's server with an online window of its own."""

    def __init__(self, database_url, online_window):
        super().__init__(database_url)
        self.online_window = online_window

    def __enter__(self):
        env = dict(os.environ, DEVMGR_LOG=os.environ.get("DEVMGR_LOG", "warn"))
        self.process = subprocess.Popen(
            [BINARY, "--database-url", self.database_url, "serve", "--bind", "127.0.0.1:0",
             "--throttle", "off", "--online-window", str(self.online_window)],
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


class FreshHttp(Http):
    """fleet.py's connection, opened again after 2 s idle: the server closes a
    kept-alive connection idle for 5 s, and a request sent as it closes is lost."""

    def __init__(self, host, port):
        super().__init__(host, port)
        self.used = 0.0

    async def request(self, *args, **kwargs):
        if time.monotonic() - self.used > 2:
            self.cut()
        try:
            return await super().request(*args, **kwargs)
        finally:
            self.used = time.monotonic()


class Heartbeats:
    """Every device's heartbeat every `interval` s, spread over the interval,
    on a few keep-alive connections; a device in `stopped` sends none."""

    def __init__(self, host, port, tokens, interval, connections):
        self.host, self.port, self.interval = host, port, interval
        self.slices = [tokens[i::connections] for i in range(connections)]
        self.stopped = set()
        self.stop = asyncio.Event()
        self.slowest_round = 0.0
        self.failures = 0
        self.tasks = []

    def start(self):
        self.tasks = [asyncio.ensure_future(self.beat(tokens)) for tokens in self.slices]

    async def beat(self, tokens):
        http = FreshHttp(self.host, self.port)
        gap = self.interval / max(1, len(tokens))
        try:
            while not self.stop.is_set():
                began = time.monotonic()
                for n, token in enumerate(tokens):
                    if token in self.stopped:
                        continue
                    # Spread evenly: the n-th heartbeat of a round goes n gaps in.
                    delay = began + n * gap - time.monotonic()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    status, _ = await http.request("POST", "/agent/heartbeat/",
                                                   f"Device {token}", {})
                    if status != 200:
                        self.failures += 1
                took = time.monotonic() - began
                self.slowest_round = max(self.slowest_round, took)
                if took < self.interval:
                    await asyncio.sleep(self.interval - took)
        finally:
            http.cut()

    async def close(self):
        self.stop.set()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


class Owner:
    """The account's requests, on one keep-alive connection."""

    def __init__(self, host, port, token):
        self.http, self.auth = FreshHttp(host, port), f"Token {token}"

    async def call(self, method, path, body=None, expected=200):
        status, answer = await self.http.request(method, path, self.auth, body)
        if status != expected:
            raise RuntimeError(f"{method} {path} answered {status}: {answer}")
        return answer

    async def open_alerts(self):
        return (await self.call("GET", "/alerts/?state=open&limit=1"))["count"]


def monitor_bodies(count, window):
    """The monitors: device monitors over one group, fleet monitors over two."""
    bodies = []
    for i in range(count):
        k = i // 2 % GROUPS
        if i % 2 == 0:
            bodies.append({"name": f"group {k} device down", "kind": "device_offline",
                           "selector": {"tags": [f"group-{k}"]}, "after_seconds": window})
        else:
            pair = [f"group-{k}", f"group-{(k + 1) % GROUPS}"]
            bodies.append({"name": f"groups {pair[0]}+{pair[1]} share", "kind":
                           "fleet_offline_ratio", "selector": {"any_tags": pair},
                           "after_seconds": window, "ratio": FLEET_RATIO})
    return bodies


def expected_alerts(bodies, devices, stopped):
    """Alerts the monitors must open once the devices numbered < stopped are silent."""
    silent_in = [sum(1 for i in range(stopped) if i % GROUPS == k) for k in range(GROUPS)]
    size_of = [sum(1 for i in range(devices) if i % GROUPS == k) for k in range(GROUPS)]
    total = 0
    for body in bodies:
        if body["kind"] == "device_offline":
            total += silent_in[int(body["selector"]["tags"][0].split("-")[1])]
        else:
            groups = [int(tag.split("-")[1]) for tag in body["selector"]["any_tags"]]
            selected = sum(size_of[k] for k in groups)
            offline = sum(silent_in[k] for k in groups)
            total += 1 if selected and offline / selected > FLEET_RATIO else 0
    return total


async def measure(pid, seconds, postgres):
    """The server's CPU seconds per wall second over `seconds` (and PostgreSQL's)."""
    cpu, pg, started = cpu_seconds(pid), postgres_seconds() if postgres else 0.0, time.monotonic()
    await asyncio.sleep(seconds)
    wall = time.monotonic() - started
    return ((cpu_seconds(pid) - cpu) / wall,
            (postgres_seconds() - pg) / wall if postgres else None)


async def run(args, server, token, install_token, postgres):
    host, port = server.base.removeprefix("http://").rsplit(":", 1)
    port = int(port)
    pid = server.process.pid
    started = time.monotonic()
    enrolled = await enrol(host, port, install_token, args.devices, args.connections)
    log(f"enrolled {args.devices} devices in {time.monotonic() - started:.1f} s")
    owner = Owner(host, port, token)
    for k in range(GROUPS):
        serials = [enrolled[i][0] for i in range(k, args.devices, GROUPS)]
        for chunk in range(0, len(serials), 1000):
            await owner.call("POST", "/devices/tags/", {
                "selector": {"serials": serials[chunk:chunk + 1000]}, "add": [f"group-{k}"]})
    tokens = [device_token for _, device_token in enrolled]
    beats = Heartbeats(host, port, tokens, args.online_window / 2, args.connections)
    beats.start()
    results = {}
    try:
        # One round so that every device has been seen, then the quiet measure.
        await asyncio.sleep(args.online_window / 2 + 1)
        log(f"heartbeats only: {args.seconds} s")
        results["heartbeats only"] = await measure(pid, args.seconds, postgres)
        bodies = monitor_bodies(args.monitors, args.online_window)
        for body in bodies:
            await owner.call("POST", "/monitors/", body, expected=201)
        log(f"{args.monitors} monitors: {args.seconds} s")
        results[f"with {args.monitors} monitors"] = await measure(pid, args.seconds, postgres)
        if await owner.open_alerts():
            raise RuntimeError("alerts opened while every device was online")
        expected = expected_alerts(bodies, args.devices, args.stop)
        log(f"{args.stop} devices stop; {expected} alerts expected")
        cpu, pg = cpu_seconds(pid), postgres_seconds() if postgres else 0.0
        stopped_at = time.monotonic()
        beats.stopped.update(tokens[:args.stop])
        first = last = None
        count, changed = 0, stopped_at
        deadline = stopped_at + args.timeout
        while time.monotonic() < deadline:
            now_count = await owner.open_alerts()
            now = time.monotonic()
            if now_count and first is None:
                first = now - stopped_at
            if now_count != count:
                count, changed, last = now_count, now, now - stopped_at
            if count >= expected and now - changed >= args.online_window:
                break
            await asyncio.sleep(0.25)
        wall = time.monotonic() - stopped_at
        results["stop"] = {
            "expected": expected, "opened": count, "first": first, "last": last,
            "cpu": (cpu_seconds(pid) - cpu) / wall,
            "postgres": (postgres_seconds() - pg) / wall if postgres else None,
        }
        results["memory"] = memory(pid)
        return results, beats
    finally:
        await beats.close()
        owner.http.cut()


def log(text):
    print(text, file=sys.stderr, flush=True)


def report(args, kind, results, beats) -> bool:
    stop = results["stop"]
    share = lambda pair: (f"{100 * pair[0]:.1f} %" +  # noqa: E731
                          (f" (postgres {100 * pair[1]:.1f} %)" if pair[1] is not None else ""))
    rows = [(f"server CPU, {label}", share(value)) for label, value in results.items()
            if label not in ("stop", "memory")]
    rows += [
        (f"server CPU, {args.stop} devices stopping to every alert open",
         share((stop["cpu"], stop["postgres"]))),
        ("alerts open / expected", f"{stop['opened']} / {stop['expected']}"),
        ("stop → first alert, → last alert",
         " / ".join("-" if t is None else f"{t:.1f} s" for t in (stop["first"], stop["last"]))),
        ("server VmRSS / VmHWM after",
         f"{results['memory'].get('VmRSS')} / {results['memory'].get('VmHWM')} MiB"),
        ("slowest heartbeat round (must be ≤ W/2)",
         f"{beats.slowest_round:.1f} s of {args.online_window / 2:.1f} s"),
        ("failed heartbeats", str(beats.failures)),
    ]
    print(f"devmgr monitors on {kind}: {args.devices} devices in one account, {args.monitors} "
          f"monitors, online window {args.online_window} s, {os.cpu_count()} cores shared by "
          f"the simulator, devmgr{' and PostgreSQL' if kind == 'postgres' else ''}; load "
          f"average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; CPU as a share of one "
          f"core, over {args.seconds} s")
    width = max(len(name) for name, _ in rows)
    value_width = max(len(value) for _, value in rows)
    print(f"| {'':{width}} | {'':{value_width}} |")
    print(f"|{'-' * (width + 2)}|{'-' * (value_width + 2)}|")
    for name, value in rows:
        print(f"| {name:{width}} | {value:{value_width}} |")
    return (stop["opened"] == stop["expected"] and beats.failures == 0
            and beats.slowest_round <= args.online_window / 2 + 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", type=int, default=10000)
    parser.add_argument("--monitors", type=int, default=100)
    parser.add_argument("--stop", type=int, default=1000,
                        help="devices that stop heartbeating")
    parser.add_argument("--seconds", type=float, default=60,
                        help="seconds of each CPU measurement")
    parser.add_argument("--online-window", type=int, default=60,
                        help="serve --online-window, and every monitor's after_seconds")
    parser.add_argument("--connections", type=int, default=8,
                        help="connections that enrol the devices and carry the heartbeats")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--postgres-url",
                        help="a PostgreSQL server where the user may create databases "
                             "(default: SQLite)")
    args = parser.parse_args()
    if not 0 < args.stop <= args.devices or args.monitors < 1 or args.online_window < 2:
        parser.error("--stop 1 to --devices, --monitors at least 1, --online-window at least 2")
    if not os.access(BINARY, os.X_OK):
        sys.exit(f"no devmgr binary at {BINARY}: cargo build --release -p devmgr, "
                 "or set DEVMGR_BINARY")
    kind = "postgres" if args.postgres_url else "sqlite"
    with Backend(kind, args.postgres_url) as backend, \
            AlertServer(backend.url, args.online_window) as server:
        user = cli(backend.url, "user", "create", "--email", EMAIL, "--verified")
        try:
            results, beats = asyncio.run(run(args, server, user["token"],
                                             user["install_token"], kind == "postgres"))
        except Exception as error:
            if server.process.poll() is not None:
                error = f"{error} (devmgr serve exited: {server.last_errors()})"
            raise RuntimeError(error) from None
    return 0 if report(args, kind, results, beats) else 1


if __name__ == "__main__":
    sys.exit(main())
