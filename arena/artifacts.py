"""Submitted bots as content-addressed artifacts: reading a submission (a directory, a
``.zip`` or a ``.tar.gz``) safely, its ``bot.toml`` manifest, the canonical archive the
arena keeps, and unpacking that archive read-only where a bot runs.

A submission is untrusted input. Reading it never follows a path out of the bot's
directory, never trusts a size an archive header claims, and refuses (with the reason)
anything it cannot store faithfully: absolute or ``..`` paths, links that leave the bot's
directory, devices and fifos, duplicate names, too many files or too many bytes. A link
is stored as a copy of its file, so it counts as that many bytes more; directory entries
and archive headers are counted too, so no small archive can make the reader build
millions of entries or hold more than the limits' worth of unpacked data.

The artifact's identity is the sha256 of a canonical encoding of its files (sorted
paths, each with its executable bit and bytes), so the same files give the same hash
whichever archive format or file order they came in, and a stored archive is checked
against its hash whenever it is unpacked.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import lzma
import os
import posixpath
import shutil
import stat
import struct
import tarfile
import tempfile
import tomllib
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from referee.game import game_names

MANIFEST_NAME = "bot.toml"
# What a manifest may hold: every version stores its own copy, outside the size quota.
MAX_DESCRIPTION_CHARS = 2_000
MAX_COMMAND_BYTES = 4_096
MAX_COMMAND_WORDS = 64
MAX_GAMES_LISTED = 64
# What a file system can unpack: NAME_MAX for a path's part, and a whole path kept far
# below PATH_MAX, since it is unpacked under the arena's cache folder.
MAX_NAME_PART_BYTES = 255
MAX_PATH_BYTES = 1_024
_READ_CHUNK = 1 << 16
_SPOOL_BYTES = 4 << 20  # a .tar.gz's tar stream past this goes to a temporary file


class SubmissionError(ValueError):
    """A submission the arena refuses; the message says why and what to change."""


@dataclass(frozen=True)
class ArtifactLimits:
    """Bounds on one submission. Unpacked bytes are counted as they are read, not taken
    from archive headers, so a compression bomb stops at the bound."""

    max_bytes: int = 50 * 1024 * 1024  # all files, unpacked
    max_files: int = 5000
    max_upload_bytes: int = 50 * 1024 * 1024  # the archive as sent (RPC, web form)
    # What one submitter's versions may hold in all (unpacked, each content counted once,
    # removed versions too: their results keep them), so no token can fill the disk.
    max_stored_bytes: int = 200 * 1024 * 1024

    @property
    def max_entries(self) -> int:
        """Archive entries of any kind (files, links, directories): room for a directory
        per file, and a bound on what reading the archive's index may build."""
        return 2 * self.max_files

    @property
    def max_tar_bytes(self) -> int:
        """A .tar.gz's whole unpacked stream: the files' bytes, plus at most 2 KiB of
        headers and padding per entry. Bounds tar headers (a GNU long name, a pax record)
        that tarfile would read into memory whole, whatever size they claim."""
        return self.max_bytes + 2048 * self.max_entries


@dataclass(frozen=True)
class Manifest:
    """``bot.toml``: how to start the bot and which games it plays."""

    command: tuple[str, ...]  # run from the bot's own directory
    games: tuple[str, ...]  # game names, or ("*",) for any
    description: str = ""

    def to_toml(self) -> str:
        def quoted(text: str) -> str:
            return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

        lines = [
            f"command = [{', '.join(quoted(c) for c in self.command)}]",
            f"games = [{', '.join(quoted(g) for g in self.games)}]",
        ]
        if self.description:
            lines.append(f"description = {quoted(self.description)}")
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class BotFile:
    path: str  # relative POSIX path inside the bot's directory
    data: bytes
    executable: bool


@dataclass(frozen=True)
class Artifact:
    """A validated submission: its files (sorted by path), manifest and identity."""

    files: tuple[BotFile, ...]
    manifest: Manifest
    sha256: str

    @property
    def size(self) -> int:
        return sum(len(f.data) for f in self.files)

    def archive(self) -> bytes:
        """The canonical stored form: a gzip'd tar with fixed owners, times and modes,
        so the same files always give the same bytes."""
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for f in self.files:
                info = tarfile.TarInfo(f.path)
                info.size = len(f.data)
                info.mode = 0o755 if f.executable else 0o644
                info.mtime = 0
                info.uname = info.gname = ""
                tar.addfile(info, io.BytesIO(f.data))
        return gzip.compress(raw.getvalue(), mtime=0)


