#!/usr/bin/env python3
"""A simulated fleet: are reboots delivered, exactly once, and how fast?
(Standard library only: asyncio and hand-written HTTP/1.1.)

1. starts `devmgr serve --bind 127.0.0.1:0 --throttle off` on a temporary
   SQLite file (or, with `--postgres-url`, a scratch PostgreSQL database that
   is dropped afterwards) and reads the `{"listening": URL}` line;
2. makes one account with the command line and enrols `--devices` devices
   (default 2,000) through `POST /install/`;
3. runs every device as an agent would: a heartbeat, then long polls
   (`wait=30`) on a keep-alive connection, heartbeats every
   `heartbeat_interval`; each command id is acknowledged `received`, then
   carried out (counted) unless the device has carried it out before, then
   acknowledged `done`. A fraction `--drop` (default 10 %) of the devices are
   unreliable: each of their polls is cut at a random moment with
   probability 1/2 (the socket closed without a word, as a Wi-Fi drop or a
   power cut would), and they reconnect after 0.5-3 s;
4. once every device is polling, the owner asks every device to reboot
   (`POST /devices/{serial}/reboot/`, one at a time on `--connections`
   connections) and the run waits until every device has carried its reboot
   out, or `--timeout` seconds;
5. prints: devices whose reboot was carried out exactly once (the target is
   all of them), carried out twice (must be none), never; deliveries of an id
   a device had already carried out (re-deliveries after a lost `received`);
   delivery latency to the command reaching the device, p50,
   p99 and max (from sending the request), for the stable devices and the
   unreliable ones; the server's
   resident memory now and at its peak (VmRSS, VmHWM).
   Exits 1 unless every reboot was carried out exactly once.

The simulator and the server share the machine's cores; say what else ran.

Usage:
  cargo build --release -p devmgr && python3 bench/fleet.py
  python3 bench/fleet.py --devices 500 --drop 0.3
The binary is target/release/devmgr under the repository unless DEVMGR_BINARY
names another. All traffic goes to 127.0.0.1; every loop is bounded by
`--timeout`.
"""

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def binary() -> str:
    return os.environ.get("DEVMGR_BINARY", str(ROOT / "target" / "release" / "devmgr"))


