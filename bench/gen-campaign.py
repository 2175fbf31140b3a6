#!/usr/bin/env python3
"""Writes an inbox feed dump as NDJSON: MESSAGES messages whose images all come from URLS distinct URLs.

Usage: gen-campaign.py OUT [MESSAGES=100000] [URLS=1000]
URLS=0 writes classic messages without any image (no asset at all: the cost of resolving and reporting alone).
Messages cycle through banner, captioned, classic-with-image and three-slide carousels, with no button links,
so the distinct asset URLs of the resolved cards are exactly the image URLs (the count `make bench` checks).
Every message has the keys both SDKs require of a feed message (inbox_id, order, rt, text, action_type, status).
"""
import json
import sys

out = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
urls = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000


def image(n):
    return f"https://cdn.example.com/inbox/img-{n % urls:04d}.png"


with open(out, "w") as f:
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
        message["action_params"] = json.dumps(params)
        f.write(json.dumps(message, separators=(",", ":")) + "\n")
