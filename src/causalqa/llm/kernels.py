"""Which llama.cpp CPU kernels run, and choosing them when the build lets us.

`scripts/setup.sh` builds llama-cpp-python with ``GGML_BACKEND_DL=ON`` and
``GGML_CPU_ALL_VARIANTS=ON``: the CPU backend is compiled once per x86 feature level
(``libggml-cpu-haswell.so``, ``…-icelake.so``, …) and one of them is loaded at run time,
so one wheel uses AVX-512/VNNI where the CPU has them and still runs on a CPU without.
llama.cpp itself only looks for those files next to the Python executable and in the
current directory, so `ensure_cpu_backend` loads the best one from the package's own
``lib/`` folder before the first model is created:

- each variant scores itself from CPUID (``ggml_backend_score``; 0 = cannot run here) and
  the highest score wins;
- variants with AMX kernels are skipped unless ``CAUSALQA_GGML_AMX=1``: on this
  project's Xeon VMs CPUID and the kernel both offer AMX, yet the first AMX instruction
  dies with SIGILL (and a native build once crashed with SIGSEGV in
  ``ggml_backend_amx_mul_mat``), which no check short of running one can see;
- ``CAUSALQA_GGML_CPU=haswell`` (any variant name) forces one — the fallback when the
  chosen variant misbehaves on a machine; a path to a ``.so`` loads a CPU backend built
  elsewhere (``bench llm --kernels`` compares one built with ``-march=native``).

A static build (one CPU backend linked in, as older setups made) needs none of this;
`kernel_info` then just reports llama.cpp's feature string.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from causalqa.errors import ConfigError, LLMUnavailableError

ENV_VARIANT = "CAUSALQA_GGML_CPU"
ENV_AMX = "CAUSALQA_GGML_AMX"
AMX_VARIANTS = frozenset({"sapphirerapids"})
"""Variants built with AMX tile kernels (see the module docstring)."""

_PREFIX, _SUFFIX = "libggml-cpu-", ".so"
_lock = threading.Lock()
_loaded: KernelInfo | None = None


@dataclass(frozen=True)
class KernelInfo:
    """What CPU backend llama.cpp runs with in this process."""

    build: str
    """"dynamic" (a variant chosen at run time) or "static" (one backend linked in)."""
    variant: str | None = None
    """The variant loaded, e.g. "icelake" (dynamic builds only)."""
    chosen_by: str = ""
    """"score" (the best this CPU can run), "$CAUSALQA_GGML_CPU" or "static"."""
    scores: dict[str, int] = field(default_factory=dict)
    """Each variant's self-assessed score on this CPU (0: cannot run here)."""
    skipped: list[str] = field(default_factory=list)
    """Variants left out although they could run (AMX, see the module docstring)."""
    system_info: str = ""
    """llama.cpp's own feature string (``llama_print_system_info``)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def variant_files(*dirs: Path) -> dict[str, Path]:
    """The CPU-backend variants in `dirs`: name → file (``libggml-cpu-NAME.so``); the first
    directory holding a name wins."""
    found: dict[str, Path] = {}
    for d in dirs:
        for p in sorted(d.glob(f"{_PREFIX}*{_SUFFIX}")):
            if p.is_file():
                found.setdefault(p.name[len(_PREFIX) : -len(_SUFFIX)], p)
    return found


def score_variant(path: Path) -> int:
    """The variant's own score on this CPU (``ggml_backend_score``; 0 = cannot run)."""
    import _ctypes

    try:
        lib = ctypes.CDLL(str(path), mode=ctypes.RTLD_LOCAL)
    except OSError:
        return 0
    try:
        fn = lib.ggml_backend_score
        fn.restype, fn.argtypes = ctypes.c_int, []
        return int(fn())
    except AttributeError:
        return 0
    finally:
        try:
            _ctypes.dlclose(lib._handle)  # only the chosen variant stays mapped
        except OSError:
            pass


def choose_variant(
    scores: dict[str, int], *, forced: str | None = None, allow_amx: bool = False
) -> tuple[str, str, list[str]]:
    """The variant to load given each one's score: ``(name, chosen_by, skipped)``.

    `forced` (a name) wins when it can run here; otherwise the highest score among the
    variants that can run, AMX ones only with `allow_amx`. Raises `ConfigError` for a
    forced name that is unknown or cannot run, `LLMUnavailableError` when none can run.
    """
    if forced:
        if forced not in scores:
            raise ConfigError(
                f"${ENV_VARIANT}={forced!r} names no CPU kernel variant of this build",
                hint=f"use one of: {', '.join(sorted(scores))}",
            )
        if scores[forced] <= 0:
            raise ConfigError(
                f"${ENV_VARIANT}={forced!r}: this CPU lacks the instructions that variant needs",
                hint="choose one whose score is above 0: "
                + ", ".join(f"{k} ({v})" for k, v in sorted(scores.items())),
            )
        return forced, f"${ENV_VARIANT}", []
    runnable = {k: v for k, v in scores.items() if v > 0}
    skipped = sorted(k for k in runnable if k in AMX_VARIANTS and not allow_amx)
    usable = {k: v for k, v in runnable.items() if k not in skipped}
    if not usable:
        raise LLMUnavailableError(
            "no llama.cpp CPU kernel variant of this build can run on this CPU",
            hint="rebuild llama-cpp-python on this machine: bash scripts/setup.sh",
        )
    best = max(usable, key=lambda k: (usable[k], k))
    return best, "score", skipped


