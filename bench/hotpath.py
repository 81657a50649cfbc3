#!/usr/bin/env python3
"""devmgr's hot path beside a bare actix-web server answering the same bytes
from memory (standard library only; the load comes from `wrk`).

The bare server, `devmgr-limit-server` (bench/limit-server), is the practical
limit of this machine and wrk: actix-web, one worker per core, no database,
no authentication. In one run the script:

1. makes a fresh SQLite database with the command line: an account with 10
   devices and a second one with `--big` (1,000) devices (`user create`,
   `device add --online`), and starts `devmgr serve --throttle off` on it;
2. fetches devmgr's real answers (after one reboot of each device, so that the
   answers are the steady state's) and writes them as files for the limit
   server, which it starts with `--answers DIR`: same bodies, same statuses;
3. checks each route once on each server (it must answer its 2xx), then runs
   wrk (`--threads` 2, `--connections` 32, `--seconds` 10) for:
     a  GET /devices/{serial}/          (round the 10 devices)
     b  GET /devices/                   (10 devices in the account)
     c  POST /devices/{serial}/reboot/  (202; a reboot is already pending)
     d  GET /devices/                   (1,000 devices in the account)
   on devmgr and on the limit server, then on devmgr only:
     e  POST /auth/ with `--login-connections` (8) connections (Argon2id)
     f  a again while e runs at the same time (two wrk processes)
   and last, on both servers again:
     g  b with a query of its own on every request (`fresh=<thread>-<n>`,
        which both ignore), so devmgr never finds a listing answer kept
        and reads every one afresh (docs/architecture.md, "Listing answers")
     h  d the same way
4. samples devmgr's VmRSS in /proc/PID/status every 50 ms during each
   scenario and keeps the peak (and prints VmHWM at the end), and reads each
   server's CPU time (/proc/PID/stat) before and after each wrk run: the CPU
   per request, which other work on a shared machine moves less than the
   rates;
5. prints the table with the ratios and the goals of docs/performance.md,
   writes an SVG plot (`--out-svg`, default docs/performance/hotpath.svg:
   req/s per scenario with devmgr's share of the limit and its goal under
   each, and the peak RSS against 64 MB) and,
   with `--json FILE`, the raw figures. Responses that are not 2xx/3xx and
   socket errors must be 0: the script exits with status 1 otherwise.

It builds nothing itself:
  CARGO_TARGET_DIR=/tmp/rel-target cargo build --release -p devmgr -p devmgr-limit-server \\
      && python3 bench/hotpath.py --binary /tmp/rel-target/release/devmgr \\
             --limit-binary /tmp/rel-target/release/devmgr-limit-server
Defaults: target/release/devmgr (or $DEVMGR_BINARY) and
target/release/devmgr-limit-server (or $DEVMGR_LIMIT_BINARY). wrk, both
servers and the script share the machine's cores. wrk's scripts, its output
and devmgr's start come from bench/routes.py. All traffic goes to
127.0.0.1; every loop is bounded.
"""

import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import routes  # noqa: E402 - wrk's Lua, its output and `devmgr serve`, shared with routes.py
from routes import Route, call, ensure_wrk, lua_script, run_wrk, smoke  # noqa: E402

ROOT = routes.ROOT
PASSWORD = "bench-correct-horse-42"
SMALL, BIG = "bench@example.com", "big@example.com"
SCENARIOS = ["a", "b", "c", "d", "e", "f", "g", "h"]
TITLES = {
    "a": "GET /devices/{serial}/",
    "b": "GET /devices/ (10 devices)",
    "c": "POST /devices/{serial}/reboot/",
    "d": "GET /devices/ (1,000 devices)",  # --big changes the number
    "e": "POST /auth/ (8 connections)",
    "f": "a during logins (e at once)",
    "g": "b read afresh (a new query each time)",
    "h": "d read afresh (a new query each time)",
}
# Scenarios whose every request has a query of its own (`fresh=<thread>-<n>`,
# which both servers ignore), so devmgr never finds a listing answer kept.
AFRESH = {"g": "b", "h": "d"}
RSS_GOAL_MB = 64


def make_account(db, email, devices):
    """The account's token and its devices' serials, made with the command line."""
    user = routes.cli(db, "user", "create", "--email", email, "--password", PASSWORD,
                      "--verified")

    def add(i):
        return routes.cli(db, "device", "add", "--owner", email, "--name", f"pi-{i}",
                          "--online", "--machine-type", "rpi_4b")["serial"]

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        return user["token"], list(pool.map(add, range(devices)))


