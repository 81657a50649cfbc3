#!/usr/bin/env python3
"""Login-burst benchmark for devmgr (standard library only).

Starts `devmgr serve` (release build) on 127.0.0.1 with a fresh SQLite file,
then measures:

1. the latency of GET /devices/ on its own;
2. the same while a burst of concurrent logins (Argon2id) is running: the
   reads must stay fast, since hashing is bounded and runs off the async
   workers;
3. login time for an unknown e-mail against a wrong password: they should be
   the same (both verify one Argon2id hash).

Usage: cargo build --release -p devmgr && python3 bench/login_burst.py [--logins 200]
All traffic goes to 127.0.0.1; every loop is bounded.
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, "target", "release", "devmgr")
PASSWORD = "bench-correct-horse-42"


def request(method, url, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Token {token}")
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            resp.read()
            status = resp.status
    except urllib.error.HTTPError as err:
        err.read()
        status = err.code
    return status, (time.perf_counter() - start) * 1000


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def summary(name, values):
    print(f"{name:<42} n={len(values):<5} p50={percentile(values, 50):7.2f} ms  "
          f"p99={percentile(values, 99):7.2f} ms  max={max(values):7.2f} ms")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--logins", type=int, default=200, help="logins in the burst")
    parser.add_argument("--concurrency", type=int, default=16, help="concurrent login clients")
    parser.add_argument("--reads", type=int, default=300, help="reads measured in each phase")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite://{tmp}/bench.db"
        cli = lambda *a: json.loads(subprocess.check_output([BINARY, "--database-url", db, *a]))
        user = cli("user", "create", "--email", "bench@example.com", "--password", PASSWORD, "--verified")
        for i in range(5):
            cli("device", "add", "--owner", "bench@example.com", "--name", f"pi-{i}", "--online")
        server = subprocess.Popen([BINARY, "--database-url", db, "serve", "--bind", "127.0.0.1:0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            base = json.loads(server.stdout.readline())["listening"]
            token = user["token"]

            def reads(n):
                out = []
                for _ in range(n):
                    status, ms = request("GET", f"{base}/devices/", token=token)
                    assert status == 200, status
                    out.append(ms)
                return out

            reads(20)  # warm up
            summary("GET /devices/ alone", reads(args.reads))

            login_times, lock = [], threading.Lock()
            remaining = [args.logins]

            def login_client():
                while True:
                    with lock:
                        if remaining[0] == 0:
                            return
                        remaining[0] -= 1
                    status, ms = request("POST", f"{base}/auth/",
                                         {"email": "bench@example.com", "password": PASSWORD})
                    assert status == 201, status
                    with lock:
                        login_times.append(ms)

            clients = [threading.Thread(target=login_client) for _ in range(args.concurrency)]
            burst_start = time.perf_counter()
            for c in clients:
                c.start()
            during = reads(args.reads)
            for c in clients:
                c.join()
            burst_secs = time.perf_counter() - burst_start
            summary(f"GET /devices/ during {args.logins} logins", during)
            summary("POST /auth/ in the burst", login_times)
            print(f"{'login throughput':<42} {args.logins / burst_secs:.1f} logins/s")

            unknown, wrong = [], []
            for i in range(60):  # interleaved, so drift affects both alike
                unknown.append(request("POST", f"{base}/auth/", {"email": f"nobody{i}@example.com",
                                                                 "password": "wrong-password"})[1])
                wrong.append(request("POST", f"{base}/auth/", {"email": "bench@example.com",
                                                               "password": "wrong-password"})[1])
            summary("POST /auth/ unknown e-mail (400)", unknown)
            summary("POST /auth/ wrong password (400)", wrong)
            ratio = statistics.median(unknown) / statistics.median(wrong)
            print(f"{'median ratio unknown/wrong':<42} {ratio:.3f}")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
