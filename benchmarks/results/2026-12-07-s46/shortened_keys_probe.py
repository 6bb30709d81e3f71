"""Every stored version's match keys, with the time of its shortened-name keys.

Run once per package (``PYTHONPATH=PKG``) against one data directory, then compare the
two pickles with ``--compare``:

    PYTHONPATH=OLD python shortened_keys_probe.py DATA_DIR old.pickle
    PYTHONPATH=NEW python shortened_keys_probe.py DATA_DIR new.pickle
    python shortened_keys_probe.py --compare old.pickle new.pickle
"""

from __future__ import annotations

import argparse
import pickle
import time
from pathlib import Path
from typing import Any


def keys_of(data_dir: Path) -> dict[str, Any]:
    """Per version: its shortened keys, all its keys, and the seconds of each."""
    from ontoretrieve import load_settings
    from ontoretrieve.index.build import mention_store
    from ontoretrieve.index.mention_keys import FormKind, keyed_forms, shortened_keys

    store = mention_store(load_settings(data_dir=data_dir))
    hashes = sorted({p.name.split("-")[0] for p in store.folder.glob(f"*-{store.key}.json.gz")})
    found: dict[str, Any] = {}
    for content_hash in hashes:
        terms = store.stored(content_hash, warn=False) or []
        own = [k for k in keyed_forms(terms) if k[4] != FormKind.ELLIPTIC.value]
        start = time.perf_counter()
        short = shortened_keys(own)
        short_s = time.perf_counter() - start
        start = time.perf_counter()
        whole = keyed_forms(terms)
        found[content_hash] = {"shortened": short, "keyed": whole, "shortened_s": short_s,
                               "keyed_s": time.perf_counter() - start}
    return found


def report(found: dict[str, Any]) -> None:
    total = sum(v["shortened_s"] for v in found.values())
    print(f"versions {len(found)}, shortened keys {total:.3f} s in all")
    for content_hash, v in sorted(found.items(), key=lambda kv: -kv[1]["shortened_s"])[:3]:
        print(f"  {content_hash[:12]} {len(v['shortened'])} keys {v['shortened_s']:.3f} s, "
              f"all keys {v['keyed_s']:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--compare", action="store_true")
    args = parser.parse_args()
    if args.compare:
        a, b = (pickle.loads(p.read_bytes()) for p in (args.first, args.second))
        same = a.keys() == b.keys() and all(
            a[h]["shortened"] == b[h]["shortened"] and a[h]["keyed"] == b[h]["keyed"]
            for h in a)
        print(f"versions {len(a)}; keys {sum(len(v['keyed']) for v in a.values())}; "
              f"equal: {same}")
        return
    found = keys_of(args.first)
    args.second.write_bytes(pickle.dumps(found))
    report(found)


if __name__ == "__main__":
    main()
