#!/usr/bin/env python3
"""Reads compliance API answers as a polling client that keeps them does, with Python's standard library only.

For each path it asks with `If-None-Match` naming the ETag it kept for that path, if any: on `304 Not Modified` it
answers with the body it kept, on `200` it keeps the new body and ETag. What it keeps lives in a JSON state file,
one per API client (a tag names the caller's view too).

  conditional_gets.py --base-url URL --credentials ID:SECRET --state FILE PATH [PATH ...]

Prints one JSON list, one object per path: `status`, `etag` (as answered; on a 304 the one kept), `source`
(`server` or `kept`) and `body`. Exits 1 naming the first surprise: another status, a 200 without an ETag, a 304
with a body, for a path it kept nothing of, or naming another tag than the one sent.
"""
import argparse
import base64
import json
import os
import sys
import urllib.error
import urllib.request


class Surprise(Exception):
    pass


def get(base_url, credentials, path, etag):
    """Status, ETag header and body bytes of one GET, sent with If-None-Match when `etag` is given."""
    request = urllib.request.Request(base_url + path)
    request.add_header("Authorization", "Basic " + base64.b64encode(credentials.encode()).decode())
    request.add_header("Accept", "application/json")
    if etag is not None:
        request.add_header("If-None-Match", etag)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers.get("ETag"), response.read()
    except urllib.error.HTTPError as error:
        # urllib answers every status but 2xx as an error, 304 included.
        return error.code, error.headers.get("ETag"), error.read()


def read(base_url, credentials, kept, path):
    held = kept.get(path)
    status, etag, body = get(base_url, credentials, path, held["etag"] if held else None)
    if status == 304:
        if held is None:
            raise Surprise(f"GET {path}: 304 without If-None-Match")
        if body:
            raise Surprise(f"GET {path}: 304 with a body of {len(body)} bytes")
        if etag != held["etag"]:
            raise Surprise(f"GET {path}: 304 naming {etag!r}, not the tag sent {held['etag']!r}")
        return {"path": path, "status": status, "etag": etag, "source": "kept", "body": held["body"]}
    if status != 200:
        raise Surprise(f"GET {path}: {status} {body.decode(errors='replace')[:300]}")
    if not etag:
        raise Surprise(f"GET {path}: 200 without an ETag")
    parsed = json.loads(body)
    kept[path] = {"etag": etag, "body": parsed}
    return {"path": path, "status": status, "etag": etag, "source": "server", "body": parsed}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--credentials", required=True, help="client id and secret, as ID:SECRET")
    parser.add_argument("--state", required=True, help="JSON file of the answers kept, by path")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()

    kept = {}
    if os.path.exists(args.state):
        with open(args.state, encoding="utf-8") as state:
            kept = json.load(state)
    try:
        answers = [read(args.base_url.rstrip("/"), args.credentials, kept, path) for path in args.paths]
    except Surprise as surprise:
        print(str(surprise), file=sys.stderr)
        return 1
    with open(args.state, "w", encoding="utf-8") as state:
        json.dump(kept, state)
    json.dump(answers, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
