#!/usr/bin/env python3
"""How much does a steady fleet make the server log? Bytes of stderr per
device per day, at the default log level, in text and in JSON, for one or
two builds side by side. (Standard library only: asyncio and hand-written
HTTP/1.1.)

For each build and each log format it has (a build without `--log-format`
writes text only):

1. starts `devmgr serve --bind 127.0.0.1:0 --throttle off --online-window W`
   (default W = 30, so heartbeats come every W/3 = 10 s instead of 30 s) on a
   fresh SQLite file in a temporary directory, with stderr going to a file,
   with no `DEVMGR_LOG`, `DEVMGR_LOG_LEVEL`, `DEVMGR_LOG_FORMAT` or
   `RUST_LOG` from the environment (the default level: `info`), and reads the
   `{"listening": URL}` line;
2. makes one account on the command line, enrols `--devices` devices
   (default 200) through `POST /install/` and runs each as devmgr-agent does
   (docs/agent-protocol.md, What an agent does): a heartbeat, then long polls
   `GET /agent/commands/?wait=<seconds left>` (the seconds until the next
   heartbeat, rounded, at least 1) on a keep-alive connection until the next
   heartbeat is due, `heartbeat_interval` after the last one. The devices
   start spread over one interval; nothing else happens (no commands);
3. after one interval of warm-up, measures for `--seconds` (default 60): the
   bytes the server wrote to stderr, the heartbeats and polls answered, and
   the lines, sorted by what they are about (heartbeat, poll, other);
4. prints, per run: bytes per heartbeat cycle (one heartbeat and the polls
   until the next, per device) and that times 2,880, the cycles of one day
   at the default 30 s heartbeat interval: bytes per device per day. The
   server's log lines do not depend on the interval (a 10 s poll and a 30 s
   poll log the same line), so the figure per cycle carries over.

With `--debug`, the builds that have `--log-level` are also run at
`--log-level debug`, to show what turning on debug costs.

Usage:
  cargo build --release -p devmgr && python3 bench/log_volume.py
  python3 bench/log_volume.py --before /tmp/devmgr-before/target/release/devmgr \\
      --after target/release/devmgr --debug
The "after" binary is target/release/devmgr under the repository unless
`--after` (or DEVMGR_BINARY) names another; `--before` is optional. The
simulator and the server share the machine's cores; the load average is
printed. All traffic goes to 127.0.0.1; every wait is bounded by `--timeout`.
"""

import argparse
import asyncio
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The fleet benchmark's HTTP client and enrolment (bench/fleet.py).
from fleet import Http, enrol

ROOT = Path(__file__).resolve().parent.parent
# Heartbeat cycles in a day at the default heartbeat interval (30 s: the
# default online window, 90 s, divided by 3).
CYCLES_PER_DAY = 86400 // 30
# Variables that would change what the server logs.
LOG_VARIABLES = ("DEVMGR_LOG", "DEVMGR_LOG_LEVEL", "DEVMGR_LOG_FORMAT", "RUST_LOG")


def default_binary() -> str:
    return os.environ.get("DEVMGR_BINARY", str(ROOT / "target" / "release" / "devmgr"))


# What a small Linux box reports (the shape of `devmgr-agent facts`).
FACTS = {
    "agent_version": "0.1.0",
    "operating_system": "Debian GNU/Linux 12 (bookworm)",
    "uname": "Linux pi 6.1.0-rpi7-rpi-v8 #1 SMP PREEMPT Debian 1:6.1.63-1+rpt1 aarch64",
    "machine_type": "rpi_4b",
    "ram_capacity": 3796,
    "disk_capacity": 30765219840,
    "disk_used": 4301258752,
    "processor_speed": 1800,
    "ports": [{"port": 22, "protocol": "tcp", "name": "sshd"},
              {"port": 5353, "protocol": "udp", "name": "avahi-daemon"}],
}


class Counts:
    """Requests answered while the window is open."""

    def __init__(self):
        self.open = False
        self.heartbeats = self.polls = self.failures = 0


async def run_device(token: str, host: str, port: int, counts: Counts, stop: asyncio.Event,
                     start_after: float):
    auth = f"Device {token}"
    http = Http(host, port)
    await asyncio.sleep(start_after)
    while not stop.is_set():
        try:
            status, answer = await http.request("POST", "/agent/heartbeat/", auth, FACTS)
            if status != 200:
                raise ConnectionError(f"heartbeat answered {status}")
            counts.heartbeats += counts.open
            next_heartbeat = time.monotonic() + answer["heartbeat_interval"]
            while not stop.is_set():
                left = next_heartbeat - time.monotonic()
                if left <= 0:
                    break
                wait = max(1, min(60, int(left + 0.5)))
                status, _ = await http.request("GET", f"/agent/commands/?wait={wait}", auth)
                if status != 200:
                    raise ConnectionError(f"poll answered {status}")
                counts.polls += counts.open
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            counts.failures += 1
            http.cut()
            await asyncio.sleep(1)
        except asyncio.CancelledError:
            http.cut()
            raise
    http.cut()


