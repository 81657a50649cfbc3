"""Schemathesis hooks for devmgr: real credentials and real secrets.

The Rust test `tests/tests/e2e/api_fuzzing.rs` starts `devmgr serve` with a
mail directory, makes the accounts and keys below, and passes them in the
environment. These hooks only supply what no schema can: who the caller is
and the secrets the server handed out. Every generated request is still sent,
and every check judges every answer.

The hooks never undo what a generated request did: a device a generated
`DELETE` removed stays removed, a token a generated logout ended stays ended.
What the hooks need for themselves lives where no generated request reaches.

Credentials:

- operations secured by `Token` get the run's token, except `DELETE /auth/`,
  which ends the token it is sent with: it gets a fresh one from `POST /auth/`
  each time, so the rest of the run keeps its token; and `POST
  /auth/logout-all/`, which ends every token of the account: it gets a fresh
  token of an account of its own (`DEVMGR_LOGOUT_*`);
- operations secured by `Device` get the token of the agent's device, which
  belongs to an account of its own (`DEVMGR_AGENT_*`): generated requests,
  signed in as the run's account, cannot see it, edit it or delete it;
- public operations (`security: []`) get the run's token every other call, so
  the answers that depend on being signed in (403 from `/reset-password/`) are
  exercised too.

Secrets, in positive cases only (a schema-valid request must succeed, so it
has to carry a secret that exists; negative cases keep their generated
values): the current password on log-in and password change, the install
token on enrolment, a verification key, a fresh reset key, the id of a job of
the run's account (scheduled far ahead, so it never reboots anything), and a
new password that passes the password rules (commonness and similarity to the e-mail are
rules no schema can state). A registration gets a unique e-mail address,
since the same address cannot register twice.

A generated multipart body whose property name cannot be written in a part's
header (a control character other than the CR and LF the client percent-
encodes, or a backslash, which the header's quoted string reads as an
escape) loses that property before it is sent: such a body is malformed, and
devmgr answers it 400 as a parse error. The API has no field of that name,
so the case stays schema-valid; every other generated property is sent.

A job's `start_time`, in positive cases, is a time that exists (the
document's pattern of the API's form lets a day past the month's end through).

The fleet's selectors (the jobs' too) get `"all": true` exactly when they have no criterion
(in positive cases: a rule between keys that the document states in words),
and a positive bulk tagging names a tag and first has every tag of the run's
devices taken off, so no device ends with more than 20 (a limit that depends
on what earlier calls left).

Monitors, alerts and webhooks, in positive cases: the `{id}` of a monitor's
or a webhook's paths names one of the run's account (an id it has, say one a
stateful test just created, is kept; else one made by the hooks, made again
when a generated `DELETE` removed it); a
new monitor waits at least the server's online window (90 s, a bound the
server sets at its start, which the document cannot know) and a fleet
monitor has its ratio (required for that kind only, a rule in words); a
snooze's `until` names a time that exists; a new webhook targets a public
address written as such (`203.0.113.10`: names do not resolve here, and the
document's `uri` format lets through URLs that Django's validator refuses).

A long poll (`GET /agent/commands/`) finds a reboot queued for its device by
the agent account's owner, so it answers at once instead of after `wait`
seconds (up to 60). Like a real agent, the hooks then acknowledge every
command handed out to that device (`done`), so the next reboot is a new
command instead of one still on its way (which is not queued twice, and is
handed out again only after 15 s).
"""

import datetime
import itertools
import os
import pathlib
import re
import secrets
import time

import requests
import schemathesis

BASE = os.environ["DEVMGR_URL"]
EMAIL = os.environ["DEVMGR_EMAIL"]
LOGOUT_EMAIL = os.environ["DEVMGR_LOGOUT_EMAIL"]
LOGOUT_PASSWORD = os.environ["DEVMGR_LOGOUT_PASSWORD"]
AGENT_SERIAL = os.environ["DEVMGR_AGENT_SERIAL"]
AGENT_DEVICE_TOKEN = os.environ["DEVMGR_AGENT_DEVICE_TOKEN"]
AGENT_OWNER_TOKEN = os.environ["DEVMGR_AGENT_OWNER_TOKEN"]
VERIFY_KEY = os.environ["DEVMGR_VERIFY_KEY"]
RESET_EMAIL = os.environ["DEVMGR_RESET_EMAIL"]
MAIL_DIR = pathlib.Path(os.environ["DEVMGR_MAIL_DIR"])
TIMEOUT = 30

