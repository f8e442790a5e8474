#!/usr/bin/env python3
"""Reads and accepts a console invitation as the console's page does, then uses the session it starts.

Standard library only. Prints one JSON object: for each step, the HTTP status and what the answer said.

  accept_invitation.py --base-url URL --token=TOKEN --password PASSWORD

TOKEN is what follows `#` in the invitation email's link (`<server>/console/invitation#<token>`). Give it with `=`:
a token may begin with `-`, which argparse would take for an option of its own.
"""
import argparse
import json
import urllib.error
import urllib.request


def send(base_url, method, path, body=None, cookie=None):
    """The status of a console API request, its JSON answer (None when it has none) and its Set-Cookie header."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base_url + "/console/api" + path, data=data, method=method)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if cookie is not None:
        request.add_header("Cookie", cookie)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, text, set_cookie = response.status, response.read().decode(), response.headers.get("Set-Cookie")
    except urllib.error.HTTPError as error:
        status, text, set_cookie = error.code, error.read().decode(), error.headers.get("Set-Cookie")
    try:
        answer = json.loads(text) if text else None
    except ValueError:
        answer = None
    return status, answer, set_cookie


def refusal(status, answer):
    return {"status": status, "type": answer.get("type") if isinstance(answer, dict) else None}


def main():
    parser = argparse.ArgumentParser()
    for name in ("base-url", "token", "password"):
        parser.add_argument("--" + name, required=True)
    args = parser.parse_args()
    base, path = args.base_url.rstrip("/"), "/invitations/" + args.token
    results = {}

    status, answer, _ = send(base, "GET", path)
    results["read the invitation"] = {"status": status, "email": answer.get("email"), "organization": answer.get("organization", {}).get("name")}

    status, answer, _ = send(base, "POST", path, {"password": "too short"})
    results["accept with a short password"] = refusal(status, answer)

    status, answer, set_cookie = send(base, "POST", path, {"password": args.password})
    cookie = set_cookie.split(";")[0] if set_cookie else None
    results["accept"] = {
        "status": status,
        "session_cookie": bool(cookie and cookie.startswith("console_session=")),
        "user": answer.get("user", {}).get("email") if isinstance(answer, dict) else None,
    }

    status, answer, _ = send(base, "GET", "/session", cookie=cookie)
    results["read the session with its cookie"] = {
        "status": status,
        "user": answer.get("user", {}).get("email"),
        "api_clients": answer.get("access", {}).get("api_clients"),
    }

    status, answer, _ = send(base, "POST", path, {"password": args.password})
    results["accept again"] = refusal(status, answer)
    status, answer, _ = send(base, "GET", path)
    results["read the used invitation"] = refusal(status, answer)
    status, answer, _ = send(base, "GET", "/invitations/" + "A" * 43)
    results["an unknown token"] = refusal(status, answer)

    print(json.dumps(results, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
