#!/usr/bin/env python3
"""Sends the requests a client written for the public service sends, exactly as it sends them.

Standard library only. Prints one JSON object: for each request, the HTTP status, the error type of the answer and
what the caller needs from the body.

  public_service_requests.py --base-url URL --credentials ID:SECRET --environment ID --scan ID
                             --idle-environment ID --group-id ID --group-name NAME --rule ID
"""
import argparse
import base64
import json
import urllib.error
import urllib.parse
import urllib.request


class Client:
    def __init__(self, base_url, credentials):
        self.base_url = base_url.rstrip("/")
        self.token = base64.b64encode(credentials.encode()).decode()

    def call(self, method, path, body=None, authenticated=True, root_relative=False):
        """`path` under /v0, or with root_relative a path from the server's root (a link the server answered)."""
        data = None if body is None else json.dumps(body).encode()
        url = self.base_url + ("" if root_relative else "/v0") + path
        request = urllib.request.Request(url, data=data, method=method)
        if authenticated:
            request.add_header("Authorization", "Basic " + self.token)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode()
        try:
            answer = json.loads(text) if text else None
        except ValueError:
            answer = None
        return status, answer


def error_of(status, answer):
    kind = answer.get("type") if isinstance(answer, dict) else None
    return {"status": status, "type": kind}


def main():
    parser = argparse.ArgumentParser()
    for name in ("base-url", "credentials", "environment", "scan", "idle-environment", "group-id", "group-name", "rule"):
        parser.add_argument("--" + name, required=True)
    args = parser.parse_args()
    api = Client(args.base_url, args.credentials)
    results = {}

    # null for the lists the caller did not set: "not given".
    status, env = api.call("PATCH", "/environments/" + args.environment, {
        "name": "renamed by a public-service client",
        "compliance_families": None,
        "survey_resource_types": None,
        "remediate_resource_types": None,
    })
    results["update environment with null lists"] = {
        "status": status,
        "name": env.get("name") if status == 200 else None,
        "compliance_families": env.get("compliance_families") if status == 200 else None,
        "survey_resource_types": len(env.get("survey_resource_types", [])) if status == 200 else None,
        "remediate_resource_types": env.get("remediate_resource_types") if status == 200 else None,
    }
    status, rule = api.call("POST", "/rules", {
        "name": "Versioned buckets from a public-service client",
        "description": "S3 buckets keep versioning.",
        "resource_type": "PROVA.S3.Bucket",
        "rule_text": 'resource.properties.versioning == "Enabled"',
        "severity": "Medium",
        "providers": None,
        "families": None,
    })
    results["create rule with null lists"] = {
        "status": status,
        "providers": rule.get("providers") if status == 201 else None,
        "families": rule.get("families") if status == 201 else None,
    }
    status, updated = api.call("PATCH", "/rules/" + args.rule, {"description": "Still versioned.", "providers": None, "families": None})
    results["update rule with null lists"] = {
        "status": status,
        "description": updated.get("description") if status == 200 else None,
        "providers": updated.get("providers") if status == 200 else None,
        "families": updated.get("families") if status == 200 else None,
    }

    # The rule test input: via_download, and the scan alone (no resource_type).
    query = urllib.parse.urlencode({"scan_id": args.scan, "resource_type": "PROVA.S3.Bucket", "via_download": "true"})
    status, answer = api.call("GET", "/rules/test/input?" + query)
    link = (answer.get("links") or {}).get("output") if status == 200 else None
    entry = {"status": status, "link": link}
    if link:
        downloaded_status, downloaded = api.call("GET", link, root_relative=True)
        without_link = {key: value for key, value in answer.items() if key != "links"}
        entry["download"] = {"status": downloaded_status, "same document": downloaded == without_link}
        entry["download without credentials"] = error_of(*api.call("GET", link, authenticated=False, root_relative=True))
    results["rule test input via download"] = entry

    # The rule test itself, via_download: its link downloads the same answer.
    rule_test = {"scan_id": args.scan, "rule_text": 'resource.properties.versioning == "Enabled"', "resource_type": "PROVA.S3.Bucket"}
    status, answer = api.call("POST", "/rules/test?via_download=true", rule_test)
    link = (answer.get("links") or {}).get("output") if status == 200 else None
    entry = {"status": status, "link": link is not None and link.startswith("/v0/rules/test/outputs/")}
    if link:
        downloaded_status, downloaded = api.call("GET", link, root_relative=True)
        without_link = {key: value for key, value in answer.items() if key != "links"}
        entry["download"] = {"status": downloaded_status, "same document": downloaded == without_link}
        entry["download without credentials"] = error_of(*api.call("GET", link, authenticated=False, root_relative=True))
    status, answer = api.call("POST", "/rules/test", rule_test)
    entry["without via_download"] = {"status": status, "links": "links" in answer}
    results["rule test via download"] = entry
    status, answer = api.call("GET", "/rules/test/input?" + urllib.parse.urlencode({"scan_id": args.scan}))
    results["rule test input of the whole scan"] = {
        "status": status,
        "resource_type": answer.get("resource_type", "absent") if status == 200 else None,
        "types": sorted({document["type"] for document in answer["resources"]}) if status == 200 else None,
        "is_truncated": answer.get("is_truncated") if status == 200 else None,
    }

    # remediated on the events, beta_resources on the resource types.
    for name, values in (("true", ["true"]), ("false", ["false"]), ("both", ["true", "false"])):
        query = urllib.parse.urlencode([("environment_id", args.environment), ("max_items", "1000")] + [("remediated", v) for v in values])
        status, answer = api.call("GET", "/events?" + query)
        results["events remediated=" + name] = {
            "status": status,
            "outcomes": sorted({"%s %s" % (e["event_type"], json.dumps(e.get("remediated"))) for e in answer["items"]}) if status == 200 else None,
            "count": answer["count"] if status == 200 else None,
        }
    plain_status, plain = api.call("GET", "/metadata/provider_a/resource_types?region=us-east-1")
    beta_status, beta = api.call("GET", "/metadata/provider_a/resource_types?region=us-east-1&beta_resources=true")
    results["resource types with beta_resources"] = {"status": beta_status, "same as without": plain_status == 200 and beta == plain}

    # Refusals the public service answers 400 with the type of its BadRequestError.
    results["first scan"] = error_of(*api.call("POST", "/scans?environment_id=" + args.idle_environment))
    results["scan while one runs"] = error_of(*api.call("POST", "/scans?environment_id=" + args.idle_environment))
    invite = {"email": "invited.twice@example.com", "group_ids": [args.group_id], "expires": True}
    results["first invite"] = error_of(*api.call("POST", "/invites", invite))
    results["second invite to one address"] = error_of(*api.call("POST", "/invites", invite))
    results["group name taken"] = error_of(*api.call("POST", "/groups", {"name": args.group_name, "policy": "builtin:READONLY", "environment_ids": ["*"]}))

    print(json.dumps(results, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