# The run's password changes when a generated password change succeeds, and
# its install token when a generated `POST /profile/install-token/` replaces it.
_password = os.environ["DEVMGR_PASSWORD"]
_install_token = os.environ["DEVMGR_INSTALL_TOKEN"]
_public_calls = itertools.count()
_registrations = itertools.count()


def _log_in(email=None, password=None) -> str:
    response = requests.post(
        f"{BASE}/auth/",
        json={"email": email or EMAIL, "password": password or _password},
        timeout=TIMEOUT,
    )
    response.raise_for_status()
    return response.json()["token"]


# Punctuation only, past a short prefix: the password rules compare the
# characters a password shares with the e-mail address and the install token
# (`[a-z0-9]`), and random letters and digits sometimes share enough with a
# random install token to count as "too similar".
_SYMBOLS = "!#$%&()*+,/:;<=>?[]^{|}~"


def _strong_password() -> str:
    return "Zq7-" + "".join(secrets.choice(_SYMBOLS) for _ in range(20))


# The whole suite runs many servers at once: a mail can queue for long.
MAIL_WAIT = 60


def _mails() -> set:
    """The delivered mails (a mail being written is a hidden temporary file)."""
    return {path for path in MAIL_DIR.iterdir() if path.suffix == ".eml"}


def _reset_key() -> str:
    """Asks for a reset link for the reset account and reads its key from the mail."""
    seen = _mails()
    requests.post(
        f"{BASE}/reset-password/", json={"email": RESET_EMAIL}, timeout=TIMEOUT
    ).raise_for_status()
    # Generous: with the whole suite running many tests at a time against
    # one PostgreSQL server, a mail can take seconds to go through the outbox.
    deadline = time.monotonic() + MAIL_WAIT
    while time.monotonic() < deadline:
        for path in sorted(_mails() - seen):
            text = path.read_text(errors="replace")
            match = re.search(r"/reset-password/confirm/\?key=([A-Za-z0-9_-]+)", text)
            if match and f"To: {RESET_EMAIL}" in text:
                return match.group(1)
        time.sleep(0.05)
    raise RuntimeError(f"no reset mail arrived within {MAIL_WAIT} s")


def _security(case) -> list:
    return case.operation.definition.raw.get("security", [])


def _is_positive(case) -> bool:
    meta = case.meta
    return meta is not None and meta.generation.mode.is_positive


@schemathesis.auth()
class DevmgrAuth:
    """The run's token, fetched once; device tokens per call."""

    def get(self, case, ctx):
        return _log_in()

    def set(self, case, token, ctx):
        security = _security(case)
        schemes = {name for requirement in security for name in requirement}
        if "Device" in schemes:
            case.headers["Authorization"] = f"Device {AGENT_DEVICE_TOKEN}"
        elif case.method == "DELETE" and case.path == "/auth/":
            case.headers["Authorization"] = f"Token {_log_in()}"
        elif case.method == "POST" and case.path == "/auth/logout-all/":
            token = _log_in(LOGOUT_EMAIL, LOGOUT_PASSWORD)
            case.headers["Authorization"] = f"Token {token}"
        elif not security:
            if next(_public_calls) % 2 == 0:
                case.headers["Authorization"] = f"Token {token}"
        elif "Token" in schemes:
            case.headers["Authorization"] = f"Token {token}"


_job = None


def _job_id() -> str:
    """A job of the run's account, made once: scheduled far ahead, so it
    never gives a reboot (a cancel ends it; a resume finds it not halted)."""
    global _job
    if _job is None:
        response = requests.post(
            f"{BASE}/jobs/",
            json={
                "action": "reboot",
                "selector": {"all": True},
                "start_time": "2999-01-01T00:00:00",
            },
            headers={"Authorization": f"Token {_log_in()}"},
            timeout=TIMEOUT,
        )
        response.raise_for_status()
        _job = response.json()["id"]
    return _job