def content_hash(files: Iterable[BotFile]) -> str:
    digest = hashlib.sha256()
    for f in sorted(files, key=lambda f: f.path):
        name = f.path.encode()
        digest.update(b"%d:%s:%d:%d:" % (len(name), name, int(f.executable), len(f.data)))
        digest.update(f.data)
    return digest.hexdigest()


# ---- reading submissions ------------------------------------------------------------


def read_submission(
    path: Path,
    limits: ArtifactLimits = ArtifactLimits(),
    command: Iterable[str] | None = None,
    games: Iterable[str] | None = None,
) -> Artifact:
    """A directory, ``.zip`` or ``.tar.gz``/``.tgz`` holding a bot and its manifest.
    ``command`` and ``games``, when given, override the manifest's."""
    if path.is_dir():
        files = list(_read_directory(path, limits))
    elif path.is_file():
        if path.stat().st_size > limits.max_upload_bytes:
            raise SubmissionError(
                f"{path} is {path.stat().st_size:,} bytes; the limit is {limits.max_upload_bytes:,}"
            )
        return read_archive(path.read_bytes(), limits, command=command, games=games)
    else:
        raise SubmissionError(f"{path}: no such file or directory")
    return _artifact(files, command, games)


def read_archive(
    data: bytes,
    limits: ArtifactLimits = ArtifactLimits(),
    command: Iterable[str] | None = None,
    games: Iterable[str] | None = None,
) -> Artifact:
    """An uploaded archive's bytes (zip or gzip'd tar, told apart by their magic)."""
    if len(data) > limits.max_upload_bytes:
        raise SubmissionError(
            f"the archive is {len(data):,} bytes; the limit is {limits.max_upload_bytes:,}"
        )
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        files = _read_zip(data, limits)
    elif data[:2] == b"\x1f\x8b":
        files = _read_tar(data, limits)
    else:
        raise SubmissionError("not a .zip or .tar.gz archive")
    return _artifact(_without_top_folder(files), command, games)


def _without_top_folder(files: list[BotFile]) -> list[BotFile]:
    """An archive of the bot's folder (``tar czf bot.tar.gz mybot``, ``zip -r bot.zip
    mybot``) holds everything under one folder: that folder is the bot's directory when
    the manifest is at its top and nothing lies beside it."""
    tops = {f.path.split("/", 1)[0] for f in files}
    if len(tops) != 1 or any("/" not in f.path for f in files):  # a file at the top
        return files
    [top] = tops
    if not any(f.path == f"{top}/{MANIFEST_NAME}" for f in files):
        return files
    return [replace(f, path=f.path.split("/", 1)[1]) for f in files]


def _artifact(
    files: list[BotFile], command: Iterable[str] | None, games: Iterable[str] | None
) -> Artifact:
    by_path = {f.path: f for f in files}
    manifest_file = by_path.get(MANIFEST_NAME)
    if manifest_file is None:
        raise SubmissionError(
            f"no {MANIFEST_NAME} at the top of the bot's directory; it needs at least "
            "'command = [...]' and 'games = [...]'"
        )
    manifest = parse_manifest(manifest_file.data, command=command, games=games)
    _check_command(manifest, by_path)
    _check_folders(by_path)
    ordered = tuple(sorted(files, key=lambda f: f.path))
    return Artifact(ordered, manifest, content_hash(ordered))


def parse_manifest(
    text: bytes, command: Iterable[str] | None = None, games: Iterable[str] | None = None
) -> Manifest:
    try:
        data = tomllib.loads(text.decode())
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        raise SubmissionError(f"{MANIFEST_NAME} is not valid TOML: {exc}") from exc
    unknown = sorted(set(data) - {"command", "games", "description"})
    if unknown:
        raise SubmissionError(
            f"{MANIFEST_NAME}: unknown keys {', '.join(unknown)} "
            "(known: command, games, description)"
        )
    cmd = list(command) if command is not None else data.get("command")
    if isinstance(cmd, str):
        raise SubmissionError(f'{MANIFEST_NAME}: command is a list, e.g. ["python", "bot.py"]')
    if not cmd or not all(isinstance(c, str) and c for c in cmd):
        raise SubmissionError(
            f'{MANIFEST_NAME}: command must be a non-empty list of strings, e.g. ["python", "bot.py"]'
        )
    if len(cmd) > MAX_COMMAND_WORDS or sum(len(c.encode(errors="replace")) for c in cmd) > (
        MAX_COMMAND_BYTES
    ):
        raise SubmissionError(
            f"{MANIFEST_NAME}: command is longer than {MAX_COMMAND_WORDS} words or "
            f"{MAX_COMMAND_BYTES:,} bytes"
        )
    wanted = list(games) if games is not None else data.get("games")
    if isinstance(wanted, str):
        wanted = [wanted]
    if not wanted or not all(isinstance(g, str) for g in wanted) or len(wanted) > MAX_GAMES_LISTED:
        raise SubmissionError(
            f'{MANIFEST_NAME}: games must be a list of game names, e.g. ["gin_rummy"]'
        )
    bad = [g for g in wanted if g != "*" and g not in game_names()]
    if bad:
        raise SubmissionError(
            f"{MANIFEST_NAME}: unknown game {bad[0]!r}; games: {', '.join(game_names())} or '*'"
        )
    description = data.get("description", "")
    if not isinstance(description, str):
        raise SubmissionError(f"{MANIFEST_NAME}: description must be a string")
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise SubmissionError(
            f"{MANIFEST_NAME}: description is {len(description):,} characters; "
            f"at most {MAX_DESCRIPTION_CHARS:,}"
        )
    return Manifest(tuple(cmd), tuple(dict.fromkeys(wanted)), description)