class Http:
    """One keep-alive HTTP/1.1 connection."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    def cut(self):
        """Closes the socket without a word (a dropped link)."""
        if self.writer:
            transport = self.writer.transport
            transport.abort()
        self.reader = self.writer = None

    async def request(self, method: str, path: str, auth: str = "", body=None):
        if self.writer is None:
            await self.open()
        payload = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
        if auth:
            head += f"Authorization: {auth}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        head += f"Content-Length: {len(payload)}\r\n\r\n"
        self.writer.write(head.encode() + payload)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("closed")
        status = int(status_line.split()[1])
        length = 0
        close = False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value.strip())
            if name.lower() == "connection" and value.strip().lower() == "close":
                close = True
        data = await self.reader.readexactly(length) if length else b""
        if close:
            self.cut()
        return status, (json.loads(data) if data else None)


class Device:
    def __init__(self, serial: str, token: str, unreliable: bool):
        self.serial, self.token, self.unreliable = serial, token, unreliable
        self.carried_out: dict[str, int] = {}
        self.redelivered = 0
        self.reboot_requested = None  # when the reboot request was sent
        self.first_delivery = None


async def run_device(device: Device, host: str, port: int, stop: asyncio.Event,
                     ready: asyncio.Event, ready_count: list, total: int):
    auth = f"Device {device.token}"
    interval = 30
    next_heartbeat = 0.0
    http = Http(host, port)
    announced = False
    while not stop.is_set():
        try:
            if time.monotonic() >= next_heartbeat:
                status, answer = await http.request("POST", "/agent/heartbeat/", auth, {})
                if status == 200:
                    interval = answer["heartbeat_interval"]
                    next_heartbeat = time.monotonic() + interval
                    await handle(device, http, auth, answer["commands"])
            if not announced:
                announced = True
                ready_count[0] += 1
                if ready_count[0] == total:
                    ready.set()
            wait = max(1, min(30, int(next_heartbeat - time.monotonic())))
            poll = asyncio.ensure_future(
                http.request("GET", f"/agent/commands/?wait={wait}", auth))
            if device.unreliable and random.random() < 0.5:
                done, _ = await asyncio.wait({poll}, timeout=random.uniform(0.1, wait))
                if not done:
                    poll.cancel()
                    http.cut()
                    await asyncio.gather(poll, return_exceptions=True)
                    await asyncio.sleep(random.uniform(0.5, 3.0))
                    continue
            status, answer = await poll
            if status == 200:
                await handle(device, http, auth, answer["commands"])
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            http.cut()
            await asyncio.sleep(random.uniform(0.5, 3.0))
        except asyncio.CancelledError:
            http.cut()
            raise
    http.cut()


async def handle(device: Device, http: Http, auth: str, commands: list):
    for command in commands:
        cid = command["id"]
        if device.first_delivery is None:
            device.first_delivery = time.monotonic()
        if cid in device.carried_out:
            device.redelivered += 1
            await http.request("POST", f"/agent/commands/{cid}/ack/", auth, {"status": "done"})
            continue
        # As the agent does: record, acknowledge receipt, carry out, report.
        device.carried_out[cid] = 0
        await http.request("POST", f"/agent/commands/{cid}/ack/", auth, {"status": "received"})
        device.carried_out[cid] += 1
        await http.request("POST", f"/agent/commands/{cid}/ack/", auth, {"status": "done"})


def memory(pid: int) -> dict:
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(value.split()[0]) // 1024
    return values


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


async def enrol(host, port, install_token, count, connections):
    serials_tokens = [None] * count
    queue = asyncio.Queue()
    for i in range(count):
        queue.put_nowait(i)

    async def worker():
        http = Http(host, port)
        while not queue.empty():
            i = queue.get_nowait()
            status, answer = await http.request(
                "POST", "/install/", body={"install_token": install_token, "name": f"pi-{i}"})
            if status != 201:
                sys.exit(f"POST /install/ answered {status}: {answer}")
            serials_tokens[i] = (answer["serial"], answer["device_token"])
        http.cut()

    await asyncio.gather(*(worker() for _ in range(connections)))
    return serials_tokens


async def main_async(args, url, pid, owner_token, install_token):
    host, port = url.removeprefix("http://").split(":")
    port = int(port)
    started = time.monotonic()
    enrolled = await enrol(host, port, install_token, args.devices, args.connections)
    print(f"enrolled {args.devices} devices in {time.monotonic() - started:.1f} s")
    random.seed(args.seed)
    devices = [Device(s, t, random.random() < args.drop) for s, t in enrolled]
    stop, ready, count = asyncio.Event(), asyncio.Event(), [0]
    runners = [asyncio.ensure_future(run_device(d, host, port, stop, ready, count, len(devices)))
               for d in devices]
    await asyncio.wait_for(ready.wait(), timeout=args.timeout)
    await asyncio.sleep(2)
    print(f"all {len(devices)} devices polling; "
          f"{sum(d.unreliable for d in devices)} of them unreliable")

    queue = asyncio.Queue()
    for d in devices:
        queue.put_nowait(d)

    async def owner():
        http = Http(host, port)
        while not queue.empty():
            d = queue.get_nowait()
            d.reboot_requested = time.monotonic()
            status, _ = await http.request("POST", f"/devices/{d.serial}/reboot/",
                                           f"Token {owner_token}")
            if status != 202:
                sys.exit(f"reboot answered {status}")
        http.cut()

    asked = time.monotonic()
    await asyncio.gather(*(owner() for _ in range(args.connections)))
    print(f"asked {len(devices)} reboots in {time.monotonic() - asked:.1f} s")
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        if all(sum(d.carried_out.values()) >= 1 for d in devices):
            break
        await asyncio.sleep(0.5)
    # A little longer, to see any second delivery of an id already done.
    await asyncio.sleep(args.linger)
    rss = memory(pid)
    stop.set()
    for runner in runners:
        runner.cancel()
    await asyncio.gather(*runners, return_exceptions=True)
    return devices, rss


def report(devices, rss) -> bool:
    once = sum(1 for d in devices if list(d.carried_out.values()) == [1])
    twice = sum(1 for d in devices if any(n > 1 for n in d.carried_out.values()))
    never = sum(1 for d in devices if not d.carried_out)
    redelivered = sum(d.redelivered for d in devices)
    print(f"carried out exactly once: {once} of {len(devices)}; twice or more: {twice}; "
          f"never: {never}; deliveries of an id already done: {redelivered}")
    for label, group in (("stable", [d for d in devices if not d.unreliable]),
                         ("unreliable", [d for d in devices if d.unreliable])):
        latencies = [(d.first_delivery - d.reboot_requested) * 1000 for d in group
                     if d.first_delivery and d.reboot_requested]
        if latencies:
            print(f"delivery latency, {label} ({len(latencies)}): "
                  f"p50 {statistics.median(latencies):.1f} ms, "
                  f"p99 {percentile(latencies, 0.99):.1f} ms, max {max(latencies):.1f} ms")
    print(f"server memory: RSS {rss.get('VmRSS')} MiB, peak {rss.get('VmHWM')} MiB")
    return once == len(devices)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=2000)
    parser.add_argument("--drop", type=float, default=0.1)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--linger", type=float, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory(prefix="devmgr-fleet-") as tmp:
        database = f"sqlite://{Path(tmp) / 'devmgr.db'}"
        server = subprocess.Popen(
            [binary(), "--database-url", database, "serve", "--bind", "127.0.0.1:0",
             "--throttle", "off"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env={**os.environ, "DEVMGR_LOG": "warn"},
        )
        try:
            line = server.stdout.readline()
            if not line:
                sys.exit("devmgr serve did not start")
            url = json.loads(line)["listening"]
            created = json.loads(subprocess.run(
                [binary(), "--database-url", database, "user", "create",
                 "--email", "fleet@example.com", "--verified"],
                check=True, capture_output=True, text=True).stdout)
            devices, rss = asyncio.run(main_async(
                args, url, server.pid, created["token"], created["install_token"]))
        finally:
            server.terminate()
            server.wait(timeout=10)
    return 0 if report(devices, rss) else 1


if __name__ == "__main__":
    sys.exit(main())
