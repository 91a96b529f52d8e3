"""Import cairocffi without paying for its start-up at every run.

cairocffi parses cairo's C declarations with cffi at every import (about 100 ms of a 0.6 s
build) and looks for the library with ``ctypes.util.find_library``, which runs ``ldconfig``,
``gcc`` and ``ld`` (about 30 ms). cffi can serialise parsed declarations into a plain Python
module once ("out-of-line ABI mode": no compiler, no build step for the user);
``_cairo_abi.py`` is that module, made from cairocffi's own declarations by
``python -c "import printshop.draw.fastcairo as f; f.write()"``. An import hook hands it to
cairocffi in place of the parse, but only while cairocffi's declarations still hash to the ones it was made from; otherwise
cairocffi imports the ordinary way. Drawing goes through cairocffi unchanged either way.
Set ``PRINTSHOP_PLAIN_CAIRO=1`` to turn the hook off.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from pathlib import Path

GENERATED = Path(__file__).with_name("_cairo_abi.py")
_LIBRARY_NAMES = ("cairo-2", "cairo", "libcairo-2")


def headers_digest(headers: str) -> str:
    """Return the hash that ties the serialised declarations to cairocffi's own."""
    import hashlib  # here, not at the top: every start of printshop imports this module

    return hashlib.sha256(headers.encode("utf-8")).hexdigest()


class _FFIModuleLoader:
    """Make ``cairocffi.ffi`` from the serialised declarations, or from cairocffi's own."""

    def __init__(self, real: importlib.machinery.ModuleSpec):
        self.real = real

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        from cairocffi import constants

        try:
            from . import _cairo_abi
        except ImportError:  # a cffi backend that cannot read this serialisation
            _cairo_abi = None
        if _cairo_abi is None or _cairo_abi.HEADERS != headers_digest(constants._CAIRO_HEADERS):
            self.real.loader.exec_module(module)
            return
        module.ffi = _cairo_abi.ffi

        def __getattr__(name):
            if name == "ffi_pixbuf":  # gdk-pixbuf support: rare, so parsed only when asked for
                plain: dict = {"__name__": "cairocffi._plain_ffi", "__package__": "cairocffi"}
                exec(compile(Path(self.real.origin).read_text(), self.real.origin, "exec"), plain)
                module.ffi_pixbuf = plain["ffi_pixbuf"]
                return module.ffi_pixbuf
            raise AttributeError(name)

        module.__getattr__ = __getattr__


class _PackageLoader:
    """Run cairocffi's own ``__init__`` with the library looked up by its file name."""

    def __init__(self, real: importlib.machinery.ModuleSpec):
        self.real = real

    def create_module(self, spec):
        return self.real.loader.create_module(spec)

    def exec_module(self, module) -> None:
        import ctypes.util

        find = ctypes.util.find_library
        # cairocffi tries dlopen("libcairo.so.2") when the lookup finds nothing, which is where
        # the lookup would have led on Linux anyway.
        ctypes.util.find_library = lambda name: None if name in _LIBRARY_NAMES else find(name)
        try:
            self.real.loader.exec_module(module)
        finally:
            ctypes.util.find_library = find


class _Finder:
    """Route the imports of ``cairocffi`` and ``cairocffi.ffi`` through the loaders above."""

    LOADERS = {"cairocffi": _PackageLoader, "cairocffi.ffi": _FFIModuleLoader}

    def find_spec(self, fullname, path=None, target=None):
        loader = self.LOADERS.get(fullname)
        if loader is None:
            return None
        real = importlib.machinery.PathFinder.find_spec(fullname, path)
        if real is None or real.loader is None:
            return None
        spec = importlib.machinery.ModuleSpec(fullname, loader(real), origin=real.origin,
                                              is_package=real.submodule_search_locations
                                              is not None)
        spec.submodule_search_locations = real.submodule_search_locations
        spec.has_location = True
        return spec


def install() -> None:
    """Put the finder in front of the import system (once; only on Linux; not if disabled)."""
    if (sys.platform.startswith("linux") and os.environ.get("PRINTSHOP_PLAIN_CAIRO") != "1"
            and "cairocffi" not in sys.modules
            and not any(isinstance(f, _Finder) for f in sys.meta_path)):
        sys.meta_path.insert(0, _Finder())


def generate() -> str:
    """Return the source of ``_cairo_abi.py`` for the installed cairocffi."""
    import tempfile

    from cffi import FFI
    from cairocffi import constants

    ffi = FFI()
    ffi.cdef(constants._CAIRO_HEADERS)
    ffi.set_source("printshop.draw._cairo_abi", None)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "abi.py")
        ffi.emit_python_code(str(out))
        body = out.read_text()
    return ("# Generated by printshop.draw.fastcairo.write() from cairocffi's declarations; "
            "do not edit.\n"
            f"HEADERS = {headers_digest(constants._CAIRO_HEADERS)!r}\n" + body)


def write() -> None:
    """Write ``_cairo_abi.py`` for the installed cairocffi (run after upgrading cairocffi)."""
    GENERATED.write_text(generate())
