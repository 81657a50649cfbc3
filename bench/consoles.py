#!/usr/bin/env python3
"""Open consoles on a live fleet: how fast do their live updates come, and
what do they cost the server? (Standard library only: asyncio and
hand-written HTTP/1.1.)

1. starts `devmgr serve --bind 127.0.0.1:0 --throttle off` (with
   `--online-window N` when given, else the server's 90 s) on a temporary
   SQLite file (or, with `--postgres-url`, a scratch PostgreSQL database that
   is dropped afterwards with `DROP DATABASE … WITH (FORCE)`) and reads the
   `{"listening": URL}` line;
2. makes one verified account with a password on the command line, enrols
   `--devices` devices (default 2,000) through `POST /install/` and runs each
   as an agent would (as bench/fleet.py does, without drops): a heartbeat
   every `heartbeat_interval`, long polls (`wait` up to 30) on a keep-alive
   connection between them, every command acknowledged `received`, then
   `done`. The devices start spread over one heartbeat interval;
3. samples the server's CPU (utime+stime of /proc/<pid>/stat, as % of one
   core) and memory (VmRSS, VmHWM) for `--sample` seconds (default 30) with
   the fleet running and no console;
4. signs `--consoles` consoles in (default 50; `GET /console/login/` for the
   form key and its `csrf_token`, then `POST /console/login/`, which answers
   303 with the `devmgr_session` cookie) and keeps one server-sent event
   stream open per console: the first `--device-streams` (default 5) on
   `/console/events/?device=<serial>`, one watched device each, the others
   on `/console/events/`; then samples the server again for `--sample`
   seconds, and counts the event-stream bytes each console receives;
5. measures how late the updates come:
   a. online → offline: `--flip` devices (default 20, none of the watched
      ones) stop their agents at once; every fleet console must receive a
      `fleet` event in which each of them is `"online": false`. Latency:
      arrival − (the device's last heartbeat, as sent + the online window),
      i.e. how late after the device really became offline (the server
      stores whole seconds, so up to 1 s early is possible);
   b. offline → online: the same devices start again; latency: arrival of
      the event showing each online − its first new heartbeat;
   c. command status: `--rounds` times (default 3), the owner reboots the
      watched devices (`POST /devices/<serial>/reboot/`, Token auth, all at
      once); the agents of the watched devices take `--work` seconds
      (default 2) between `received` and `done`, so the stream can show the
      command before it ends. Latencies: the command's first appearance on
      its device stream − the request (its status then is counted), and its
      `done` − the agent's `done` acknowledgement;
6. prints the server's CPU and memory without and with the consoles side by
   side, bytes per console per minute, p50/p95/max per kind of update, the
   consoles that missed an update, the longest silence on any stream (the
   server sends something at least every 25 s), and the load average.
   Exits 1 if an update was missed, took longer than `--limit` (5 s), or a
   stream broke.

The simulator and the server share the machine's cores; say what else ran.

Usage:
  cargo build --release -p devmgr && python3 bench/consoles.py --online-window 30
  python3 bench/consoles.py --devices 200 --consoles 10 --online-window 30
  python3 bench/consoles.py --online-window 30 \\
      --postgres-url postgres://postgres@127.0.0.1:5432/postgres
The binary is target/release/devmgr under the repository unless DEVMGR_BINARY
names another. All traffic goes to 127.0.0.1; every loop is bounded by
`--timeout`.
"""

import argparse
import asyncio
import json
import os
import random
import re
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
# The server's own online window when `--online-window` is not given.
SERVER_ONLINE_WINDOW = 90
EMAIL = "consoles@example.com"
PASSWORD = "bench-correct-horse-42"


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
        """Closes the socket without a word."""
        if self.writer:
            transport = self.writer.transport
            transport.abort()
        self.reader = self.writer = None

    async def request(self, method: str, path: str, auth: str = "", body=None):
        """A JSON request: (status, the JSON answer or None)."""
        headers = {"Authorization": auth} if auth else {}
        payload = b""
        if body is not None:
            headers["Content-Type"] = "application/json"
            payload = json.dumps(body).encode()
        status, _, data = await self.exchange(method, path, headers, payload)
        return status, (json.loads(data) if data else None)

    async def exchange(self, method: str, path: str, headers=None, payload: bytes = b""):
        """Any request: (status, [(lowercased name, value)], body bytes)."""
        if self.writer is None:
            await self.open()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
        for name, value in (headers or {}).items():
            head += f"{name}: {value}\r\n"
        head += f"Content-Length: {len(payload)}\r\n\r\n"
        self.writer.write(head.encode() + payload)
        await self.writer.drain()
        status, fields = await read_head(self.reader)
        data = b""
        if header(fields, "transfer-encoding").lower() == "chunked":
            while True:
                size = int((await self.reader.readline()).split(b";")[0], 16)
                data += (await self.reader.readexactly(size + 2))[:-2]
                if size == 0:
                    break
        elif header(fields, "content-length"):
            data = await self.reader.readexactly(int(header(fields, "content-length")))
        if header(fields, "connection").lower() == "close":
            self.cut()
        return status, fields, data


