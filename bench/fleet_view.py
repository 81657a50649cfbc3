#!/usr/bin/env python3
"""The fleet view over a large account: filtered, paged listings and selector
previews with 10,000 devices, SQLite beside PostgreSQL (standard library only;
the load comes from `wrk`, as in bench/routes.py, whose helpers this uses).

For each backend of `--backends` (default: both):

1. makes a fresh database and starts `devmgr serve --throttle off` on it;
2. makes one account and enrols `--devices` devices (default 10,000) through
   `POST /install/` on `--connections` connections, named `pi-00000`,
   `pi-00001`, …; then tags them in bulk with `POST /devices/tags/` (a
   selector of at most 1,000 serials per request): every device gets
   `site:<n mod 8>`, every third `lab`, every tenth `x`;
3. checks each scenario once (200, and the count it must find), then runs
   wrk against it for `--seconds`:
     tag:    GET /devices/?tag=x&limit=100&offset=<0, 100, … 900>
             (1,000 of the devices match; the offsets go round)
     search: GET /devices/?search=pi-<000…099>&limit=100
             (each search matches the 100 devices whose name begins so)
     select: POST /devices/select/ {"selector": {"tags": ["lab"], "any_tags":
             ["site:1", "site:2"]}} (the count, and the first 100 devices)
4. prints scenario x backend: requests/s, latency p50 and p99, and answers
   that were not 2xx or socket errors (both must be 0; the script exits 1
   otherwise).

wrk, the server and (for PostgreSQL) the database share the machine's cores:
compare the backends side by side, and say what else ran.

Usage:
  cargo build --release -p devmgr && python3 bench/fleet_view.py
  python3 bench/fleet_view.py --backends sqlite --devices 2000 --seconds 3
The binary and the PostgreSQL server are found as bench/routes.py finds them
(DEVMGR_BINARY, --postgres-url). All traffic goes to 127.0.0.1.
"""

import argparse
import http.client
import json
import os
import sys
import tempfile
import threading
from urllib.parse import urlparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from routes import (  # noqa: E402 - the sibling script's helpers
    BINARY, DEFAULT_POSTGRES_URL, EMAIL, Backend, Route, Server, cli, ensure_wrk, lua_script,
    print_table, run_wrk, smoke)

SITES = 8
SEARCHES = 100


