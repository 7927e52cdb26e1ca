"""The toy benchmark's builder (``pfc.benchmarks.adapter.Builder``): ``n`` examples of one app, the order of the
cities drawn from ``seed``; ``pfc build toybench --users N --seed S --out DIR`` and a sweep's ``build``."""
from __future__ import annotations

import json
import random
from pathlib import Path

from pfc.errors import out_dir

PARAMS = {"type": "object", "properties": {"city": {"type": "string", "description": "a city"}}, "required": ["city"]}
TOOLS = [{"app": "Maps", "function": "route", "description": "Plan a route", "parameters": PARAMS},
         {"app": "Maps", "function": "search", "description": "Find a place", "parameters": PARAMS}]
CITIES = ["Lyon", "Oslo", "Rome", "Kyiv", "Pune", "Lima", "Faro", "Bern"]


def build(out: Path, n: int = 6, seed: int = 0) -> None:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cities = random.Random(seed).sample(CITIES, len(CITIES))
    rows = [{"id": f"t{i}", "benchmark": "toybench", "user_id": f"u{i % 2}", "query": f"{fn} in {city}",
             "gold": [{"app": "Maps", "function": fn, "arguments": {"city": city}}], "meta": {"level": i % 2}}
            for i in range(n) for fn, city in [(("route", "search")[i % 2], cities[i % len(cities)])]]
    (out / "tools.json").write_text(json.dumps(TOOLS))
    (out / "examples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def command(args) -> int:
    build(out_dir(args.out), n=args.users, seed=args.seed)
    return 0
