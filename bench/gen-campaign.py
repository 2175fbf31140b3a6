#!/usr/bin/env python3
"""Writes an inbox feed dump as NDJSON: MESSAGES messages whose images all come from URLS distinct URLs.

Usage: gen-campaign.py OUT [MESSAGES=100000] [URLS=1000] [request]
URLS=0 writes classic messages without any image (no asset at all: the cost of resolving and reporting alone).
With `request`, OUT is one createMessage request instead ({"request": {"notifications": [...]}}, one JSON document):
the same messages as notifications (ios_title, content, inbox_image, data, inbox_days), for the whole-document reader.
Messages cycle through banner, captioned, classic-with-image and three-slide carousels, with no button links,
so the distinct asset URLs of the resolved cards are exactly the image URLs (the count `make bench` checks).
Every message has the keys both SDKs require of a feed message (inbox_id, order, rt, text, action_type, status).
"""
import json
import sys

out = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
urls = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000
request = len(sys.argv) > 4 and sys.argv[4] == "request"


def image(n):
    return f"https://cdn.example.com/inbox/img-{n % urls:04d}.png"


def notification(message, params):
    note = {"ios_title": message["title"], "content": message["text"], "send_date": "now", "inbox_days": 7,
            "data": params}
    if "image" in message:
        note["inbox_image"] = message["image"]
    return note


with open(out, "w") as f:
    if request:
        f.write('{"request": {"application": "ABCDE-12345", "auth": "BENCH", "notifications": [\n')
    for i in range(count):
        kind = i % 4 if urls else 2
        params = {"displayType": ["banner", "captioned", "classic", "carousel"][kind], "campaign": f"c{i % 97}"}
        if kind == 3:
            params["carousel"] = [{"image": image(i + k), "title": f"Slide {k}"} for k in range(3)]
        message = {
            "inbox_id": f"m{i}",
            "order": i,
            "rt": 4102444800,
            "action_type": 0,
            "status": 1,
            "send_date": 1764400000 + i,
            "title": f"Offer {i}",
            "text": "Thirty percent off everything this week only",
        }
        if urls:
            message["image"] = image(i)
        if request:
            f.write(("," if i else "") + json.dumps(notification(message, params), separators=(",", ":")) + "\n")
            continue
        message["action_params"] = json.dumps(params)
        f.write(json.dumps(message, separators=(",", ":")) + "\n")
    if request:
        f.write("]}}\n")
