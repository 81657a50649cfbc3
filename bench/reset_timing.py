#!/usr/bin/env python3
"""Does `POST /reset-password/` take the same time whether or not the address
has an account? (Standard library only.)

1. starts `devmgr serve --bind 127.0.0.1:0 --throttle off --mail-dir DIR` on
   a temporary SQLite file and reads the `{"listening": URL}` line;
2. makes one verified account with the command line;
3. sends `--rounds` rounds of requests, each round one request for the
   account's address and one for an address nobody has (of the same length,
   so that reading the body costs the same), in alternating order
   (so drift in the machine's load hits both alike), one at a time over one
   keep-alive connection;
4. prints the median, p90 and p99 of each kind and the ratio of the medians.
   Exits 1 when the medians differ by more than `--tolerance` (default 10 %).

Usage:
  cargo build --release -p devmgr && python3 bench/reset_timing.py
  python3 bench/reset_timing.py --rounds 2000
The binary is target/release/devmgr under the repository unless DEVMGR_BINARY
names another. All traffic goes to 127.0.0.1; every loop is bounded.
"""

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The account's address; the unknown ones have the same length.
KNOWN = "k0000000@example.com"


def binary() -> str:
    return os.environ.get("DEVMGR_BINARY", str(ROOT / "target" / "release" / "devmgr"))


def start_server(workdir: Path) -> tuple[subprocess.Popen, str]:
    database = f"sqlite://{workdir / 'devmgr.db'}"
    server = subprocess.Popen(
        [binary(), "--database-url", database, "serve", "--bind", "127.0.0.1:0",
         "--throttle", "off", "--mail-dir", str(workdir / "mail")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "DEVMGR_LOG": "warn"},
    )
    line = server.stdout.readline()
    if not line:
        server.kill()
        sys.exit("devmgr serve did not start")
    return server, json.loads(line)["listening"]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--tolerance", type=float, default=0.10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="devmgr-reset-timing-") as tmp:
        workdir = Path(tmp)
        server, url = start_server(workdir)
        try:
            subprocess.run(
                [binary(), "--database-url", f"sqlite://{workdir / 'devmgr.db'}",
                 "user", "create", "--email", KNOWN, "--verified"],
                check=True, stdout=subprocess.DEVNULL,
            )
            host, port = url.removeprefix("http://").split(":")
            connection = http.client.HTTPConnection(host, int(port), timeout=30)
            timings = {"known": [], "unknown": []}

            def request(kind: str, n: int) -> None:
                email = KNOWN if kind == "known" else f"n{n % 10_000_000:07d}@example.com"
                body = json.dumps({"email": email})
                started = time.perf_counter()
                connection.request("POST", "/reset-password/", body,
                                   {"Content-Type": "application/json"})
                response = connection.getresponse()
                response.read()
                elapsed = time.perf_counter() - started
                if response.status != 204:
                    sys.exit(f"POST /reset-password/ answered {response.status}")
                timings[kind].append(elapsed * 1e6)

            for n in range(args.rounds):
                order = ("known", "unknown") if n % 2 == 0 else ("unknown", "known")
                for kind in order:
                    request(kind, n)
        finally:
            server.terminate()
            server.wait(timeout=10)
    medians = {kind: statistics.median(values) for kind, values in timings.items()}
    print(f"{args.rounds} requests each, one at a time, microseconds:")
    print(f"{'address':<10}{'median':>10}{'p90':>10}{'p99':>10}")
    for kind, values in timings.items():
        print(f"{kind:<10}{medians[kind]:>10.0f}{percentile(values, 0.9):>10.0f}"
              f"{percentile(values, 0.99):>10.0f}")
    ratio = medians["known"] / medians["unknown"]
    print(f"median known / unknown: {ratio:.3f}")
    return 0 if abs(ratio - 1) <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
