"""A real SMTP server for tests: aiosmtpd on 127.0.0.1, keeping every message.

Usage: python3 sink.py PORT OUTPUT_DIR   (PORT 0: any free port)

Environment: SINK_USER and SINK_PASSWORD, when both set, make AUTH (PLAIN or
LOGIN, over plain TCP) required before MAIL FROM.

Each accepted message becomes NNNNNN.eml (the bytes as received) and then
NNNNNN.json (envelope, decoded headers and text/HTML bodies), each written
under a temporary name and renamed, so a reader that sees the .json finds
both complete. Messages are stored before the 250 reply to DATA.

Recipients whose local part starts with "reject" are refused with 550,
those starting with "defer" with 451.

Prints "READY <port>" once listening; exits when stdin closes (the test
process ended) or on SIGTERM/SIGKILL.
"""

import asyncio
import email
import email.policy
import json
import logging
import os
import sys
import threading
import warnings

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


class Store:
    """Writes messages into the output directory, numbered in arrival order."""

    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.count = 0

    def _write(self, name, data):
        temp = os.path.join(self.out_dir, "." + name + ".tmp")
        with open(temp, "wb") as f:
            f.write(data)
        os.replace(temp, os.path.join(self.out_dir, name))

    def keep(self, envelope):
        self.count += 1
        stem = "%06d" % self.count
        raw = envelope.original_content
        self._write(stem + ".eml", raw)
        self._write(stem + ".json", json.dumps(summary(envelope, raw)).encode())


def body(message, subtype):
    part = message.get_body(preferencelist=(subtype,))
    if part is None or part.get_content_subtype() != subtype:
        return None
    return part.get_content().replace("\r\n", "\n")


def summary(envelope, raw):
    message = email.message_from_bytes(raw, policy=email.policy.default)
    return {
        "mail_from": envelope.mail_from,
        "rcpt_to": list(envelope.rcpt_tos),
        "headers": [[name, str(value)] for name, value in message.items()],
        "text": body(message, "plain"),
        "html": body(message, "html"),
    }


class Handler:
    def __init__(self, store):
        self.store = store

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        local = address.split("@", 1)[0].lower()
        if local.startswith("reject"):
            return "550 5.1.1 Mailbox unavailable"
        if local.startswith("defer"):
            return "451 4.3.0 Try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.store.keep(envelope)
        return "250 Message accepted for delivery"


def authenticator(user, password):
    expected = LoginPassword(user.encode(), password.encode())

    def check(server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and auth_data == expected
        return AuthResult(success=ok, handled=False)

    return check


def exit_when_stdin_closes():
    sys.stdin.buffer.read()
    os._exit(0)


async def main(port, out_dir):
    # AUTH over plain TCP is what a test sink wants; keep the log for errors.
    warnings.filterwarnings("ignore", message="Requiring AUTH while not requiring TLS")
    logging.getLogger("mail.log").setLevel(logging.ERROR)
    user, password = os.environ.get("SINK_USER"), os.environ.get("SINK_PASSWORD")
    options = {"hostname": "smtp-sink.test", "enable_SMTPUTF8": True}
    if user is not None and password is not None:
        options.update(
            authenticator=authenticator(user, password),
            auth_required=True,
            auth_require_tls=False,
        )
    handler = Handler(Store(out_dir))
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(handler, loop=loop, **options), host="127.0.0.1", port=port
    )
    print("READY %d" % server.sockets[0].getsockname()[1], flush=True)
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