_made = {}

# The least `after_seconds` of a monitor: the test server's online window.
ONLINE_WINDOW = 90
# A public address (TEST-NET-3): allowed as a webhook's target, never resolved.
PUBLIC_TARGET = "https://203.0.113.10/schemathesis"


def _exists(path: str) -> bool:
    response = requests.get(
        f"{BASE}{path}",
        headers={"Authorization": f"Token {_log_in()}"},
        timeout=TIMEOUT,
    )
    return response.status_code == 200


def _made_id(path: str, body: dict) -> str:
    """The id of a resource of the run's account made by `POST path`, made
    again when a generated `DELETE` removed it."""
    if path not in _made or not _exists(f"{path}{_made[path]}/"):
        response = requests.post(
            f"{BASE}{path}",
            json=body,
            headers={"Authorization": f"Token {_log_in()}"},
            timeout=TIMEOUT,
        )
        response.raise_for_status()
        _made[path] = response.json()["id"]
    return _made[path]


def _monitor_id() -> str:
    return _made_id(
        "/monitors/",
        {
            "name": "schemathesis",
            "kind": "device_offline",
            "selector": {"all": True},
            "after_seconds": ONLINE_WINDOW,
        },
    )


def _webhook_id() -> str:
    return _made_id("/webhooks/", {"target_url": PUBLIC_TARGET})


def _settle_monitor(case) -> None:
    """`after_seconds` from the online window; a fleet monitor's ratio."""
    body = case.body
    if not isinstance(body, dict):
        return
    form = case.media_type != "application/json"
    after = body.get("after_seconds")
    try:
        if after is None or int(after) < ONLINE_WINDOW:
            body["after_seconds"] = str(ONLINE_WINDOW) if form else ONLINE_WINDOW
    except (TypeError, ValueError):
        body["after_seconds"] = str(ONLINE_WINDOW) if form else ONLINE_WINDOW
    if body.get("kind") == "fleet_offline_ratio" and body.get("ratio") in (None, ""):
        body["ratio"] = "0.5" if form else 0.5


