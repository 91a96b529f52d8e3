"""Measure printshop's hand-written modules against the maintained libraries they stand in for.

Run from the repository after a build (the joins use output/*/):
    python bench/bench_libraries.py [--rounds 7]

Four comparisons, each printed as one line per side (median of the rounds; an import is timed
in a fresh process, less one that imports printshop alone):
- merge.py against pypdf (and pikepdf when installed): import, then joining every built-in
  game's component PDFs into one file with a bookmark per part; bytes written.
- forked.py against concurrent.futures' ProcessPoolExecutor (fork context): two workers
  started, one small job each answered, workers ended; the pool's import counted.
- fastcairo.py's import hook against a plain `import cairocffi`: a fresh process each.
- strict.py against pydantic (when installed): importing the library, against importing
  strict.py and checking the five built-in manifests with it.
The README's benchmark table is made by bench/run.py; docs/performance.md keeps the results.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def fresh(code: str, env: dict | None = None, rounds: int = 7) -> float:
    """Median wall seconds of a new Python process running ``code``, less one that imports
    printshop alone (its start-up is paid either way)."""
    def run(c: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", c], check=True, cwd=ROOT,
                       env={**os.environ, **(env or {})})
        return time.perf_counter() - start
    base = statistics.median(run("import printshop") for _ in range(rounds))
    return statistics.median(run(f"import printshop; {code}") for _ in range(rounds)) - base


def median_of(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def component_pdfs() -> list[tuple[str, bytes]]:
    parts = []
    for pdf in sorted(ROOT.glob("output/*/*.pdf")):
        if not pdf.name.endswith("-print-and-play.pdf"):
            parts.append((f"{pdf.parent.name}/{pdf.stem}", pdf.read_bytes()))
    if not parts:
        sys.exit("no PDFs under output/: run `printshop build` first")
    return parts


def join_merge(parts):
    from printshop.write.merge import merge
    return merge([(name, pdf) for name, pdf in parts], "joined")


def join_pypdf(parts):
    from pypdf import PdfReader, PdfWriter
    writer = PdfWriter()
    for name, pdf in parts:
        writer.append(PdfReader(io.BytesIO(pdf)), outline_item=name)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def join_pikepdf(parts):
    import pikepdf
    joined = pikepdf.Pdf.new()
    with joined.open_outline() as outline:
        for name, pdf in parts:
            src = pikepdf.Pdf.open(io.BytesIO(pdf))
            outline.root.append(pikepdf.OutlineItem(name, len(joined.pages)))
            joined.pages.extend(src.pages)
    out = io.BytesIO()
    joined.save(out, deterministic_id=True)
    return out.getvalue()


def installed(module: str) -> bool:
    from importlib.util import find_spec
    return find_spec(module) is not None


def bench_merge(rounds: int) -> None:
    parts = component_pdfs()
    from printshop.write.merge import page_sizes
    pages = sum(len(page_sizes(pdf)) for _, pdf in parts)
    print(f"join {len(parts)} component PDFs of output/ ({pages} pages):")
    sides = [("merge.py", "printshop.write.merge", join_merge), ("pypdf", "pypdf", join_pypdf)]
    if installed("pikepdf"):
        sides.append(("pikepdf", "pikepdf", join_pikepdf))
    for label, module, fn in sides:
        imp = fresh(f"import {module}", rounds=rounds)
        data = fn(parts)
        took = median_of(lambda: fn(parts), rounds)
        print(f"  {label:10} import {imp * 1000:6.1f} ms  join {took * 1000:7.1f} ms  "
              f"{len(data):>10,} bytes")


def _small(n: int) -> int:
    return n * 2


def bench_workers(rounds: int) -> None:
    print("two workers started, one small job each, ended:")

    def forked_round():
        from printshop.run import forked

        class Job:
            fn, args = staticmethod(_small), (21,)
        workers = []
        for _ in range(2):
            workers.append(forked.fork(workers, lambda: None))
        for w in workers:
            w.give(Job())
            w.send()
        for w in workers:
            while w.held:
                w.receive()
        forked.stop(workers, finished=True)

    def pool_round():
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
            assert list(pool.map(_small, [21, 21])) == [42, 42]

    for label, module, fn in (("forked.py", "printshop.run.forked", forked_round),
                              ("futures", "concurrent.futures.process", pool_round)):
        imp = fresh(f"import {module}", rounds=rounds)
        took = median_of(fn, rounds)
        print(f"  {label:10} import {imp * 1000:6.1f} ms  round {took * 1000:7.1f} ms")


def bench_cairo(rounds: int) -> None:
    print("import cairocffi in a fresh process:")
    hooked = fresh("import cairocffi", rounds=rounds)
    plain = fresh("import cairocffi", env={"PRINTSHOP_PLAIN_CAIRO": "1"}, rounds=rounds)
    print(f"  {'fastcairo':10} {hooked * 1000:6.1f} ms")
    print(f"  {'plain':10} {plain * 1000:6.1f} ms")


def pydantic_twin(record, made: dict):
    """A pydantic model with the same keys, types, defaults and bounds as a strict.py record
    (unknown keys refused, frozen), so both check the same manifests. The records' own
    cross-key validators are left out, which favours pydantic."""
    import typing

    import pydantic

    from printshop.load import strict
    if record in made:     # a record being made refers to itself: a forward reference
        return made[record] or record.__name__
    made[record] = None

    def field(f):
        kw = {k: getattr(f, k) for k in ("ge", "le", "min_length", "max_length", "pattern",
                                         "discriminator") if getattr(f, k) is not None}
        if f.default_factory is not None:
            kw["default_factory"] = lambda f=f: convert(f.default_factory())
        elif f.default is not strict.MISSING:
            kw["default"] = f.default
        return pydantic.Field(**kw)

    def convert(value):
        return value.model_dump() if isinstance(value, strict.Record) else value

    def twin(tp):
        if isinstance(tp, type) and issubclass(tp, strict.Record):
            return pydantic_twin(tp, made)
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is typing.Annotated:
            extra = [field(m) if isinstance(m, strict.Field) else m for m in tp.__metadata__]
            return typing.Annotated[(twin(args[0]), *extra)]
        if origin is None or not args:
            return tp
        if origin in (typing.Union, __import__("types").UnionType):
            return typing.Union[tuple(twin(a) for a in args)]
        return origin[tuple(twin(a) if a is not Ellipsis else a for a in args)]

    fields = {}
    for key, tp in typing.get_type_hints(record, include_extras=True).items():
        if key.startswith("_") or typing.get_origin(tp) is typing.ClassVar:
            continue
        default = record._declared_.get(key, strict.MISSING)
        if isinstance(default, strict.Field):
            fields[key] = (twin(tp), field(default))
        elif default is strict.MISSING:
            fields[key] = (twin(tp), ...)
        else:
            fields[key] = (twin(tp), convert(default))
    made[record] = pydantic.create_model(
        record.__name__, __config__=pydantic.ConfigDict(extra="forbid", frozen=True),
        **fields)
    names = {r.__name__: m for r, m in made.items() if m is not None}
    for model in names.values():
        model.model_rebuild(_types_namespace=names)
    return made[record]


def manifests() -> list[dict]:
    import yaml
    return [yaml.safe_load(p.read_text()) for p in sorted(ROOT.glob("data/*/game.yaml"))]


def bench_models(rounds: int) -> None:
    from printshop.load.specs import Manifest
    data = manifests()
    print(f"typed records: import, schema, checking the {len(data)} built-in manifests:")
    imp = fresh("import printshop.load.specs", rounds=rounds)
    took = median_of(lambda: [Manifest.model_validate(d) for d in data], rounds)
    print(f"  {'strict.py':10} import {imp * 1000:6.1f} ms  schema      -     "
          f"check {took * 1000:7.2f} ms")
    if not installed("pydantic"):
        print("  pydantic   not installed (pip install '.[bench]' to compare)")
        return
    imp = fresh("import pydantic; pydantic.BaseModel", rounds=rounds)
    start = time.perf_counter()
    model = pydantic_twin(Manifest, {})
    schema = time.perf_counter() - start
    took = median_of(lambda: [model.model_validate(d) for d in data], rounds)
    print(f"  {'pydantic':10} import {imp * 1000:6.1f} ms  schema {schema * 1000:6.1f} ms  "
          f"check {took * 1000:7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    bench_merge(args.rounds)
    bench_workers(args.rounds)
    bench_cairo(args.rounds)
    bench_models(args.rounds)


if __name__ == "__main__":
    main()