def _lib_dir(llama_cpp) -> Path:
    return Path(llama_cpp.__file__).resolve().parent / "lib"


def _variant_dirs(llama_cpp) -> list[Path]:
    """Where a wheel puts the variants: llama-cpp-python 0.3.36 installs them as modules
    into ``site-packages/bin`` (beside the ``llama_cpp`` package), not into its ``lib``."""
    lib = _lib_dir(llama_cpp)
    return [lib, lib.parent.parent / "bin"]


def _libggml_file(lib_dir: Path) -> Path:
    """The libggml file llama.cpp itself loaded. A wheel holds ``libggml.so`` and
    ``libggml.so.0`` as two copies, not a symlink, and libllama loads the second (its
    soname): a backend registered through the other copy is invisible to llama.cpp
    ("no backends are loaded")."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                path = Path(line.rsplit(" ", 1)[-1].strip())
                if path.parent == lib_dir and path.name.startswith("libggml.so"):
                    return path
    except OSError:  # not Linux: the soname's file is the best guess
        pass
    for name in ("libggml.so.0", "libggml.so"):
        if (lib_dir / name).exists():
            return lib_dir / name
    return lib_dir / "libggml.so"


def _libggml(llama_cpp):
    lib = ctypes.CDLL(str(_libggml_file(_lib_dir(llama_cpp))))
    lib.ggml_backend_reg_count.restype = ctypes.c_size_t
    lib.ggml_backend_load.restype = ctypes.c_void_p
    lib.ggml_backend_load.argtypes = [ctypes.c_char_p]
    return lib


def _system_info(llama_cpp) -> str:
    try:
        return llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip()
    except Exception:  # an old or odd binding: the report just lacks it
        return ""


def ensure_cpu_backend(llama_cpp, environ: dict[str, str] | None = None) -> KernelInfo:
    """Load the CPU kernels llama.cpp will run with (once per process) and say which.

    `llama_cpp` is the imported module; `environ` (default ``os.environ``) holds the
    ``CAUSALQA_GGML_CPU`` / ``CAUSALQA_GGML_AMX`` overrides.
    """
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        env = os.environ if environ is None else environ
        lib_dir = _lib_dir(llama_cpp)
        files = variant_files(*_variant_dirs(llama_cpp))
        if not (lib_dir / "libggml.so").exists():
            _loaded = KernelInfo(build="static", chosen_by="static")
            return _loaded
        ggml = _libggml(llama_cpp)
        if not files or ggml.ggml_backend_reg_count() > 0:
            # One backend linked in (or already loaded by someone else): nothing to choose.
            _loaded = KernelInfo(
                build="static" if not files else "dynamic",
                chosen_by="static" if not files else "preloaded",
                system_info=_system_info(llama_cpp),
            )
            return _loaded
        forced = env.get(ENV_VARIANT, "").strip() or None
        if forced and forced.endswith(_SUFFIX) and "/" in forced:
            # A CPU backend built elsewhere (e.g. -march=native, to compare kernels).
            if not Path(forced).is_file():
                raise ConfigError(f"${ENV_VARIANT}={forced}: no such file")
            files = {**files, forced: Path(forced)}
        scores = {name: score_variant(path) for name, path in files.items()}
        name, chosen_by, skipped = choose_variant(
            scores, forced=forced, allow_amx=env.get(ENV_AMX, "").strip() == "1"
        )
        with _quiet_stderr(env):  # llama.cpp logs "load_backend: loaded CPU backend …"
            handle = ggml.ggml_backend_load(str(files[name]).encode())
        if not handle:
            raise LLMUnavailableError(
                f"llama.cpp could not load its CPU kernels {files[name]}",
                hint=f"force another variant: {ENV_VARIANT}=haswell (or x64, the most portable)",
            )
        _loaded = KernelInfo(
            build="dynamic",
            variant=name,
            chosen_by=chosen_by,
            scores=scores,
            skipped=skipped,
            system_info=_system_info(llama_cpp),
        )
        return _loaded


@contextlib.contextmanager
def _quiet_stderr(env):
    """Send the C-level stderr to /dev/null for a moment (``CAUSALQA_LLAMA_VERBOSE``
    keeps it)."""
    if env.get("CAUSALQA_LLAMA_VERBOSE"):
        yield
        return
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def kernel_info() -> KernelInfo | None:
    """What `ensure_cpu_backend` loaded in this process (None before the first model)."""
    return _loaded