def fetch(base, method, path, token, expected):
    """devmgr's answer, the very bytes it sent; it must have the expected status."""
    request = urllib.request.Request(base + path, method=method,
                                     headers={"Authorization": f"Token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    if status != expected:
        raise RuntimeError(f"{method} {path} answered {status}, not {expected}: {body[:300]!r}")
    return body


def write_answers(base, small, serials, big, answers_dir):
    """Every answer devmgr gives for the scenarios, one file each."""
    for s in serials:  # after this, a reboot is pending: the steady state of c
        fetch(base, "POST", f"/devices/{s}/reboot/", small, 202)
    files = {"devices": fetch(base, "GET", "/devices/", small, 200),
             "devices-big": fetch(base, "GET", "/devices/", big, 200)}
    for s in serials:
        files[f"device-{s}"] = fetch(base, "GET", f"/devices/{s}/", small, 200)
        files[f"reboot-{s}"] = fetch(base, "POST", f"/devices/{s}/reboot/", small, 202)
    for name, data in files.items():
        with open(os.path.join(answers_dir, f"{name}.json"), "wb") as f:
            f.write(data)
    return {name: len(data) for name, data in files.items()}


def scenario_routes(small, serials, big, limit):
    """Scenario letter -> Route, for devmgr or (limit=True) the limit server."""
    user, big_user = f"Token {small}", f"Token {big}"
    login = json.dumps({"email": SMALL, "password": PASSWORD})
    found = {
        "a": Route("a", "GET", [(f"/devices/{s}/", None, user) for s in serials], 200),
        "b": Route("b", "GET", [("/devices/", None, user)], 200),
        "c": Route("c", "POST", [(f"/devices/{s}/reboot/", None, user) for s in serials], 202),
        "d": Route("d", "GET", [("/devices/?set=big" if limit else "/devices/", None,
                                 big_user)], 200),
    }
    for letter, kept in AFRESH.items():
        path, body, authorization = found[kept].targets[0]
        fresh = path + ("&" if "?" in path else "?") + "fresh={n}"
        found[letter] = Route(letter, "GET", [(fresh, body, authorization)], 200)
    if not limit:
        found["e"] = Route("e", "POST", [("/auth/", login, None)], 201)
    return found


class RssSampler:
    """The peak VmRSS of a process, sampled every `interval` seconds while in use."""

    def __init__(self, pid, interval=0.05):
        self.pid, self.interval, self.peak_kb = pid, interval, 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def field(self, name):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1])
        return 0

    def run(self):
        while not self.stop.is_set():
            self.peak_kb = max(self.peak_kb, self.field("VmRSS"))
            self.stop.wait(self.interval)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=5)
        return False