async def read_head(reader):
    """An answer's status and header fields (names lowercased)."""
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("closed")
    status = int(status_line.split()[1])
    fields = []
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        fields.append((name.strip().lower(), value.strip()))
    return status, fields


def header(fields, name: str) -> str:
    return next((value for field, value in fields if field == name), "")


def set_cookie(fields, name: str) -> str:
    for field, value in fields:
        if field == "set-cookie" and value.startswith(f"{name}="):
            return value.split(";")[0].partition("=")[2]
    return ""


class Device:
    def __init__(self, serial: str, token: str):
        self.serial, self.token = serial, token
        self.work = 0.0  # seconds between `received` and `done`
        self.interval = None
        self.last_heartbeat = None  # when the last heartbeat was sent
        self.paused = False
        self.resumed = asyncio.Event()
        self.back_at = None  # when the first heartbeat after a pause was sent
        self.poll = None
        self.done_sent: dict[str, float] = {}


async def run_device(device: Device, host: str, port: int, stop: asyncio.Event,
                     ready: asyncio.Event, ready_count: list, total: int, spread: float):
    auth = f"Device {device.token}"
    next_heartbeat = 0.0
    http = Http(host, port)
    announced = False
    await asyncio.sleep(random.uniform(0, spread))
    while not stop.is_set():
        try:
            if device.paused:
                # Switched off: no heartbeat, no poll, until switched on.
                http.cut()
                await device.resumed.wait()
                next_heartbeat = 0.0
                if device.back_at is None:
                    device.back_at = time.monotonic()
            if time.monotonic() >= next_heartbeat:
                device.last_heartbeat = time.monotonic()
                status, answer = await http.request("POST", "/agent/heartbeat/", auth, {})
                if status == 200:
                    device.interval = answer["heartbeat_interval"]
                    next_heartbeat = time.monotonic() + device.interval
                    await handle(device, http, auth, answer["commands"])
            if not announced:
                announced = True
                ready_count[0] += 1
                if ready_count[0] == total:
                    ready.set()
            if device.paused:
                continue
            wait = max(1, min(30, int(next_heartbeat - time.monotonic())))
            device.poll = asyncio.ensure_future(
                http.request("GET", f"/agent/commands/?wait={wait}", auth))
            try:
                status, answer = await device.poll
            except asyncio.CancelledError:
                if asyncio.current_task().cancelling():
                    raise
                continue  # the poll was cut to switch the device off
            if status == 200:
                await handle(device, http, auth, answer["commands"])
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            http.cut()
            await asyncio.sleep(random.uniform(0.5, 3.0))
        except asyncio.CancelledError:
            http.cut()
            raise
    http.cut()


def switch_off(device: Device):
    device.resumed.clear()
    device.back_at = None
    device.paused = True
    if device.poll and not device.poll.done():
        device.poll.cancel()


def switch_on(device: Device):
    device.paused = False
    device.resumed.set()


async def handle(device: Device, http: Http, auth: str, commands: list):
    for command in commands:
        cid = command["id"]
        if cid in device.done_sent:
            await http.request("POST", f"/agent/commands/{cid}/ack/", auth, {"status": "done"})
            continue
        await http.request("POST", f"/agent/commands/{cid}/ack/", auth, {"status": "received"})
        if device.work:
            await asyncio.sleep(device.work)
        device.done_sent[cid] = time.monotonic()
        await http.request("POST", f"/agent/commands/{cid}/ack/", auth, {"status": "done"})