def _check_command(manifest: Manifest, files: dict[str, BotFile]) -> None:
    """A program named by a relative path must be one of the bot's executable files; a
    bare name (python, node, ...) is looked up on the sandbox's PATH when the bot starts."""
    program = manifest.command[0]
    if "/" not in program or program.startswith("/"):
        return  # a runtime by name, or by its path on the machine that runs the bot
    relative = _clean_path(program)
    target = files.get(relative)
    if target is None:
        raise SubmissionError(f"the command's program {program!r} is not among the bot's files")
    if not target.executable:
        raise SubmissionError(
            f"the command's program {program!r} is not executable (chmod +x it before packing)"
        )


def _clean_path(name: str) -> str:
    """A member name as a relative POSIX path inside the bot's directory, or an error."""
    if "\x00" in name or "\\" in name:
        raise SubmissionError(f"{name!r}: file names may not hold NUL or backslash")
    if name.startswith("/"):
        raise SubmissionError(f"{name!r}: absolute paths are not allowed")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts:
        raise SubmissionError(f"{name!r}: an empty file name")
    if ".." in parts:
        raise SubmissionError(f"{name!r}: paths may not leave the bot's directory ('..')")
    path = "/".join(parts)
    if len(os.fsencode(path)) > MAX_PATH_BYTES or any(
        len(os.fsencode(part)) > MAX_NAME_PART_BYTES for part in parts
    ):
        raise SubmissionError(
            f"{path[:80]!r}...: a path longer than {MAX_PATH_BYTES:,} bytes, or a name in "
            f"it longer than {MAX_NAME_PART_BYTES}"
        )
    return path


def _check_folders(files: dict[str, BotFile]) -> None:
    """No file where another file's path needs a folder (``a`` and ``a/b``): such a bot
    could be stored but never unpacked."""
    for path in files:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if folder in files:
                raise SubmissionError(f"{folder!r} is a file, and {path!r} needs it as a folder")


class _Budget:
    """Counts entries, files and unpacked bytes against the limits as they are read."""

    def __init__(self, limits: ArtifactLimits) -> None:
        self.limits = limits
        self.bytes = 0
        self.files = 0
        self.entries = 0

    def entry(self) -> None:
        """One more archive entry of any kind, directories included."""
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise SubmissionError(
                f"more than {self.limits.max_entries:,} entries (files, links and "
                "directories) in the archive"
            )

    def file(self, name: str, size: int) -> None:
        """One more file of ``size`` bytes (a link's copy: its file's size)."""
        self.files += 1
        if self.files > self.limits.max_files:
            raise SubmissionError(f"more than {self.limits.max_files:,} files")
        self._grow(name, size)
        self.bytes += size

    def _grow(self, name: str, size: int) -> None:
        if self.bytes + size > self.limits.max_bytes:
            raise SubmissionError(
                f"the bot's files come to more than {self.limits.max_bytes:,} bytes "
                f"unpacked (at {name!r})"
            )

    def read(self, name: str, stream: IO[bytes]) -> bytes:
        self.file(name, 0)
        out = bytearray()
        while chunk := stream.read(_READ_CHUNK):
            out += chunk
            self._grow(name, len(out))
        self.bytes += len(out)
        return bytes(out)