def cpu_seconds(pid):
    """The CPU time (user + system) a process has used so far, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk_timed(server, route, connections, args, tmpdir):
    """wrk's figures, with the server's CPU time per request (`cpu_us`): on a
    shared machine it varies less than the rate, which other work slows."""
    before = cpu_seconds(server.process.pid)
    result = wrk(server.base, route, connections, args, tmpdir)
    used = cpu_seconds(server.process.pid) - before
    result["cpu_us"] = used * 1e6 / max(result["requests"], 1)
    return result


class LimitServer(routes.Server):
    """`devmgr-limit-server --bind 127.0.0.1:0 --answers DIR`, stopped on exit."""

    def __init__(self, binary, answers_dir):
        super().__init__(None)
        self.command = [binary, "--bind", "127.0.0.1:0", "--answers", answers_dir]

    def __enter__(self):
        self.process = subprocess.Popen(self.command, stdout=subprocess.PIPE,
                                        stderr=self.stderr, text=True)
        line = self.process.stdout.readline()
        if not line:
            self.process.wait(timeout=30)
            raise RuntimeError(f"devmgr-limit-server exited: {self.last_errors()}")
        self.base = json.loads(line)["listening"]
        return self


def wrk(base, route, connections, args, tmpdir):
    path = os.path.join(tmpdir, f"{route.label}-{connections}-{time.monotonic_ns()}.lua")
    with open(path, "w") as f:
        f.write(lua_script(route))
    result = run_wrk(base, path, args.seconds, connections, min(args.threads, connections))
    result["rate"] = result["requests"] / (result["duration_us"] / 1e6)
    result["errors"] = (result["non_2xx_3xx"] + result["connect"] + result["read"]
                        + result["write"] + result["timeout"])
    return result


def measure(devmgr, limit, small, serials, big, args, tmpdir):
    """Scenario -> {"devmgr": wrk's figures, "limit": …, "rss_mb": devmgr's peak}."""
    ours = scenario_routes(small, serials, big, limit=False)
    theirs = scenario_routes(small, serials, big, limit=True)
    for route in ours.values():
        if route.label != "e":
            smoke(devmgr.base, route)
    status, body = call(devmgr.base, "POST", "/auth/", body={"email": SMALL,
                                                             "password": PASSWORD})
    if status != 201:
        raise RuntimeError(f"POST /auth/ answered {status}, not 201: {body}")
    for route in theirs.values():
        smoke(limit.base, route)
    results = {}
    for letter in SCENARIOS:
        print(f"  {letter}  {TITLES[letter]:<32} {args.seconds} s", file=sys.stderr, flush=True)
        results[letter] = row = {}
        with RssSampler(devmgr.process.pid) as rss:
            if letter == "f":
                logins = {}
                login_thread = threading.Thread(target=lambda: logins.update(
                    wrk(devmgr.base, ours["e"], args.login_connections, args, tmpdir)))
                login_thread.start()
                time.sleep(0.2)  # the logins are under way before the reads start
                row["devmgr"] = wrk(devmgr.base, ours["a"], args.connections, args, tmpdir)
                login_thread.join()
                row["logins"] = logins
            else:
                connections = args.login_connections if letter == "e" else args.connections
                row["devmgr"] = wrk_timed(devmgr, ours[letter], connections, args, tmpdir)
        row["rss_mb"] = rss.peak_kb / 1024
        if letter in theirs:
            row["limit"] = wrk_timed(limit, theirs[letter], args.connections, args, tmpdir)
    return results


def fmt(r):
    return f"{r['rate']:,.0f} req/s, p99 {r['p99_us'] / 1000:.2f} ms"


# devmgr / limit server, at least (docs/performance.md).
GOALS = {"a": 0.5, "b": 0.5, "c": 0.3, "d": 0.4}


def print_table(results, hwm_mb):
    print("\n| scenario | devmgr req/s, p99 | limit req/s, p99 | devmgr / limit | goal "
          "| CPU µs per request, devmgr / limit |")
    print("|---|---|---|---|---|---|")
    for letter in SCENARIOS:
        row = results[letter]
        ours = row["devmgr"]
        if letter in GOALS:
            ratio = ours["rate"] / row["limit"]["rate"]
            mark = "met" if ratio >= GOALS[letter] else "NOT met"
            print(f"| {letter} {TITLES[letter]} | {fmt(ours)} | {fmt(row['limit'])} | "
                  f"{ratio:.0%} | >= {GOALS[letter]:.0%}: {mark} | "
                  f"{ours['cpu_us']:.1f} / {row['limit']['cpu_us']:.1f} |")
        elif letter in AFRESH:
            ratio = ours["rate"] / row["limit"]["rate"]
            print(f"| {letter} {TITLES[letter]} | {fmt(ours)} | {fmt(row['limit'])} | "
                  f"{ratio:.0%} | none: {AFRESH[letter]}'s cost without a kept answer | "
                  f"{ours['cpu_us']:.1f} / {row['limit']['cpu_us']:.1f} |")
        elif letter == "e":
            print(f"| {letter} {TITLES[letter]} | {fmt(ours)} | — | — | just req/s | "
                  f"{ours['cpu_us']:,.0f} / — |")
        else:
            ratio = ours["rate"] / results["a"]["devmgr"]["rate"]
            ok = ratio >= 0.5 and ours["p99_us"] <= 10_000
            print(f"| {letter} {TITLES[letter]} | {fmt(ours)}; logins "
                  f"{row['logins']['rate']:,.1f}/s | — | f / a = {ratio:.2f} | "
                  f">= 0.5 x a, p99 <= 10 ms: {'met' if ok else 'NOT met'} | — |")
    peaks = ", ".join(f"{k} {results[k]['rss_mb']:.1f}" for k in SCENARIOS)
    worst = max(results[k]["rss_mb"] for k in SCENARIOS)
    mark = "met" if worst <= RSS_GOAL_MB else "NOT met"
    print(f"| peak RSS of devmgr (MB) | {peaks}; VmHWM {hwm_mb:.1f} | | | "
          f"<= {RSS_GOAL_MB} MB: {mark} | |")
    return sum(row["devmgr"]["errors"] + row.get("limit", {}).get("errors", 0)
               + row.get("logins", {}).get("errors", 0) for row in results.values())


def svg_text(x, y, text, size=12, anchor="middle", weight="normal"):
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}">{text}</text>')


def axis(peak, ticks=5):
    """A round tick step (1, 2, 2.5 or 5 times a power of ten) and the axis
    top, a whole number of steps at or above `peak` with some headroom."""
    rough = peak * 1.08 / ticks
    power = 10 ** math.floor(math.log10(rough)) if rough > 0 else 1
    step = next(power * m for m in (1, 2, 2.5, 5, 10) if power * m >= rough)
    return step, step * math.ceil(peak * 1.08 / step)


def panel(x0, y0, width, height, title, bars, peak, unit, goal=None):
    """A bar chart: bars are (group label, note under it, [(value, colour)]),
    with a y axis of round steps up to above `peak`."""
    step, maximum = axis(peak)
    out = [svg_text(x0 + width / 2, y0 - 12, title, 14, weight="bold"),
           f'<line x1="{x0}" y1="{y0 + height}" x2="{x0 + width}" y2="{y0 + height}" '
           'stroke="#333"/>', f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y0 + height}" '
           'stroke="#333"/>']
    for i in range(round(maximum / step) + 1):
        value = step * i
        y = y0 + height - height * value / maximum
        out.append(f'<line x1="{x0 - 4}" y1="{y:.1f}" x2="{x0 + width}" y2="{y:.1f}" '
                   'stroke="#ddd"/>')
        out.append(svg_text(x0 - 6, y + 4, f"{value:,.0f}", 11, "end"))
    out.append(svg_text(x0 - 60, y0 + height / 2, unit, 12).replace(
        "<text ", f'<text transform="rotate(-90 {x0 - 60} {y0 + height / 2:.1f})" ', 1))
    group = width / len(bars)
    for i, (label, note, values) in enumerate(bars):
        bar = group * 0.7 / len(values)
        for j, (value, colour) in enumerate(values):
            h = height * value / maximum
            x = x0 + group * i + group * 0.15 + bar * j
            out.append(f'<rect x="{x:.1f}" y="{y0 + height - h:.1f}" width="{bar:.1f}" '
                       f'height="{h:.1f}" fill="{colour}"/>')
            out.append(svg_text(x + bar / 2, y0 + height - h - 4, f"{value:,.0f}", 10))
        out.append(svg_text(x0 + group * (i + 0.5), y0 + height + 16, label, 11,
                            weight="bold"))
        for k, line in enumerate(note.splitlines()):
            out.append(svg_text(x0 + group * (i + 0.5), y0 + height + 30 + 12 * k, line, 10))
    if goal is not None:
        y = y0 + height - height * goal / maximum
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + width}" y2="{y:.1f}" '
                   'stroke="#c62828" stroke-dasharray="6 4" stroke-width="2"/>')
        out.append(svg_text(x0 + width - 4, y - 6, f"goal: {goal} MB", 11, "end"))
    return out


def ratio_note(results, letter):
    """What a scenario's bars mean against its goal, under its letter."""
    ours = results[letter]["devmgr"]["rate"]
    if letter in GOALS:
        return (f"{ours / results[letter]['limit']['rate']:.0%} of the limit\n"
                f"(goal {GOALS[letter]:.0%})")
    if letter == "f":
        return f"{ours / results['a']['devmgr']['rate']:.2f} \u00d7 a\n(goal 0.5)"
    if letter in AFRESH:
        return (f"{ours / results[letter]['limit']['rate']:.0%} of the limit\n"
                f"(no goal)")
    return ""


