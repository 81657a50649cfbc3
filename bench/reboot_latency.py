#!/usr/bin/env python3
"""Reboot-delivery benchmark for devmgr (standard library only).

Measures the path from a user's `POST /devices/{serial}/reboot/` to the
device's long poll (`GET /agent/commands/?wait=N`) returning the command, for
an online device, as a device's agent sees it:

1. starts `devmgr serve` (release build) on 127.0.0.1 with a fresh SQLite
   file, makes an account, enrols a device through `POST /install/` and sends
   a heartbeat so the device is online;
2. for each round: an "agent" thread opens a long poll (keep-alive
   connection, as devmgr-agent does) and waits; once the poll has reached the
   server, the "user" sends the reboot and the clock starts; it stops when the
   long poll's answer (with the command) has arrived;
3. prints p50/p90/p99/max of those latencies, and the reboot request's own
   latency for comparison.

Optionally, `--background N` keeps N other online devices heartbeating in a
loop meanwhile, so the measurement is not of an idle server.

Usage: cargo build --release -p devmgr && python3 bench/reboot_latency.py [--rounds 300]
All traffic goes to 127.0.0.1; every loop is bounded.
"""

import argparse
import http.client
import json
import os
import subprocess
import tempfile
import threading
import time
from urllib.parse import urlparse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, "target", "release", "devmgr")

# How long the agent thread's poll is given to reach the server and start
# waiting before the reboot is sent. A reboot sent earlier would still be
# delivered (it stays pending), but would be measured from too early a moment.
SETTLE_SECONDS = 0.02


class Connection:
    """One keep-alive HTTP/1.1 connection to the server."""

    def __init__(self, base, authorization):
        url = urlparse(base)
        self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=90)
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


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def summary(name, values):
    print(f"{name:<44} n={len(values):<5} p50={percentile(values, 50):6.2f} ms  "
          f"p90={percentile(values, 90):6.2f} ms  p99={percentile(values, 99):6.2f} ms  "
          f"max={max(values):6.2f} ms")


def enrol(base, install_token, name):
    status, body = Connection(base, None).call(
        "POST", "/install/", {"install_token": install_token, "name": name})
    assert status == 201, (status, body)
    agent = Connection(base, f"Device {body['device_token']}")
    status, beat = agent.call("POST", "/agent/heartbeat/", {"agent_version": "bench"})
    assert status == 200, (status, beat)
    return body["serial"], agent


def background_heartbeats(base, install_token, count, stop):
    agents = [enrol(base, install_token, f"background-{i}")[1] for i in range(count)]
    while not stop.is_set():
        for agent in agents:
            agent.call("POST", "/agent/heartbeat/", {"uname": "Linux bench"})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=300, help="reboots measured")
    parser.add_argument("--background", type=int, default=0,
                        help="other devices heartbeating meanwhile")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite://{tmp}/bench.db"
        user = json.loads(subprocess.check_output(
            [BINARY, "--database-url", db, "user", "create", "--email", "bench@example.com",
             "--verified"]))
        server = subprocess.Popen(
            [BINARY, "--database-url", db, "serve", "--bind", "127.0.0.1:0", "--throttle", "off"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        stop = threading.Event()
        try:
            base = json.loads(server.stdout.readline())["listening"]
            serial, agent = enrol(base, user["install_token"], "bench-pi")
            owner = Connection(base, f"Token {user['token']}")
            background = None
            if args.background:
                background = threading.Thread(
                    target=background_heartbeats, daemon=True,
                    args=(base, user["install_token"], args.background, stop))
                background.start()
                time.sleep(1)

            delivery, request = [], []
            for _ in range(args.rounds):
                answer = {}

                def poll():
                    status, body = agent.call("GET", "/agent/commands/?wait=30")
                    answer["at"] = time.perf_counter()
                    answer["status"], answer["body"] = status, body

                poller = threading.Thread(target=poll)
                poller.start()
                time.sleep(SETTLE_SECONDS)
                started = time.perf_counter()
                status, body = owner.call("POST", f"/devices/{serial}/reboot/")
                request.append((time.perf_counter() - started) * 1000)
                assert status == 202, (status, body)
                poller.join(timeout=60)
                assert answer.get("status") == 200, answer
                commands = answer["body"]["commands"]
                assert len(commands) == 1 and commands[0]["action"] == "reboot", answer
                delivery.append((answer["at"] - started) * 1000)

            note = f", {args.background} other devices heartbeating" if args.background else ""
            print(f"devmgr reboot delivery to an online device's long poll ({args.rounds} rounds{note})")
            summary("POST reboot -> long poll returns command", delivery)
            summary("POST reboot request alone", request)
            stop.set()
            if background:
                background.join(timeout=30)
        finally:
            stop.set()
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
