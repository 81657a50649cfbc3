#!/usr/bin/env python3
"""Fleet jobs over 10,000 devices: how soon a job reaches the agents and what
the server spends while they carry it out (standard library only; the
agents are bench/fleet.py's simulator, the server and database helpers
bench/routes.py's).

1. makes a fresh database (a temporary SQLite file; with `--postgres-url`, a
   scratch PostgreSQL database `devmgr_bench_<random>` on that server,
   dropped afterwards) and starts `devmgr serve --throttle off` on it;
2. makes one account with the command line and enrols `--devices` devices
   (default 10,000) through `POST /install/` for their device tokens;
3. runs every device as fleet.py does (none unreliable): a heartbeat, then
   long polls on a keep-alive connection; each command id is acknowledged
   `received`, carried out once, acknowledged `done`. Then it measures the
   server's CPU for `--idle` seconds with nothing to do but the polls;
4. for each job: `POST /jobs/ {"action": "reboot", "selector": {"all":
   true}}`, first in one wave, then with `"wave_size": --wave-size` (default
   1,000), and follows `GET /jobs/{id}/` every 0.25 s until it is
   `completed`. It measures the time from sending the POST to its 201 (the
   first wave's commands are then deliverable) and to each agent of the
   first wave seeing its command in a poll (first, p50, p99, last); the wall time from
   the 201 to `completed`; the server's CPU (utime + stime from
   /proc/<pid>/stat) from the POST to `completed`, the CPU of every process
   named `postgres` on the machine over the same time (PostgreSQL only:
   other databases' work counts too), and the simulator's own; the
   server's VmRSS and VmHWM afterwards. For waves, the time between the
   first deliveries of two successive waves (a wave's agents at work, its
   settlement, the next wave's start), and within each wave between its
   first delivery and its last;
5. prints a table. Exits 1 unless each job completed with every target
   `done` and every device carried out exactly one command per job.

The simulator (one Python thread), the server and the database share the
machine's cores: a wave of 10,000 keeps the simulator busier than the
server, so the wall times are the simulator's as much as the server's; say
what else ran.

Usage:
  cargo build --release -p devmgr && python3 bench/jobs.py
  python3 bench/jobs.py --devices 2000 --wave-size 200
  python3 bench/jobs.py --postgres-url postgres://postgres@127.0.0.1:5432/postgres
The binary is target/release/devmgr under the repository unless DEVMGR_BINARY
names another. All traffic goes to 127.0.0.1; every wait is bounded by
`--timeout`.
"""

import argparse
import asyncio
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fleet import Device, Http, enrol, memory, percentile, run_device  # noqa: E402
from routes import BINARY, EMAIL, Backend, Server, cli  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
FINISHED = ("completed", "halted", "cancelled")
STATUSES = ("waiting", "pending", "delivered", "received", "done", "failed", "lapsed",
            "skipped")


def cpu_seconds(pid) -> float:
    """utime + stime of a process, in seconds (0 if it is gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def postgres_seconds() -> float:
    """utime + stime of every process named `postgres` on the machine."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        if text[text.index("(") + 1:text.rindex(")")] == "postgres":
            total += cpu_seconds(entry.name)
    return total