def write_svg(path, results, seconds):
    devmgr_colour, limit_colour = "#1565c0", "#9e9e9e"
    bars = [(letter, ratio_note(results, letter),
             [(results[letter]["devmgr"]["rate"], devmgr_colour)]
             + ([(results[letter]["limit"]["rate"], limit_colour)]
                if "limit" in results[letter] else []))
            for letter in SCENARIOS]
    top = max(v for _, _, values in bars for v, _ in values)
    rss = [(letter, "", [(results[letter]["rss_mb"], devmgr_colour)]) for letter in SCENARIOS]
    rss_top = max(RSS_GOAL_MB, max(v for _, _, ((v, _),) in rss))
    width, height = 900, 740
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    out += panel(90, 50, 780, 250, f"Requests per second (wrk, {seconds} s per scenario)",
                 bars, top, "requests/s")
    out += panel(90, 410, 780, 210, "devmgr's peak RSS per scenario", rss, rss_top, "MB",
                 goal=RSS_GOAL_MB)
    legend_y = 665
    out += [f'<rect x="90" y="{legend_y}" width="14" height="14" fill="{devmgr_colour}"/>',
            svg_text(110, legend_y + 12, "devmgr", 12, "start"),
            f'<rect x="180" y="{legend_y}" width="14" height="14" fill="{limit_colour}"/>',
            svg_text(200, legend_y + 12, "bare actix-web, same bytes from memory", 12,
                     "start")]
    for line, first in enumerate(range(0, len(SCENARIOS), 3)):
        keys = "   ".join(f"{k}: {TITLES[k]}" for k in SCENARIOS[first:first + 3])
        out.append(svg_text(90, legend_y + 34 + 16 * line, keys, 11, "start"))
    out.append("</svg>")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=10, help="duration of each scenario")
    parser.add_argument("--connections", type=int, default=32, help="wrk's connections")
    parser.add_argument("--login-connections", type=int, default=8,
                        help="wrk's connections for the logins (e, and during f)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--big", type=int, default=1000, help="devices of the second account")
    parser.add_argument("--binary", default=routes.BINARY,
                        help="devmgr (default: $DEVMGR_BINARY or target/release/devmgr)")
    parser.add_argument("--limit-binary", default=os.environ.get("DEVMGR_LIMIT_BINARY") or
                        os.path.join(ROOT, "target", "release", "devmgr-limit-server"))
    parser.add_argument("--out-svg", default=os.path.join(ROOT, "docs", "performance",
                                                          "hotpath.svg"))
    parser.add_argument("--json", metavar="FILE", help="write the raw figures here")
    args = parser.parse_args()
    if min(args.seconds, args.connections, args.login_connections, args.threads, args.big) < 1:
        parser.error("--seconds, --connections, --login-connections, --threads and --big "
                     "must be at least 1")
    for binary in (args.binary, args.limit_binary):
        if not os.access(binary, os.X_OK):
            sys.exit(f"no binary at {binary}: {__doc__.split('It builds nothing itself:')[1]}")
    routes.BINARY = args.binary
    TITLES["d"] = f"GET /devices/ ({args.big:,} devices)"
    ensure_wrk()

    with tempfile.TemporaryDirectory() as tmpdir:
        db = f"sqlite://{tmpdir}/bench.db"
        print(f"accounts: 10 devices, {args.big} devices", file=sys.stderr, flush=True)
        small, serials = make_account(db, SMALL, 10)
        big, _ = make_account(db, BIG, args.big)
        answers_dir = os.path.join(tmpdir, "answers")
        os.mkdir(answers_dir)
        with routes.Server(db) as devmgr:
            sizes = write_answers(devmgr.base, small, serials, big, answers_dir)
            with LimitServer(args.limit_binary, answers_dir) as limit:
                results = measure(devmgr, limit, small, serials, big, args, tmpdir)
            hwm_mb = RssSampler(devmgr.process.pid).field("VmHWM") / 1024

    print(f"hot path: {args.seconds} s per scenario, {args.threads} wrk threads, "
          f"{args.connections} connections (logins {args.login_connections}), "
          f"{os.cpu_count()} cores shared by wrk and the servers; answers of "
          f"{sizes['device-' + serials[0]]} B (a), {sizes['devices']} B (b), "
          f"{sizes['reboot-' + serials[0]]} B (c), {sizes['devices-big']:,} B (d)")
    failures = print_table(results, hwm_mb)
    write_svg(args.out_svg, results, args.seconds)
    print(f"plot: {args.out_svg}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seconds": args.seconds, "connections": args.connections,
                       "answer_bytes": sizes, "vmhwm_mb": hwm_mb, "scenarios": results}, f,
                      indent=2)
    if failures:
        print(f"{failures} responses were not 2xx/3xx or hit socket errors")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