def kind_of(line: str) -> str:
    if "/agent/heartbeat/" in line:
        return "heartbeat"
    if "/agent/commands/" in line:
        return "poll"
    return "other"


async def measure(url: str, install_token: str, args, stderr_path: Path) -> dict:
    host, port = url.removeprefix("http://").split(":")
    port = int(port)
    tokens = [token for _, token in await enrol(host, port, install_token, args.devices, 8)]
    interval = max(1, args.online_window // 3)
    counts, stop = Counts(), asyncio.Event()
    random.seed(1)
    runners = [asyncio.ensure_future(
        run_device(t, host, port, counts, stop, random.uniform(0, interval))) for t in tokens]
    # Every device started and past its first poll.
    await asyncio.sleep(interval + 2)
    start = stderr_path.stat().st_size
    counts.open = True
    began = time.monotonic()
    await asyncio.sleep(args.seconds)
    counts.open = False
    seconds = time.monotonic() - began
    end = stderr_path.stat().st_size
    stop.set()
    for runner in runners:
        runner.cancel()
    await asyncio.gather(*runners, return_exceptions=True)
    with stderr_path.open("rb") as log:
        log.seek(start)
        window = log.read(end - start).decode("utf-8", "replace")
    lines = {"heartbeat": [], "poll": [], "other": []}
    for line in window.splitlines():
        lines[kind_of(line)].append(line)
    return {"bytes": end - start, "seconds": seconds, "heartbeats": counts.heartbeats,
            "polls": counts.polls, "failures": counts.failures, "lines": lines}


def has_option(binary: str, option: str) -> bool:
    shown = subprocess.run([binary, "help", "serve"], capture_output=True, text=True)
    return option in shown.stdout


def run(binary: str, fmt: str, level: str, args) -> dict:
    env = {name: value for name, value in os.environ.items() if name not in LOG_VARIABLES}
    extra = []
    if has_option(binary, "--log-format"):
        extra += ["--log-format", fmt]
        if level:
            extra += ["--log-level", level]
    elif level:
        env["DEVMGR_LOG"] = level
    with tempfile.TemporaryDirectory(prefix="devmgr-logs-") as tmp:
        database = f"sqlite://{Path(tmp) / 'devmgr.db'}"
        stderr_path = Path(tmp) / "stderr.log"
        with stderr_path.open("wb") as stderr:
            server = subprocess.Popen(
                [binary, "--database-url", database, *extra, "serve", "--bind", "127.0.0.1:0",
                 "--throttle", "off", "--online-window", str(args.online_window)],
                stdout=subprocess.PIPE, stderr=stderr, text=True, env=env)
        try:
            line = server.stdout.readline()
            if not line:
                sys.exit(f"{binary} serve did not start:\n{stderr_path.read_text()}")
            url = json.loads(line)["listening"]
            created = json.loads(subprocess.run(
                [binary, "--database-url", database, "user", "create",
                 "--email", "logs@example.com", "--verified"],
                check=True, capture_output=True, text=True, env=env).stdout)
            return asyncio.run(asyncio.wait_for(
                measure(url, created["install_token"], args, stderr_path),
                timeout=args.timeout))
        finally:
            server.terminate()
            server.wait(timeout=10)


def report(name: str, fmt: str, level: str, result: dict):
    cycles = result["heartbeats"]
    per_cycle = result["bytes"] / cycles if cycles else float("nan")
    per_day = per_cycle * CYCLES_PER_DAY
    print(f"{name:7} {fmt:5} {level or 'default':8} "
          f"{result['bytes']:>10,} B in {result['seconds']:.0f} s, "
          f"{cycles} heartbeats, {result['polls']} polls, {result['failures']} failures: "
          f"{per_cycle:8.1f} B per cycle, {per_day / 1024:8.1f} KiB per device per day")
    for kind, lines in result["lines"].items():
        if lines:
            mean = sum(len(line) + 1 for line in lines) / len(lines)
            print(f"        {kind:9} {len(lines):6} lines, {mean:6.1f} B each, e.g. {lines[0][:240]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="the server before the change (text logs only, say)")
    parser.add_argument("--after", default=default_binary(), help="the server now")
    parser.add_argument("--devices", type=int, default=200)
    parser.add_argument("--online-window", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--debug", action="store_true",
                        help="also run the builds that have --log-level at debug")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    builds = ([("before", args.before)] if args.before else []) + [("after", args.after)]
    print(f"{args.devices} devices, online window {args.online_window} s "
          f"(a heartbeat every {max(1, args.online_window // 3)} s), {args.seconds:.0f} s "
          f"measured per run; per day = per cycle x {CYCLES_PER_DAY:,} "
          f"(a heartbeat every 30 s); load average {os.getloadavg()}")
    for name, binary in builds:
        modern = has_option(binary, "--log-format")
        formats = ["text", "json"] if modern else ["text"]
        levels = [""] + (["debug"] if args.debug and modern else [])
        for level in levels:
            for fmt in formats:
                report(name, fmt, level, run(binary, fmt, level, args))
    print(f"load average {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