class Console:
    """A signed-in console and its event stream."""

    def __init__(self, index: int, serial=None):
        self.index, self.serial = index, serial  # serial: the watched device
        self.session = ""
        self.bytes = 0
        self.events = 0
        self.comments = 0
        self.last_chunk = None
        self.longest_silence = 0.0
        self.broken = None  # why the stream ended, if it did
        self.first_event = asyncio.Event()
        self.counts = None  # (online, offline) of the last fleet event
        # Fleet streams: serial -> the `online` wanted, and when it came.
        self.expect: dict[str, bool] = {}
        self.seen: dict[str, float] = {}
        # Device streams: command id -> {status: first arrival}.
        self.commands: dict[str, dict[str, float]] = {}

    @property
    def path(self) -> str:
        return "/console/events/" + (f"?device={self.serial}" if self.serial else "")

    def receive(self, block: bytes, arrival: float):
        name, data = "message", []
        for line in block.decode().split("\n"):
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        if not data:
            self.comments += 1
            return
        self.events += 1
        text = "\n".join(data)
        if name == "fleet":
            self.on_fleet(text, arrival)
        elif name == "device":
            self.on_device(json.loads(text), arrival)
        self.first_event.set()

    def on_fleet(self, text: str, arrival: float):
        if not self.first_event.is_set():
            state = json.loads(text)  # checked in full once
            if state["online"] + state["offline"] != len(state["devices"]):
                raise ValueError(f"console {self.index}: counts do not add up")
        counts = re.match(r'\{"online":(\d+),"offline":(\d+)', text)
        self.counts = (int(counts[1]), int(counts[2])) if counts else None
        # A quick look for the few devices watched (a string in JSON cannot
        # hold an unescaped quote, so `"online":` after the serial is its own).
        for serial, wanted in self.expect.items():
            if serial in self.seen:
                continue
            at = text.find(f'"serial":"{serial}"')
            if at < 0:
                continue
            flag = text.find('"online":', at) + len('"online":')
            if text.startswith("true" if wanted else "false", flag):
                self.seen[serial] = arrival

    def on_device(self, state: dict, arrival: float):
        for command in state["commands"]:
            self.commands.setdefault(command["id"], {}).setdefault(command["status"], arrival)


async def sign_in(console: Console, host: str, port: int, deadline: float):
    while True:
        http = Http(host, port)
        try:
            status, fields, page = await http.exchange("GET", "/console/login/")
            form_key = set_cookie(fields, "devmgr_form_key")
            token = re.search(rb'name="csrf_token" value="([^"]*)"', page)
            if status != 200 or not form_key or not token or token[1].decode() != form_key:
                sys.exit(f"GET /console/login/ answered {status} without a usable form key")
            form = urlencode({"csrf_token": form_key, "email": EMAIL, "password": PASSWORD})
            status, fields, _ = await http.exchange(
                "POST", "/console/login/",
                {"Cookie": f"devmgr_form_key={form_key}",
                 "Content-Type": "application/x-www-form-urlencoded"}, form.encode())
        finally:
            http.cut()
        if status == 303 and set_cookie(fields, "devmgr_session"):
            console.session = set_cookie(fields, "devmgr_session")
            return
        if status != 503 or time.monotonic() > deadline:
            sys.exit(f"POST /console/login/ answered {status}")
        await asyncio.sleep(0.5)  # the password hashing queue was full


async def stream(console: Console, host: str, port: int):
    """Reads the console's event stream until cancelled or broken."""
    writer = None
    try:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write((f"GET {console.path} HTTP/1.1\r\nHost: {host}\r\n"
                      f"Cookie: devmgr_session={console.session}\r\n"
                      "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n").encode())
        await writer.drain()
        status, fields = await read_head(reader)
        if status != 200 or not header(fields, "content-type").startswith("text/event-stream"):
            raise ConnectionError(f"{console.path} answered {status}")
        chunked = header(fields, "transfer-encoding").lower() == "chunked"
        buffer = b""
        console.last_chunk = time.monotonic()
        while True:
            if chunked:
                size = int((await reader.readline()).split(b";")[0], 16)
                if size == 0:
                    raise ConnectionError("the stream ended")
                data = (await reader.readexactly(size + 2))[:-2]
            else:
                data = await reader.read(65536)
                if not data:
                    raise ConnectionError("the stream ended")
            now = time.monotonic()
            console.longest_silence = max(console.longest_silence, now - console.last_chunk)
            console.last_chunk = now
            console.bytes += len(data)
            buffer += data.replace(b"\r\n", b"\n")
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                console.receive(block, now)
    except asyncio.CancelledError:
        raise
    except (ConnectionError, OSError, asyncio.IncompleteReadError, ValueError) as error:
        console.broken = str(error) or type(error).__name__
        console.first_event.set()
    finally:
        if writer:
            writer.transport.abort()


