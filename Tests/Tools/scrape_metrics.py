#!/usr/bin/python3
"""Scrapes a Prometheus endpoint the way Prometheus does and parses the text with a parser we did
not write (prometheus_client's), for end-to-end tests. Prints one JSON object on stdout:
  {"status": 200, "families": {"name": "counter", ...}, "samples": [{"name": ..., "labels": {...}, "value": V}, ...],
   "text": "..."}
or, for another status, {"status": S, "headers": {...}, "body": "..."}. A text the parser refuses is an error
(exit 1, the parser's message on stderr).
"""
import argparse
import json
import ssl
import sys
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token")
    parser.add_argument("--cafile")
    arguments = parser.parse_args()
    request = urllib.request.Request(arguments.url, headers={"Accept": "text/plain;version=0.0.4"})
    if arguments.token:
        request.add_header("Authorization", "Bearer " + arguments.token)
    context = ssl.create_default_context(cafile=arguments.cafile) if arguments.cafile else None
    try:
        with urllib.request.urlopen(request, timeout=30, context=context) as response:
            text = response.read().decode("utf-8")
            content_type = response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        print(json.dumps({"status": error.code, "headers": dict(error.headers), "body": error.read().decode("utf-8", "replace")}))
        return 0
    families, samples = {}, []
    for family in text_string_to_metric_families(text):
        families[family.name] = family.type
        for sample in family.samples:
            samples.append({"name": sample.name, "labels": sample.labels, "value": sample.value})
    print(json.dumps({"status": 200, "contentType": content_type, "families": families, "samples": samples, "text": text}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
