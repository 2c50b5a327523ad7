"""Write the bugs of benchmarks/real_bugs.toml (the miner's output), below the projects' own
sections, which are kept as written."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import real_bugs_lib as lib


def write(path: Path, bugs: list[lib.Bug], order: list[str]) -> None:
    text = path.read_text(encoding="utf-8")
    head = text.split(lib.BUGS_MARK)[0].rstrip("\n")
    rank = {name: index for index, name in enumerate(order)}
    bugs = sorted(bugs, key=lambda b: (rank.get(b.project, len(rank)), b.date, b.id))
    parts = [head, "", lib.BUGS_MARK, ""]
    for bug in bugs:
        parts += ["[[bugs]]", *(_pair(k, v) for k, v in asdict(bug).items()), ""]
    path.write_text("\n".join(parts), encoding="utf-8")


def _pair(name: str, value: object) -> str:
    if isinstance(value, bool):
        return f"{name} = {'true' if value else 'false'}"
    if isinstance(value, (list, tuple)):
        items = [json.dumps(v, ensure_ascii=False) for v in value]
        one = f"{name} = [{', '.join(items)}]"
        if len(one) <= 100:
            return one
        return f"{name} = [\n" + "".join(f"  {item},\n" for item in items) + "]"
    return f"{name} = {json.dumps(value, ensure_ascii=False)}"