def memory(pid: int) -> dict:
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(value.split()[0]) // 1024
    return values


def cpu_seconds(pid: int) -> float:
    """utime + stime of the whole process (every thread), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def sample(pid: int, seconds: float, consoles=()) -> dict:
    """The server's CPU (% of one core) over `seconds`, its memory at the
    end, the simulator's own CPU, and each console's bytes meanwhile."""
    server, own = cpu_seconds(pid), resource.getrusage(resource.RUSAGE_SELF)
    bytes_before = [c.bytes for c in consoles]
    events_before = sum(c.events for c in consoles if c.serial is None)
    fleet_before = sum(c.bytes for c in consoles if c.serial is None)
    started = time.monotonic()
    await asyncio.sleep(seconds)
    elapsed = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "cpu": (cpu_seconds(pid) - server) / elapsed * 100,
        "bench_cpu": ((after.ru_utime + after.ru_stime) - (own.ru_utime + own.ru_stime))
                     / elapsed * 100,
        "load": os.getloadavg()[0],
        "bytes_per_minute": [(c.bytes - b) / elapsed * 60 for c, b in zip(consoles, bytes_before)],
        "fleet_events": sum(c.events for c in consoles if c.serial is None) - events_before,
        "fleet_bytes": sum(c.bytes for c in consoles if c.serial is None) - fleet_before,
        **memory(pid),
    }


class Phase:
    """What a stretch of the run cost: the server's CPU, and the events and
    bytes each fleet console received."""

    def __init__(self, label: str, pid: int, consoles):
        self.label, self.pid = label, pid
        self.fleet = [c for c in consoles if c.serial is None]
        self.started, self.cpu = time.monotonic(), cpu_seconds(pid)
        self.events = sum(c.events for c in self.fleet)
        self.bytes = sum(c.bytes for c in self.fleet)

    def end(self):
        elapsed = time.monotonic() - self.started
        self.seconds = elapsed
        self.cpu = (cpu_seconds(self.pid) - self.cpu) / elapsed * 100
        self.events = (sum(c.events for c in self.fleet) - self.events) / len(self.fleet)
        self.bytes = (sum(c.bytes for c in self.fleet) - self.bytes) / len(self.fleet)
        return self


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


async def until(condition, deadline: float):
    """Waits until `condition()` holds or `deadline` (monotonic) passes."""
    while not condition() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return condition()


class Result:
    """Latencies of one kind of update, and the consoles that missed one."""

    def __init__(self, label: str):
        self.label, self.latencies, self.missed_consoles, self.missed = label, [], set(), 0
        self.note = ""

    def add(self, console: Console, latency):
        if latency is None:
            self.missed += 1
            self.missed_consoles.add(console.index)
        else:
            self.latencies.append(latency)


async def flip(args, window, fleet_consoles, flipped, deadline_cap) -> tuple:
    """Switches `flipped` off, then on again; what each fleet console saw."""
    offline, online = Result("online → offline"), Result("offline → online")
    for console in fleet_consoles:
        console.seen = {}
        console.expect = {d.serial: False for d in flipped}
    for device in flipped:
        switch_off(device)
    # Let a heartbeat in flight finish: its time is the last one.
    await asyncio.sleep(0.5)
    gone = {d.serial: d.last_heartbeat + window for d in flipped}
    print(f"switched {len(flipped)} devices off; they go offline over the next "
          f"{max(gone.values()) - time.monotonic():.0f} s")
    wanted = len(flipped)
    await until(lambda: all(len(c.seen) == wanted for c in fleet_consoles),
                min(deadline_cap(), max(gone.values()) + 2 * args.limit + 5))
    for console in fleet_consoles:
        for device in flipped:
            seen = console.seen.get(device.serial)
            offline.add(console, None if seen is None else seen - gone[device.serial])

    for console in fleet_consoles:
        console.seen = {}
        console.expect = {d.serial: True for d in flipped}
    for device in flipped:
        switch_on(device)
    started = time.monotonic()
    await until(lambda: all(len(c.seen) == wanted for c in fleet_consoles),
                min(deadline_cap(), started + 2 * args.limit + 10))
    for console in fleet_consoles:
        for device in flipped:
            seen = console.seen.get(device.serial)
            back = device.back_at
            online.add(console, None if seen is None or back is None else seen - back)
    for console in fleet_consoles:
        console.expect = {}
    return offline, online


async def reboots(args, host, port, owner_token, device_consoles, by_serial, deadline_cap):
    shown, done = Result("command shown"), Result("command done")
    statuses = {}
    for _ in range(args.rounds):
        known = {c.index: set(c.commands) for c in device_consoles}
        asked = {}

        async def reboot(console):
            http = Http(host, port)
            asked[console.index] = time.monotonic()
            status, _ = await http.request("POST", f"/devices/{console.serial}/reboot/",
                                           f"Token {owner_token}")
            http.cut()
            if status != 202:
                sys.exit(f"reboot answered {status}")

        await asyncio.gather(*(reboot(c) for c in device_consoles))

        def new(console):
            ids = set(console.commands) - known[console.index]
            return next(iter(ids)) if ids else None

        await until(lambda: all(new(c) and "done" in c.commands[new(c)]
                                for c in device_consoles),
                    min(deadline_cap(), time.monotonic() + args.work + 2 * args.limit + 5))
        for console in device_consoles:
            cid = new(console)
            seen = console.commands.get(cid, {})
            if seen:
                first = min(seen, key=seen.get)
                statuses[first] = statuses.get(first, 0) + 1
                shown.add(console, seen[first] - asked[console.index])
            else:
                shown.add(console, None)
            acked = by_serial[console.serial].done_sent.get(cid)
            done.add(console, seen["done"] - acked if "done" in seen and acked else None)
        await asyncio.sleep(1)
    shown.note = "first seen as " + ", ".join(f"{s} {n}×" for s, n in sorted(statuses.items()))
    return shown, done


async def main_async(args, url, pid, owner_token, install_token):
    host, port = url.removeprefix("http://").split(":")
    port = int(port)
    window = args.online_window or SERVER_ONLINE_WINDOW
    begun = time.monotonic()

    def deadline_cap():
        return begun + args.timeout

    started = time.monotonic()
    enrolled = await enrol(host, port, install_token, args.devices, args.connections)
    print(f"enrolled {args.devices} devices in {time.monotonic() - started:.1f} s")
    random.seed(args.seed)
    devices = [Device(s, t) for s, t in enrolled]
    by_serial = {d.serial: d for d in devices}
    watched = devices[:args.device_streams]
    for device in watched:
        device.work = args.work
    flipped = random.sample(devices[len(watched):], min(args.flip, len(devices) - len(watched)))
    stop, ready, count = asyncio.Event(), asyncio.Event(), [0]
    spread = max(1, window // 3)
    runners = [asyncio.ensure_future(run_device(d, host, port, stop, ready, count, len(devices),
                                                spread))
               for d in devices]
    consoles = [Console(i, watched[i].serial if i < len(watched) else None)
                for i in range(args.consoles)]
    streams = []
    try:
        await asyncio.wait_for(ready.wait(), timeout=args.timeout)
        await asyncio.sleep(2)
        print(f"all {len(devices)} devices polling, heartbeats every "
              f"{devices[0].interval} s; sampling the server without consoles "
              f"for {args.sample:.0f} s")
        baseline = await sample(pid, args.sample)

        begun = time.monotonic()
        started = time.monotonic()
        queue = list(consoles)

        async def signer():
            while queue:
                await sign_in(queue.pop(), host, port, deadline_cap())

        await asyncio.gather(*(signer() for _ in range(4)))
        signed_in = time.monotonic() - started
        streams = [asyncio.ensure_future(stream(c, host, port)) for c in consoles]
        await until(lambda: all(c.first_event.is_set() for c in consoles), deadline_cap())
        opened = time.monotonic()
        print(f"{len(consoles)} consoles signed in in {signed_in:.1f} s, "
              f"streams open in {opened - started - signed_in:.1f} s more; "
              f"sampling with consoles for {args.sample:.0f} s")
        await asyncio.sleep(args.settle)
        with_consoles = await sample(pid, args.sample, consoles)

        fleet_consoles = [c for c in consoles if c.serial is None]
        phases = [Phase(f"{len(flipped)} devices off, then on", pid, consoles)]
        offline, online = await flip(args, window, fleet_consoles, flipped, deadline_cap)
        phases[-1].end()
        print("flips measured; rebooting the watched devices")
        device_consoles = [c for c in consoles if c.serial is not None]
        phases.append(Phase(f"{args.rounds} × {len(device_consoles)} reboots", pid, consoles))
        shown, done = await reboots(args, host, port, owner_token, device_consoles, by_serial,
                                    deadline_cap)
        phases[-1].end()
        minutes = (time.monotonic() - opened) / 60
        final = memory(pid)
    finally:
        stop.set()
        for task in runners + streams:
            task.cancel()
        await asyncio.gather(*runners, *streams, return_exceptions=True)
    return {
        "baseline": baseline, "consoles": with_consoles, "final": final,
        "results": [offline, online, shown, done], "console_list": consoles,
        "minutes": minutes, "devices": len(devices), "window": window,
        "interval": devices[0].interval, "phases": phases,
    }


def report(run, args) -> bool:
    base, busy, consoles = run["baseline"], run["consoles"], run["console_list"]
    print()
    print(f"{run['devices']} devices (online window {run['window']} s, heartbeat every "
          f"{run['interval']} s), {len(consoles)} consoles "
          f"({sum(c.serial is None for c in consoles)} fleet streams, "
          f"{sum(c.serial is not None for c in consoles)} device streams)")
    print(f"{'server':<28}{'no consoles':>14}{f'{len(consoles)} consoles':>14}")
    print(f"{'  CPU, % of one core':<28}{base['cpu']:>13.1f}%{busy['cpu']:>13.1f}%")
    print(f"{'  VmRSS, MiB':<28}{base['VmRSS']:>14}{busy['VmRSS']:>14}")
    print(f"{'  VmHWM, MiB':<28}{base['VmHWM']:>14}{busy['VmHWM']:>14}")
    print(f"{'  simulator CPU, % of a core':<28}{base['bench_cpu']:>13.1f}%"
          f"{busy['bench_cpu']:>13.1f}%")
    print(f"{'  load average (1 min)':<28}{base['load']:>14.2f}{busy['load']:>14.2f}")
    print(f"server memory at the end: RSS {run['final'].get('VmRSS')} MiB, "
          f"peak {run['final'].get('VmHWM')} MiB")
    for label, kind in (("fleet", True), ("device", False)):
        rates = [r for c, r in zip(consoles, busy["bytes_per_minute"])
                 if (c.serial is None) == kind]
        if rates:
            print(f"event-stream bytes per {label} console per minute (steady): "
                  f"mean {statistics.mean(rates) / 1024:.1f} KiB "
                  f"(min {min(rates) / 1024:.1f}, max {max(rates) / 1024:.1f})")
        whole = [c.bytes / run["minutes"] for c in consoles if (c.serial is None) == kind]
        if whole:
            print(f"  over the whole run ({run['minutes']:.1f} min, flips and reboots "
                  f"included): mean {statistics.mean(whole) / 1024:.1f} KiB per minute")
    fleet_count = sum(c.serial is None for c in consoles)
    if busy["fleet_events"] and fleet_count:
        print(f"  steady: {busy['fleet_events'] / fleet_count:.1f} fleet events per console "
              f"in {args.sample:g} s, {busy['fleet_bytes'] / busy['fleet_events'] / 1024:.0f} "
              "KiB each")
    for phase in run["phases"]:
        if phase.fleet:
            print(f"during {phase.label} ({phase.seconds:.0f} s): server CPU {phase.cpu:.1f}% "
                  f"of one core; per fleet console {phase.events:.1f} events, "
                  f"{phase.bytes / 1024:.0f} KiB")
    print(f"events received: {sum(c.events for c in consoles)}, keep-alive comments: "
          f"{sum(c.comments for c in consoles)}; longest silence on a stream: "
          f"{max(c.longest_silence for c in consoles):.1f} s")
    ok = True
    print(f"{'update':<20}{'n':>6}{'p50 s':>9}{'p95 s':>9}{'max s':>9}{'min s':>9}"
          f"{'missed':>8}{'consoles missing':>18}")
    for result in run["results"]:
        values = result.latencies
        fmt = (lambda f: f"{f(values):>9.2f}") if values else (lambda f: f"{'-':>9}")
        print(f"{result.label:<20}{len(values):>6}{fmt(statistics.median)}"
              f"{fmt(lambda v: percentile(v, 0.95))}{fmt(max)}{fmt(min)}"
              f"{result.missed:>8}{len(result.missed_consoles):>18}"
              + (f"  ({result.note})" if result.note else ""))
        late = sum(1 for v in values if v > args.limit)
        if late:
            print(f"  {late} of them later than {args.limit:g} s")
        ok = ok and not result.missed and not late
    broken = [c for c in consoles if c.broken]
    for console in broken:
        print(f"console {console.index} ({console.path}): stream broke: {console.broken}")
    ok = ok and not broken
    print("every update arrived, each within "
          f"{args.limit:g} s" if ok else "FAILED: an update was missed or late, or a stream broke")
    return ok


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
        sys.exit(f"psql failed: {sql}: {result.stderr.strip()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=2000)
    parser.add_argument("--consoles", type=int, default=50)
    parser.add_argument("--device-streams", type=int, default=5,
                        help="consoles watching one device each (the others watch the fleet)")
    parser.add_argument("--flip", type=int, default=20,
                        help="devices switched off, then on again")
    parser.add_argument("--rounds", type=int, default=3, help="reboots of each watched device")
    parser.add_argument("--work", type=float, default=2.0,
                        help="seconds a watched device takes between received and done")
    parser.add_argument("--online-window", type=int, default=None,
                        help=f"passed to serve (default: the server's {SERVER_ONLINE_WINDOW} s)")
    parser.add_argument("--sample", type=float, default=30,
                        help="seconds of each CPU sample (a fleet stream gets an event about "
                             "every 2/3 of the online window, so 90 s gives steadier bytes)")
    parser.add_argument("--settle", type=float, default=5,
                        help="seconds between opening the streams and sampling")
    parser.add_argument("--limit", type=float, default=5, help="latest acceptable update, s")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=300,
                        help="bound of each stage (enrolment, start, consoles to the end)")
    parser.add_argument("--postgres-url", default=None)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.device_streams > min(args.consoles, args.devices):
        sys.exit("--device-streams must not exceed --consoles or --devices")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    scratch = None
    with tempfile.TemporaryDirectory(prefix="devmgr-consoles-") as tmp:
        if args.postgres_url:
            if not shutil.which("psql"):
                sys.exit("psql is not installed (Debian: postgresql-client)")
            scratch = f"devmgr_consoles_{secrets.token_hex(6)}"
            psql(args.postgres_url, f"CREATE DATABASE {scratch}")
            database = with_database(args.postgres_url, scratch)
        else:
            database = f"sqlite://{Path(tmp) / 'devmgr.db'}"
        serve = [binary(), "--database-url", database, "serve", "--bind", "127.0.0.1:0",
                 "--throttle", "off"]
        if args.online_window:
            serve += ["--online-window", str(args.online_window)]
        server = subprocess.Popen(serve, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, env={**os.environ, "DEVMGR_LOG": "warn"})
        try:
            line = server.stdout.readline()
            if not line:
                sys.exit("devmgr serve did not start")
            url = json.loads(line)["listening"]
            created = json.loads(subprocess.run(
                [binary(), "--database-url", database, "user", "create",
                 "--email", EMAIL, "--password", PASSWORD, "--verified"],
                check=True, capture_output=True, text=True).stdout)
            print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
            run = asyncio.run(main_async(
                args, url, server.pid, created["token"], created["install_token"]))
            print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        finally:
            server.terminate()
            server.wait(timeout=10)
            if scratch:
                psql(args.postgres_url, f"DROP DATABASE IF EXISTS {scratch} WITH (FORCE)")
    return 0 if report(run, args) else 1


if __name__ == "__main__":
    sys.exit(main())
