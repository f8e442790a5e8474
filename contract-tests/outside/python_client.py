#!/usr/bin/env python3
"""What a script written for the public service does, with Python's standard library only.

Compliance API (/v0, Basic auth with an API client id and secret): lists every environment, takes each one's
latest SUCCESS scan, pages its compliance results by rule to the end by `next_offset` and writes them to a CSV,
and pages its results by resource type, of every family and of one, checking that each type's counts add up.
Conductor (/api/v0, Basic auth as root): reads a process's history and cloud operations for a time range given as
`mm/dd/YYYY HH:MM` (UTC) values, encoded by `urllib.parse.urlencode` (`+` for the space, `%2F` and `%3A`).

Exits 0 with a JSON summary on stdout, or 1 naming the first surprise: an unexpected status, a missing field,
a page that does not advance.
"""

import argparse
import base64
import csv
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timezone

CSV_COLUMNS = [
    "environment_id",
    "environment_name",
    "scan_id",
    "family",
    "rule",
    "rule_id",
    "severity",
    "result",
    "failed_resource_count",
]


class Surprise(Exception):
    pass


class Api:
    def __init__(self, base_url, user, secret):
        self.base_url = base_url.rstrip("/")
        token = base64.b64encode(f"{user}:{secret}".encode()).decode()
        self.headers = {"Authorization": f"Basic {token}", "Accept": "application/json"}

    def get(self, path, query=None):
        url = self.base_url + path + ("?" + urllib.parse.urlencode(query, doseq=True) if query else "")
        request = urllib.request.Request(url, headers=self.headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, body = response.status, response.read()
        except urllib.error.HTTPError as error:
            raise Surprise(f"GET {url}: {error.code} {error.read().decode(errors='replace')[:500]}") from None
        if status != 200:
            raise Surprise(f"GET {url}: {status}, expected 200")
        try:
            return json.loads(body)
        except ValueError:
            raise Surprise(f"GET {url}: the answer is not JSON") from None


def field(record, name, kind, where):
    if name not in record:
        raise Surprise(f"{where}: no `{name}` in {json.dumps(record)[:300]}")
    value = record[name]
    # bool is an int in Python: a count must not be a boolean.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise Surprise(f"{where}: `{name}` is {value!r}, expected {kind.__name__}")
    return value


def listed(answer, fields, where):
    """The `items` of a conductor list whose `count` matches them, each item holding `fields` (name: type)."""
    items = field(answer, "items", list, where)
    if field(answer, "count", int, where) != len(items):
        raise Surprise(f"{where}: count does not match its items")
    for item in items:
        for name, kind in fields.items():
            field(item, name, kind, f"an item of {where}")
    return items


def pages(api, path, query, page_size):
    """Every item of a paged compliance list, following `next_offset` until `is_truncated` is false, and the
    number of pages read."""
    offset = 0
    count_pages = 0
    everything = []
    while True:
        where = f"GET {path} offset={offset}"
        page = api.get(path, {**query, "offset": offset, "max_items": page_size})
        items = field(page, "items", list, where)
        count = field(page, "count", int, where)
        truncated = field(page, "is_truncated", bool, where)
        count_pages += 1
        if count != len(items):
            raise Surprise(f"{where}: count {count} but {len(items)} items")
        if len(items) > page_size:
            raise Surprise(f"{where}: {len(items)} items, more than max_items={page_size}")
        everything.extend(items)
        if not truncated:
            if "next_offset" in page:
                raise Surprise(f"{where}: next_offset {page['next_offset']} on the last page")
            break
        next_offset = field(page, "next_offset", int, where)
        if not items or next_offset <= offset:
            raise Surprise(f"{where}: the page does not advance (next_offset {next_offset}, {len(items)} items)")
        offset = next_offset
    return everything, count_pages


def compliance_csv(api, csv_path, page_size):
    environments, _ = pages(api, "/environments", {}, page_size)
    summary = {"environments": len(environments), "scanned_environments": 0, "rows": 0, "result_pages": 0}
    seen_rows = set()
    with open(csv_path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for environment in environments:
            env_id = field(environment, "id", str, "environment")
            env_name = field(environment, "name", str, f"environment {env_id}")
            scans = api.get("/scans", {"environment_id": env_id, "status": "SUCCESS", "max_items": 1})
            items = field(scans, "items", list, f"scans of {env_id}")
            if not items:
                print(f"environment {env_name} ({env_id}) has no SUCCESS scan yet", file=sys.stderr)
                continue
            scan = items[0]
            scan_id = field(scan, "id", str, f"scan of {env_id}")
            if field(scan, "status", str, f"scan {scan_id}") != "SUCCESS":
                raise Surprise(f"scan {scan_id}: status {scan['status']}, asked for SUCCESS")
            if field(scan, "environment_id", str, f"scan {scan_id}") != env_id:
                raise Surprise(f"scan {scan_id}: belongs to environment {scan['environment_id']}, not {env_id}")
            summary["scanned_environments"] += 1
            results, result_pages = pages(api, f"/scans/{scan_id}/compliance_by_rules", {}, page_size)
            summary["result_pages"] += result_pages
            for result in results:
                where = f"compliance_by_rules of {scan_id}"
                row = {
                    "environment_id": env_id,
                    "environment_name": env_name,
                    "scan_id": scan_id,
                    "family": field(result, "family", str, where),
                    "rule": field(result, "rule", str, where),
                    "rule_id": field(result, "rule_id", str, where),
                    "severity": field(result, "severity", str, where),
                    "result": field(result, "result", str, where),
                    "failed_resource_count": field(result, "failed_resource_count", int, where),
                }
                key = (scan_id, row["family"], row["rule"], row["rule_id"])
                if key in seen_rows:
                    raise Surprise(f"{where}: {key[1:]} twice (pages overlap)")
                seen_rows.add(key)
                writer.writerow(row)
                summary["rows"] += 1
            for family in (None, "CIS"):
                counted = by_resource_type(api, scan_id, family, page_size)
                key = "resource_types" if family is None else f"{family}_resource_types"
                summary[key] = summary.get(key, 0) + counted["types"]
                key = "listed_failures" if family is None else f"{family}_listed_failures"
                summary[key] = summary.get(key, 0) + counted["listed"]
    return summary


# A type lists its first 100 failing resources (the spec's ComplianceByResourceType.noncompliant).
LISTED_FAILURES = 100


def by_resource_type(api, scan_id, family, page_size):
    """Every page of a scan's results by resource type (of one family, if given): each type once, in order, its
    counts adding up, its listed failing resources in id order, each failing at least one rule of the family."""
    query = {"family": [family]} if family else {}
    types, _ = pages(api, f"/scans/{scan_id}/compliance_by_resource_types", query, page_size)
    names = []
    listed_in_all = 0
    for item in types:
        where = f"compliance_by_resource_types of {scan_id} (family {family})"
        name = field(item, "resource_type", str, where)
        where += f" type {name}"
        total = field(item, "total", int, where)
        failing = field(item, "noncompliant_count", int, where)
        if field(item, "compliant", int, where) + failing != total:
            raise Surprise(f"{where}: compliant and noncompliant_count do not add up to total {total}")
        resources = field(item, "noncompliant", list, where)
        if len(resources) != min(failing, LISTED_FAILURES):
            raise Surprise(f"{where}: {len(resources)} failing resources listed of {failing}")
        ids = [field(resource, "resource_id", str, where) for resource in resources]
        if ids != sorted(set(ids)):
            raise Surprise(f"{where}: failing resources not listed once each in id order")
        for resource in resources:
            rules = field(resource, "failed_rules", list, where)
            if not rules:
                raise Surprise(f"{where}: {resource['resource_id']} is listed failing no rule")
            for rule in rules:
                field(rule, "rule", str, where)
                messages = field(rule, "messages", list, where)
                if field(rule, "family", str, where) != (family or rule["family"]) or not all(isinstance(m, str) for m in messages):
                    raise Surprise(f"{where}: {json.dumps(rule)[:300]}")
        names.append(name)
        listed_in_all += len(resources)
    if names != sorted(set(names)):
        raise Surprise(f"compliance_by_resource_types of {scan_id}: types not listed once each in order")
    return {"types": len(names), "listed": listed_in_all}


def minute(unix_seconds):
    """`mm/dd/YYYY HH:MM` in UTC, the conductor's time format."""
    return datetime.fromtimestamp(unix_seconds, tz=timezone.utc).strftime("%m/%d/%Y %H:%M")


def conductor_window(api, process, start, end):
    path = f"/processes/{urllib.parse.quote(process, safe='')}"
    everything = field(api.get(f"{path}/history"), "items", list, f"history of {process}")
    if not everything:
        raise Surprise(f"history of {process} is empty")
    times = [field(entry, "at", int, f"history of {process}") for entry in everything]
    # Without a range given, the minutes of the first and the last entry: the range must return the whole history.
    whole = start is None and end is None
    start = start or minute(min(times))
    end = end or minute(max(times))
    window = {"start": start, "end": end}

    entries = listed(api.get(f"{path}/history", window), {"id": str, "at": int, "event": str, "actor": str}, f"history of {process} {window}")
    if whole and [e["id"] for e in entries] != [e["id"] for e in everything]:
        raise Surprise(f"history of {process} between {start} and {end} is not its whole history")

    operations = listed(api.get(f"{path}/ops", window), {"job_id": str, "at": int, "operation": str, "status": str}, f"ops of {process} {window}")
    if whole and not operations:
        raise Surprise(f"ops of {process} between {start} and {end}: none, though its history made some")
    return {"history": len(entries), "ops": len(operations), "start": start, "end": end}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default=os.environ.get("BASE_URL", "http://127.0.0.1:3000"))
    parser.add_argument("--client-id", default=os.environ.get("CLIENT_ID"))
    parser.add_argument("--client-secret", default=os.environ.get("CLIENT_SECRET"))
    parser.add_argument("--root-secret", default=os.environ.get("CONDUCTOR_ROOT_SECRET"))
    parser.add_argument("--process", default="web-frontend", help="conductor process (fid or alias)")
    parser.add_argument("--start", help="mm/dd/YYYY HH:MM (UTC); default: the minute of the first history entry")
    parser.add_argument("--end", help="mm/dd/YYYY HH:MM (UTC); default: the minute of the last history entry")
    parser.add_argument("--csv", default="compliance_by_rules.csv")
    parser.add_argument("--page-size", type=int, default=100, help="max_items of each page (1-1000)")
    args = parser.parse_args()
    for name in ("client_id", "client_secret", "root_secret"):
        if not getattr(args, name):
            parser.error(f"--{name.replace('_', '-')} is required (or its environment variable)")

    try:
        summary = compliance_csv(Api(args.base_url + "/v0", args.client_id, args.client_secret), args.csv, args.page_size)
        summary["conductor"] = conductor_window(Api(args.base_url + "/api/v0", "root", args.root_secret), args.process, args.start, args.end)
    except Surprise as surprise:
        print(f"surprise: {surprise}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as error:
        print(f"surprise: cannot reach {args.base_url}: {error}", file=sys.stderr)
        return 1
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
