#!/usr/bin/python3
"""An ICE peer we did not write, for interop tests: aiortc's aioice.

Speaks JSON lines with the test over stdin/stdout:
  peer -> test  {"ufrag": ..., "pwd": ..., "candidates": [candidate, ...]}   after gathering
  test -> peer  {"ufrag": ..., "pwd": ..., "candidates": [candidate, ...]}   the agent's side
  peer -> test  {"connected": true, "local": "host:port", "remote": "host:port"}
                or {"connected": false, "error": "..."}
Then every datagram the peer receives is sent straight back (an echo), until stdin closes.
A candidate is {"foundation", "component", "priority", "address", "port", "type",
"relatedAddress", "relatedPort"} (RFC 8839 fields, as ICECandidate names them).

aioice gathers every interface address except 127.0.0.1 and ::1, so tests run it in a network
namespace whose only usable address is 127.0.0.2.
"""
import argparse
import asyncio
import json
import sys

from aioice import Candidate, Connection


def to_json(candidate):
    return {
        "foundation": candidate.foundation,
        "component": candidate.component,
        "priority": candidate.priority,
        "address": candidate.host,
        "port": candidate.port,
        "type": candidate.type,
        "relatedAddress": candidate.related_address,
        "relatedPort": candidate.related_port,
    }


def from_json(fields):
    return Candidate(
        foundation=fields["foundation"],
        component=fields["component"],
        transport="udp",
        priority=fields["priority"],
        host=fields["address"],
        port=fields["port"],
        type=fields["type"],
        related_address=fields.get("relatedAddress"),
        related_port=fields.get("relatedPort"),
    )


def emit(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


async def echo(connection):
    while True:
        data = await connection.recv()
        await connection.send(data)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--controlling", action="store_true")
    parser.add_argument("--remote-lite", action="store_true", help="the agent under test is ICE-lite")
    options = parser.parse_args()

    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)

    connection = Connection(ice_controlling=options.controlling, use_ipv6=False)
    connection.remote_is_lite = options.remote_lite
    await connection.gather_candidates()
    emit({
        "ufrag": connection.local_username,
        "pwd": connection.local_password,
        "candidates": [to_json(c) for c in connection.local_candidates],
    })

    remote = json.loads(await stdin.readline())
    connection.remote_username = remote["ufrag"]
    connection.remote_password = remote["pwd"]
    for fields in remote["candidates"]:
        await connection.add_remote_candidate(from_json(fields))
    await connection.add_remote_candidate(None)

    try:
        await asyncio.wait_for(connection.connect(), timeout=30)
    except Exception as error:  # reported to the test, which fails with it
        emit({"connected": False, "error": repr(error)})
        return
    pair = connection._nominated.get(1)
    emit({
        "connected": True,
        "local": "%s:%d" % pair.local_addr if pair else "",
        "remote": "%s:%d" % pair.remote_addr if pair else "",
    })

    echoing = asyncio.ensure_future(echo(connection))
    await stdin.read()  # until the test closes stdin
    echoing.cancel()
    await connection.close()


if __name__ == "__main__":
    asyncio.run(main())