def _settle_time(case, field: str) -> None:
    """A time field names a time that exists: the pattern of the API's form
    cannot say that February has no 30th."""
    body = case.body
    if not isinstance(body, dict) or not isinstance(body.get(field), str):
        return
    if body[field] == "":
        return
    try:
        datetime.datetime.strptime(body[field], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        body[field] = "2026-11-24T09:30:00"


def _plant_secrets(case) -> None:
    operation = f"{case.method} {case.path}"
    if operation == "GET /verify-email/{key}/":
        case.path_parameters["key"] = VERIFY_KEY
        return
    if case.path.startswith("/jobs/{id}/"):
        case.path_parameters["id"] = _job_id()
    # An id the run's account has (one a stateful test just created) is kept.
    for prefix, made in (("/monitors/", _monitor_id), ("/webhooks/", _webhook_id)):
        if case.path.startswith(prefix + "{id}/"):
            given = (case.path_parameters or {}).get("id")
            if not (isinstance(given, str) and given and _exists(f"{prefix}{given}/")):
                case.path_parameters["id"] = made()
    body = case.body
    if not isinstance(body, dict):
        return
    if operation == "POST /auth/":
        body.update(email=EMAIL, password=_password)
    elif operation == "POST /change-password/":
        body.update(old_password=_password, new_password=_strong_password())
    elif operation == "POST /install/":
        body["install_token"] = _install_token
    elif operation == "POST /verify-email/":
        body["key"] = VERIFY_KEY
    elif operation == "POST /reset-password/confirm/":
        body.update(key=_reset_key(), new_password=_strong_password())
    elif operation == "POST /register/" and isinstance(body.get("email"), str):
        address = f"st{next(_registrations)}-{body['email']}"
        body["email"] = address if len(address) <= 254 else f"st{next(_registrations)}@example.com"


# The criteria of a selector (docs/api.md, "Fleet").
_CRITERIA = ("serials", "tags", "any_tags", "online", "machine_type", "search")


def _settle_selector(case) -> None:
    """`"all": true` exactly when the selector has no criterion: a rule
    between keys, which the document states in words."""
    body = case.body
    if not isinstance(body, dict):
        return
    if case.media_type == "application/json":
        selector = body.get("selector")
        if not isinstance(selector, dict):
            return
        if any(key in selector for key in _CRITERIA):
            selector.pop("all", None)
        else:
            selector["all"] = True
    elif any(f"selector.{key}" in body for key in _CRITERIA):
        body.pop("selector.all", None)
    else:
        body["selector.all"] = "true"


def _settle_start_time(case) -> None:
    """A job's `start_time` names a time that exists: the pattern of the
    API's form cannot say that February has no 30th."""
    body = case.body
    if not isinstance(body, dict) or not isinstance(body.get("start_time"), str):
        return
    try:
        datetime.datetime.strptime(body["start_time"], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        body["start_time"] = "2026-11-24T09:30:00"


def _make_room_for_tags(case) -> None:
    """A bulk tagging names a tag, and no device can end with more than 20
    tags: every tag of the run's devices is taken off first (the limit
    depends on what earlier calls left, which no schema can state)."""
    body = case.body
    if not isinstance(body, dict):
        return
    if not (body.get("add") or body.get("remove")):
        body["add"] = ["schemathesis"] if case.media_type == "application/json" else "schemathesis"
    headers = {"Authorization": f"Token {_log_in()}"}
    tags = requests.get(f"{BASE}/tags/", headers=headers, timeout=TIMEOUT)
    tags.raise_for_status()
    names = [tag["name"] for tag in tags.json()]
    for start in range(0, len(names), 20):
        requests.post(
            f"{BASE}/devices/tags/",
            json={"selector": {"all": True}, "remove": names[start : start + 20]},
            headers=headers,
            timeout=TIMEOUT,
        ).raise_for_status()


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    _drop_unwritable_multipart_names(case)
    if _is_positive(case):
        _plant_secrets(case)
        if case.method == "POST" and case.path in (
            "/devices/select/",
            "/devices/tags/",
            "/jobs/",
            "/monitors/",
        ):
            _settle_selector(case)
        if case.method == "POST" and case.path == "/jobs/":
            _settle_start_time(case)
        if case.method == "POST" and case.path == "/monitors/":
            _settle_monitor(case)
        if case.method == "POST" and case.path == "/monitors/{id}/snooze/":
            _settle_time(case, "until")
        if case.method == "POST" and case.path == "/webhooks/" and isinstance(case.body, dict):
            case.body["target_url"] = PUBLIC_TARGET
        if case.method == "POST" and case.path == "/devices/tags/":
            _make_room_for_tags(case)
    if case.method == "GET" and case.path == "/agent/commands/":
        requests.post(
            f"{BASE}/devices/{AGENT_SERIAL}/reboot/",
            headers={"Authorization": f"Token {AGENT_OWNER_TOKEN}"},
            timeout=TIMEOUT,
        ).raise_for_status()


@schemathesis.hook
def after_call(ctx, case, response):
    global _password, _install_token
    if (
        case.method == "POST"
        and case.path == "/change-password/"
        and response.status_code == 204
        and isinstance(case.body, dict)
    ):
        _password = case.body["new_password"]
    if (
        case.method == "POST"
        and case.path == "/profile/install-token/"
        and response.status_code == 200
    ):
        _install_token = response.json()["install_token"]
    if (
        case.path in ("/agent/commands/", "/agent/heartbeat/")
        and case.method in ("GET", "POST")
        and response.status_code == 200
    ):
        for command in response.json().get("commands", []):
            requests.post(
                f"{BASE}/agent/commands/{command['id']}/ack/",
                json={"status": "done"},
                headers={"Authorization": f"Device {AGENT_DEVICE_TOKEN}"},
                timeout=TIMEOUT,
            ).raise_for_status()


# What a multipart part's name cannot hold in its header (see the module's
# documentation).
_UNWRITABLE_IN_HEADER = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\\]")


def _drop_unwritable_multipart_names(case) -> None:
    if case.media_type == "multipart/form-data" and isinstance(case.body, dict):
        case.body = {
            name: value
            for name, value in case.body.items()
            if not _UNWRITABLE_IN_HEADER.search(name)
        }