def own_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Bench:
    """The server, its devices and the owner's connection."""

    def __init__(self, args, server, token, devices, postgres):
        url = server.base.removeprefix("http://")
        self.host, port = url.split(":")
        self.port = int(port)
        self.args, self.pid, self.postgres = args, server.process.pid, postgres
        self.auth = f"Token {token}"
        self.devices = devices
        self.owner = Http(self.host, self.port)

    async def idle(self):
        """The server's CPU share while the agents only poll."""
        before, started = cpu_seconds(self.pid), time.monotonic()
        await asyncio.sleep(self.args.idle)
        return (cpu_seconds(self.pid) - before) / (time.monotonic() - started)

    async def job(self, wave_size):
        """Runs one job over every device; its figures."""
        for device in self.devices:
            device.first_delivery = None
        carried_before = {d.serial: len(d.carried_out) for d in self.devices}
        body = {"action": "reboot", "selector": {"all": True}}
        if wave_size:
            body["wave_size"] = wave_size
        cpu, pg, own = cpu_seconds(self.pid), self.postgres_now(), own_seconds()
        sent = time.monotonic()
        status, job = await self.owner.request("POST", "/jobs/", self.auth, body)
        created = time.monotonic()
        if status != 201:
            raise RuntimeError(f"POST /jobs/ answered {status}: {job}")
        path = f"/jobs/{job['id']}/"
        deadline = created + self.args.timeout
        while job["status"] not in FINISHED:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the job did not finish in {self.args.timeout} s: {job}")
            await asyncio.sleep(0.25)
            status, job = await self.owner.request("GET", path, self.auth)
            if status != 200:
                raise RuntimeError(f"GET {path} answered {status}: {job}")
        finished = time.monotonic()
        figures = {
            "created": created - sent,
            "completed": finished - created,
            "wall": finished - sent,
            "cpu": cpu_seconds(self.pid) - cpu,
            "postgres": self.postgres_now() - pg if self.postgres else None,
            "simulator": own_seconds() - own,
            "memory": memory(self.pid),
            "job": job,
        }
        first_wave = self.devices
        if wave_size:
            wave_of = await self.waves(job["id"])
            first_wave = [d for d in self.devices if wave_of.get(d.serial) == 1]
            figures["waves"], figures["spreads"] = wave_times(self.devices, wave_of)
        figures["seen"] = sorted(d.first_delivery - sent for d in first_wave
                                 if d.first_delivery)
        figures["once"] = all(
            len(d.carried_out) == carried_before[d.serial] + 1
            and all(n == 1 for n in d.carried_out.values()) for d in self.devices)
        figures["ok"] = (job["status"] == "completed"
                         and job["counts"]["done"] == len(self.devices)
                         and figures["once"])
        return figures

    def postgres_now(self):
        return postgres_seconds() if self.postgres else 0.0

    async def waves(self, job_id):
        """Each target's wave, by serial (`GET /jobs/{id}/targets/`, page by page)."""
        wave_of = {}
        while True:
            path = f"/jobs/{job_id}/targets/?limit=1000&offset={len(wave_of)}"
            status, page = await self.owner.request("GET", path, self.auth)
            if status != 200:
                raise RuntimeError(f"GET {path} answered {status}: {page}")
            for target in page["results"]:
                wave_of[target["serial"]] = target["wave"]
            if page["next"] is None or not page["results"]:
                return wave_of


def wave_times(devices, wave_of):
    """Seconds between the first deliveries of successive waves, and within
    each wave between its first delivery and its last."""
    firsts, lasts = {}, {}
    for device in devices:
        wave = wave_of.get(device.serial)
        if wave is not None and device.first_delivery is not None:
            firsts[wave] = min(firsts.get(wave, device.first_delivery), device.first_delivery)
            lasts[wave] = max(lasts.get(wave, device.first_delivery), device.first_delivery)
    ordered = [firsts[w] for w in sorted(firsts)]
    gaps = [b - a for a, b in zip(ordered, ordered[1:])]
    return gaps, [lasts[w] - firsts[w] for w in sorted(firsts)]


async def run(args, server, token, install_token, postgres):
    host, port = server.base.removeprefix("http://").rsplit(":", 1)
    started = time.monotonic()
    enrolled = await enrol(host, int(port), install_token, args.devices, args.connections)
    print(f"enrolled {args.devices} devices in {time.monotonic() - started:.1f} s",
          file=sys.stderr, flush=True)
    devices = [Device(serial, device_token, False) for serial, device_token in enrolled]
    bench = Bench(args, server, token, devices, postgres)
    stop, ready, count = asyncio.Event(), asyncio.Event(), [0]
    agents = [asyncio.ensure_future(
        run_device(d, bench.host, bench.port, stop, ready, count, len(devices)))
        for d in devices]
    try:
        await asyncio.wait_for(ready.wait(), timeout=args.timeout)
        await asyncio.sleep(2)
        print(f"all {len(devices)} agents polling", file=sys.stderr, flush=True)
        results = {"idle": await bench.idle()}
        for label, size in (("one wave", None), (f"waves of {args.wave_size}", args.wave_size)):
            print(f"job: {label}", file=sys.stderr, flush=True)
            results[label] = await bench.job(size)
            await asyncio.sleep(2)
        return results
    finally:
        stop.set()
        for agent in agents:
            agent.cancel()
        await asyncio.gather(*agents, return_exceptions=True)
        bench.owner.cut()