class Connection:
    """One keep-alive HTTP/1.1 connection to the server, JSON in and out."""

    def __init__(self, base):
        url = urlparse(base)
        self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)

    def call(self, method, path, authorization=None, body=None):
        headers = {"Authorization": authorization} if authorization else {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.conn.request(method, path, body=data, headers=headers)
        resp = self.conn.getresponse()
        payload = resp.read()
        return resp.status, json.loads(payload) if payload else None

    def close(self):
        self.conn.close()


def enrol(base, install_token, devices, connections):
    """The serials of `devices` new devices, index i named pi-<i>."""
    serials = [None] * devices
    next_index = iter(range(devices))
    lock = threading.Lock()
    failures = []

    def worker():
        conn = Connection(base)
        try:
            while not failures:
                with lock:
                    index = next(next_index, None)
                if index is None:
                    return
                status, body = conn.call("POST", "/install/", body={
                    "install_token": install_token, "name": f"pi-{index:05d}"})
                if status != 201:
                    failures.append(f"POST /install/ answered {status}: {body}")
                    return
                serials[index] = body["serial"]
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(str(error))
        finally:
            conn.close()

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise RuntimeError(failures[0])
    return serials


def tag(base, token, serials, tag_name):
    """Puts `tag_name` on the devices, at most 1,000 serials per request."""
    conn = Connection(base)
    try:
        for start in range(0, len(serials), 1000):
            chunk = serials[start:start + 1000]
            status, body = conn.call("POST", "/devices/tags/", f"Token {token}", {
                "selector": {"serials": chunk}, "add": [tag_name]})
            if status != 200 or body["matched"] != len(chunk):
                raise RuntimeError(f"POST /devices/tags/ answered {status}: {body}")
    finally:
        conn.close()


def prepare(database_url, base, devices, connections):
    """The account's token and its devices' serials, tagged."""
    user = cli(database_url, "user", "create", "--email", EMAIL, "--verified")
    serials = enrol(base, user["install_token"], devices, connections)
    for site in range(SITES):
        tag(base, user["token"], serials[site::SITES], f"site:{site}")
    tag(base, user["token"], serials[::3], "lab")
    tag(base, user["token"], serials[::10], "x")
    return user["token"], serials


def scenarios(token, devices):
    user = f"Token {token}"
    tagged = len(range(0, devices, 10))
    selector = {"tags": ["lab"], "any_tags": ["site:1", "site:2"]}
    selected = sum(1 for i in range(0, devices, 3) if i % SITES in (1, 2))
    select_body = json.dumps({"selector": selector})
    return [
        (Route("GET /devices/?tag=x&limit=100", "GET",
               [(f"/devices/?tag=x&limit=100&offset={offset}", None, user)
                for offset in range(0, min(tagged, 1000), 100)], 200), tagged),
        (Route("GET /devices/?search=…&limit=100", "GET",
               [(f"/devices/?search=pi-{n:03d}&limit=100", None, user)
                for n in range(SEARCHES)], 200), None),
        (Route("POST /devices/select/", "POST",
               [("/devices/select/", select_body, user)], 200), selected),
    ]


def check_count(base, route, expected):
    """The scenario's first request finds the count it must."""
    path, body, authorization = route.targets[0]
    conn = Connection(base)
    try:
        status, answer = conn.call(route.method, path, authorization,
                                   json.loads(body) if body else None)
    finally:
        conn.close()
    if status != 200 or (expected is not None and answer["count"] != expected):
        raise RuntimeError(f"{route.label}: {status}, count {answer and answer.get('count')}, "
                           f"expected {expected}")


def bench_backend(kind, args, tmpdir):
    """scenario label -> wrk's figures, on a fresh database of `kind`."""
    results = {}
    with Backend(kind, args.postgres_url) as backend, Server(backend.url) as server:
        try:
            token, _ = prepare(backend.url, server.base, args.devices, args.connections)
            for route, expected in scenarios(token, args.devices):
                smoke(server.base, route)
                check_count(server.base, route, expected)
                script_path = os.path.join(tmpdir, f"{kind}-{len(results)}.lua")
                with open(script_path, "w") as f:
                    f.write(lua_script(route))
                print(f"  {kind:<8} {route.label:<36} {args.seconds} s x {args.connections} "
                      f"connections", file=sys.stderr, flush=True)
                results[route.label] = run_wrk(server.base, script_path, args.seconds,
                                               args.connections, args.threads)
        except Exception as error:
            if server.process.poll() is not None:
                error = f"{error} (devmgr serve exited: {server.last_errors()})"
            raise RuntimeError(error) from None
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="sqlite,postgres",
                        help="comma-separated: sqlite, postgres (default: both)")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL,
                        help="PostgreSQL server where the user may create databases")
    parser.add_argument("--seconds", type=int, default=10, help="duration of each scenario")
    parser.add_argument("--connections", type=int, default=16, help="concurrent connections")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--devices", type=int, default=10000, help="devices of the account")
    args = parser.parse_args()

    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if not backends or any(b not in ("sqlite", "postgres") for b in backends):
        parser.error("--backends takes sqlite and/or postgres")
    if args.seconds < 1 or args.connections < 1 or args.devices < SEARCHES * 10:
        parser.error(f"--seconds and --connections must be at least 1, --devices at least "
                     f"{SEARCHES * 10}")
    args.threads = max(1, min(args.threads, args.connections))
    if not os.access(BINARY, os.X_OK):
        sys.exit(f"no devmgr binary at {BINARY}: cargo build --release -p devmgr, "
                 "or set DEVMGR_BINARY")
    ensure_wrk()

    all_results, errors = {}, []
    with tempfile.TemporaryDirectory() as tmpdir:
        for kind in backends:
            print(f"{kind}: fresh database, {args.devices} devices", file=sys.stderr,
                  flush=True)
            try:
                all_results[kind] = bench_backend(kind, args, tmpdir)
            except Exception as error:  # noqa: BLE001 - report and go on with the next backend
                errors.append(f"{kind}: {error}")
                print(f"error: {kind}: {error}", file=sys.stderr, flush=True)

    print(f"devmgr fleet view: {args.devices} devices in one account, {args.seconds} s each, "
          f"{args.connections} connections, {args.threads} wrk threads, {os.cpu_count()} "
          f"cores shared by wrk, devmgr and the database")
    failures = print_table(all_results, backends)
    for error in errors:
        print(f"FAILED {error}")
    if failures:
        print(f"{failures} responses were not 2xx/3xx or hit socket errors")
    sys.exit(1 if errors or failures else 0)


if __name__ == "__main__":
    main()