def _with_links(
    regular: dict[str, BotFile], links: dict[str, str], what: str, budget: _Budget
) -> list[BotFile]:
    """Resolve links (member path -> target path, already inside the directory) to
    copies of the regular files they name, each counted as a file of its own (it is
    stored as one); anything else is refused."""
    files = dict(regular)
    ends: dict[str, str] = {}  # link -> where its chain ends: each chain is walked once
    for path, target in links.items():
        chain = {path: None}  # ordered set
        while target in links and target not in chain:  # a link to a link
            if target in ends:
                target = ends[target]
                break
            chain[target] = None
            target = links[target]
        ends.update(dict.fromkeys(chain, target))
        source = regular.get(target)
        if source is None:
            raise SubmissionError(
                f"{path!r} is a {what} to {target!r}, which is not a file in the bot's directory"
            )
        budget.file(path, len(source.data))
        files[path] = BotFile(path, source.data, source.executable)
    return list(files.values())


def _add(files: dict[str, BotFile], links: dict[str, str], path: str) -> None:
    if path in files or path in links:
        raise SubmissionError(f"{path!r} appears twice")


def _link_target(path: str, target: str) -> str:
    """Where a relative symlink at ``path`` points, lexically, inside the directory."""
    if target.startswith("/"):
        raise SubmissionError(f"{path!r} is a symlink out of the bot's directory ({target})")
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    if joined == ".." or joined.startswith("../"):
        raise SubmissionError(f"{path!r} is a symlink out of the bot's directory ({target})")
    return _clean_path(joined)


def _read_directory(root: Path, limits: ArtifactLimits) -> Iterator[BotFile]:
    budget = _Budget(limits)
    base = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in [*sorted(filenames), *[d for d in dirnames if Path(dirpath, d).is_symlink()]]:
            full = Path(dirpath, name)
            relative = full.relative_to(root).as_posix()
            info = full.lstat()
            if stat.S_ISLNK(info.st_mode):
                resolved = full.resolve()
                if not resolved.is_relative_to(base):
                    raise SubmissionError(
                        f"{relative!r} is a symlink out of the bot's directory ({os.readlink(full)})"
                    )
                if not resolved.is_file():
                    raise SubmissionError(
                        f"{relative!r} is a symlink to something that is not a file"
                    )
                info = resolved.stat()
                full = resolved
            elif not stat.S_ISREG(info.st_mode):
                raise SubmissionError(f"{relative!r} is not a regular file")
            with full.open("rb") as stream:
                data = budget.read(relative, stream)
            yield BotFile(_clean_path(relative), data, bool(info.st_mode & 0o111))


# What reading a zip's index may cost: zipfile builds an entry for every record in the
# central directory, however many the end record declares, so its size is bounded first.
_ZIP_INDEX_BYTES_PER_ENTRY = 256
_ZIP_END = struct.Struct("<4s4H2LH")  # end of central directory record
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_END = struct.Struct("<4sQ2H2L4Q")