def report(args, kind, results) -> bool:
    labels = [label for label in results if label != "idle"]
    rows = []

    def row(name, render):
        rows.append([name] + [render(results[label]) for label in labels])

    def ms(seconds):
        return f"{seconds * 1000:.0f} ms"

    def seen(figures):
        values = figures["seen"]
        if not values:
            return "none"
        return (f"{ms(values[0])} / {ms(statistics.median(values))} / "
                f"{ms(percentile(values, 0.99))} / {ms(values[-1])}")

    def cpu(seconds, figures):
        return f"{seconds:.2f} s ({100 * seconds / figures['wall']:.0f} % of a core)"

    row("POST /jobs/ → 201", lambda f: ms(f["created"]))
    row("(first wave's) command seen in a poll, first / p50 / p99 / last", seen)
    row("201 → completed", lambda f: f"{f['completed']:.2f} s")
    row("server CPU, POST → completed", lambda f: cpu(f["cpu"], f))
    if kind == "postgres":
        row("postgres processes' CPU, same time", lambda f: cpu(f["postgres"], f))
    row("simulator CPU, same time", lambda f: cpu(f["simulator"], f))
    row("server VmRSS / VmHWM after", lambda f: (f"{f['memory'].get('VmRSS')} / "
                                                f"{f['memory'].get('VmHWM')} MiB"))
    row("next wave's first delivery after the last's, median / max",
        lambda f: (f"{statistics.median(f['waves']):.2f} / {max(f['waves']):.2f} s"
                   if f.get("waves") else "-"))
    row("a wave's last delivery after its first, median / max",
        lambda f: (f"{statistics.median(f['spreads']):.2f} / {max(f['spreads']):.2f} s"
                   if f.get("spreads") else "-"))
    row("counts", lambda f: ", ".join(f"{s} {f['job']['counts'][s]}" for s in STATUSES
                                      if f["job"]["counts"][s]))
    row("each device carried out its reboot once", lambda f: "yes" if f["once"] else "NO")

    print(f"devmgr fleet jobs on {kind}: {args.devices} devices in one account, "
          f"{os.cpu_count()} cores shared by the simulator, devmgr"
          f"{' and PostgreSQL' if kind == 'postgres' else ''}; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"server CPU with only the agents' long polls: {100 * results['idle']:.1f} % of a core")
    widths = [max(len(r[i]) for r in rows + [[""] + labels]) for i in range(len(labels) + 1)]
    header = [""] + labels
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    return all(results[label]["ok"] for label in labels)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", type=int, default=10000)
    parser.add_argument("--wave-size", type=int, default=1000)
    parser.add_argument("--connections", type=int, default=8,
                        help="connections that enrol the devices")
    parser.add_argument("--idle", type=float, default=10,
                        help="seconds of CPU measured with only the polls")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--postgres-url",
                        help="a PostgreSQL server where the user may create databases "
                             "(default: SQLite)")
    args = parser.parse_args()
    if args.devices < 1 or not 1 <= args.wave_size <= 100000:
        parser.error("--devices must be at least 1, --wave-size 1 to 100000")
    if not os.access(BINARY, os.X_OK):
        sys.exit(f"no devmgr binary at {BINARY}: cargo build --release -p devmgr, "
                 "or set DEVMGR_BINARY")
    # Each agent holds a connection, on both sides (the server inherits this).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.devices + 100:
        sys.exit(f"{args.devices} devices need {args.devices + 100} open files; the limit "
                 f"is {hard}")
    kind = "postgres" if args.postgres_url else "sqlite"
    with Backend(kind, args.postgres_url) as backend, Server(backend.url) as server:
        user = cli(backend.url, "user", "create", "--email", EMAIL, "--verified")
        try:
            results = asyncio.run(run(args, server, user["token"], user["install_token"],
                                      kind == "postgres"))
        except Exception as error:
            if server.process.poll() is not None:
                error = f"{error} (devmgr serve exited: {server.last_errors()})"
            raise RuntimeError(error) from None
    return 0 if report(args, kind, results) else 1


if __name__ == "__main__":
    sys.exit(main())
