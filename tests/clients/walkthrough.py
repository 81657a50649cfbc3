"""Log in, list the devices, reboot one and follow its command, log out, with
the Python client that
openapi-python-client generated from /openapi.json (the package
`devmgr_client`, on the path). Reads DEVMGR_URL, DEVMGR_EMAIL,
DEVMGR_PASSWORD and DEVMGR_SERIAL; prints what each call answered as one
JSON object, which tests/tests/e2e/api_clients.rs checks.
"""

import builtins
import json
import os
from uuid import UUID

from devmgr_client.types import Unset

# openapi-python-client 0.29 annotates the body of an operation that takes
# several media types (JSON and the two form encodings) with `| Unset`
# without importing `Unset` when the body is required; the name is supplied
# here so the generated modules import.
builtins.Unset = Unset

from devmgr_client import AuthenticatedClient, Client  # noqa: E402
from devmgr_client.api.accounts import login, logout  # noqa: E402
from devmgr_client.api.devices import get_device_command, list_devices, reboot_device  # noqa: E402
from devmgr_client.models import (  # noqa: E402
    AuthToken,
    CommandRecord,
    Detail,
    LoginJsonBody,
    RebootDispatched,
)

base = os.environ["DEVMGR_URL"]
answers = {}

with Client(base_url=base) as anonymous:
    reply = login.sync_detailed(
        client=anonymous,
        body=LoginJsonBody(email=os.environ["DEVMGR_EMAIL"], password=os.environ["DEVMGR_PASSWORD"]),
    )
    assert isinstance(reply.parsed, AuthToken), reply
    answers["login"] = reply.status_code.value
    token = reply.parsed.token

with AuthenticatedClient(base_url=base, token=token, prefix="Token") as client:
    reply = list_devices.sync_detailed(client=client)
    answers["list"] = [reply.status_code.value, [device.name for device in reply.parsed]]
    serial = UUID(os.environ["DEVMGR_SERIAL"])
    assert serial in [device.serial for device in reply.parsed], reply.parsed
    reply = reboot_device.sync_detailed(serial=serial, client=client)
    assert isinstance(reply.parsed, RebootDispatched), reply
    answers["reboot"] = [reply.status_code.value, reply.parsed.detail]
    command = reply.parsed.command
    # `Location` is where the reboot's command is read: follow it.
    location = reply.headers["location"]
    assert location == f"{base}/devices/{serial}/commands/{command.id}/", location
    reply = get_device_command.sync_detailed(serial=serial, id=command.id, client=client)
    assert isinstance(reply.parsed, CommandRecord), reply
    assert reply.parsed.id == command.id, (reply.parsed, command)
    answers["command"] = [reply.status_code.value, str(reply.parsed.status)]
    reply = logout.sync_detailed(client=client)
    answers["logout"] = reply.status_code.value
    reply = list_devices.sync_detailed(client=client)
    assert isinstance(reply.parsed, Detail), reply
    answers["after_logout"] = [reply.status_code.value, reply.parsed.detail]

print(json.dumps(answers))