def _zip_index(data: bytes) -> tuple[int, int]:
    """The entry count and central directory size a zip's end record declares (its
    ZIP64 record's, where it has one)."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - _ZIP_END.size - 0xFFFF))
    if end < 0 or end + _ZIP_END.size > len(data):
        raise SubmissionError("a damaged or unsupported zip archive: no end record")
    _, _, _, _, entries, size, _, _ = _ZIP_END.unpack_from(data, end)
    locator = end - _ZIP64_LOCATOR.size
    if locator >= 0 and data[locator : locator + 4] == b"PK\x06\x07":
        _, _, offset, _ = _ZIP64_LOCATOR.unpack_from(data, locator)
        if offset + _ZIP64_END.size > len(data) or data[offset : offset + 4] != b"PK\x06\x06":
            raise SubmissionError("a damaged or unsupported zip archive: bad ZIP64 end record")
        fields = _ZIP64_END.unpack_from(data, offset)
        entries, size = fields[7], fields[8]
    return entries, size


def _read_zip(data: bytes, limits: ArtifactLimits) -> list[BotFile]:
    budget = _Budget(limits)
    regular: dict[str, BotFile] = {}
    links: dict[str, str] = {}
    entries, index_bytes = _zip_index(data)
    if (
        entries > limits.max_entries
        or index_bytes > _ZIP_INDEX_BYTES_PER_ENTRY * limits.max_entries
    ):
        raise SubmissionError(
            f"the zip archive's index declares {entries:,} entries in {index_bytes:,} bytes; "
            f"at most {limits.max_entries:,} entries (files, links and directories) are read"
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        for info in archive.infolist():
            budget.entry()
            if info.is_dir():
                continue
            path = _clean_path(info.filename)
            _add(regular, links, path)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                with archive.open(info) as stream:
                    target = stream.read(4096).decode(errors="replace")
                links[path] = _link_target(path, target)
                continue
            if mode and stat.S_IFMT(mode) and not stat.S_ISREG(mode):
                raise SubmissionError(f"{path!r} is not a regular file")
            with archive.open(info) as stream:
                regular[path] = BotFile(path, budget.read(path, stream), bool(mode & 0o111))
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        NotImplementedError,
        EOFError,
        RuntimeError,  # an encrypted member
        OSError,
        zlib.error,
        lzma.LZMAError,
        ValueError,
    ) as exc:
        if isinstance(exc, SubmissionError):
            raise
        raise SubmissionError(f"a damaged or unsupported zip archive: {exc}") from exc
    return _with_links(regular, links, "symlink", budget)


def _gunzipped(data: bytes, limit: int, into: IO[bytes]) -> IO[bytes]:
    """``into``, holding a .tar.gz's tar stream and rewound; refused once the stream
    passes ``limit`` bytes."""
    written = 0
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        while chunk := stream.read(_READ_CHUNK):
            written += len(chunk)
            if written > limit:
                raise SubmissionError(
                    f"the .tar.gz unpacks to more than {limit:,} bytes (files, headers and padding)"
                )
            into.write(chunk)
    into.seek(0)
    return into


def _read_tar(data: bytes, limits: ArtifactLimits) -> list[BotFile]:
    budget = _Budget(limits)
    regular: dict[str, BotFile] = {}
    links: dict[str, str] = {}
    try:
        # Spooled to disk past a few MB: the tar stream need not sit in memory beside the
        # files read from it.
        with (
            tempfile.SpooledTemporaryFile(_SPOOL_BYTES) as spool,
            tarfile.open(
                fileobj=_gunzipped(data, limits.max_tar_bytes, spool), mode="r:"
            ) as archive,
        ):
            for member in archive:
                budget.entry()
                if member.isdir():
                    continue
                path = _clean_path(member.name)
                _add(regular, links, path)
                if member.issym():
                    links[path] = _link_target(path, member.linkname)
                elif member.islnk():
                    links[path] = _clean_path(member.linkname)
                elif member.isreg():
                    stream = archive.extractfile(member)
                    assert stream is not None
                    regular[path] = BotFile(
                        path, budget.read(path, stream), bool(member.mode & 0o111)
                    )
                else:
                    raise SubmissionError(f"{path!r} is not a regular file")
    except (tarfile.TarError, EOFError, OSError, zlib.error, ValueError) as exc:
        if isinstance(exc, SubmissionError):
            raise
        raise SubmissionError(f"a damaged .tar.gz archive: {exc}") from exc
    return _with_links(regular, links, "link", budget)


# ---- unpacking where a bot runs ------------------------------------------------------


def unpack(
    archive: bytes,
    sha256: str,
    cache_dir: Path,
    each_file: Callable[[], None] | None = None,
) -> Path:
    """The artifact's files under ``cache_dir/<sha256>``, read-only, unpacked once.
    The archive is checked against its hash first, so a damaged or altered store
    cannot make a bot run other code than the one submitted. ``each_file`` is called
    before each file is written: a caller that must stop raises there, and what was
    unpacked is removed."""
    target = cache_dir / sha256
    if target.is_dir():
        return target
    files = _read_tar(archive, ArtifactLimits(max_bytes=1 << 40, max_files=1 << 30))
    if content_hash(files) != sha256:
        raise SubmissionError(f"the stored artifact {sha256[:12]} does not match its hash")
    cache_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=cache_dir))
    try:
        for f in files:
            if each_file is not None:
                each_file()
            out = staging / f.path
            try:
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(f.data)
            except OSError as exc:  # stored before intake refused such paths
                raise SubmissionError(
                    f"the stored artifact {sha256[:12]} cannot be unpacked: {f.path[:80]!r}: "
                    f"{exc.strerror or exc}"
                ) from exc
            out.chmod(0o555 if f.executable else 0o444)
        for folder in sorted({p for f in files for p in (staging / f.path).parents}, reverse=True):
            if folder.is_relative_to(staging):
                folder.chmod(0o555)
        try:
            staging.rename(target)
        except OSError:
            if not target.is_dir():  # another process unpacked it first otherwise
                raise
    finally:
        if staging.exists():
            _remove_tree(staging)
    return target


def _remove_tree(path: Path) -> None:
    for folder, _, _ in os.walk(path):
        os.chmod(folder, 0o755)
    shutil.rmtree(path)
