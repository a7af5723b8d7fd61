"""Submitted bots as artifacts: manifests, archives from untrusted hands, hashes, unpacking."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.artifacts import (
    Artifact,
    ArtifactLimits,
    BotFile,
    Manifest,
    SubmissionError,
    content_hash,
    read_archive,
    read_submission,
    unpack,
)

MANIFEST = b'command = ["python", "bot.py"]\ngames = ["gin_rummy"]\ndescription = "test"\n'
BOT = b"print('hello')\n"


def make_dir(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def make_tar(members: list[tarfile.TarInfo], datas: list[bytes | None]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for info, data in zip(members, datas, strict=True):
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return raw.getvalue()


def tar_file(name: str, data: bytes, mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    return info, data


def tar_link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, None


def tar_of(*entries: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    return make_tar([e[0] for e in entries], [e[1] for e in entries])


def zip_of(files: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return raw.getvalue()


def test_directory_zip_and_tar_give_one_hash(tmp_path: Path) -> None:
    files = {"bot.toml": MANIFEST, "bot.py": BOT, "lib/helper.py": b"X = 1\n"}
    from_dir = read_submission(make_dir(tmp_path / "d", files))
    from_zip = read_archive(zip_of(files))
    from_tar = read_archive(tar_of(*(tar_file(n, d) for n, d in files.items())))
    assert from_dir.sha256 == from_zip.sha256 == from_tar.sha256
    assert from_dir.manifest.command == ("python", "bot.py")
    assert from_dir.manifest.games == ("gin_rummy",)
    assert from_dir.manifest.description == "test"
    assert [f.path for f in from_dir.files] == ["bot.py", "bot.toml", "lib/helper.py"]
    # The stored form reads back to the same artifact, byte for byte the same archive.
    again = read_archive(from_dir.archive())
    assert again.sha256 == from_dir.sha256
    assert again.archive() == from_dir.archive()


def test_an_archive_of_the_bots_folder_is_that_folder(tmp_path: Path) -> None:
    """`tar czf bot.tar.gz mybot` and `zip -r bot.zip mybot`, the usual way to pack a
    folder, put everything under mybot/: it was refused ("no bot.toml at the top"). The
    folder is the bot's directory, with the same files and hash as the folder itself."""
    files = {"bot.toml": MANIFEST, "bot.py": BOT, "lib/helper.py": b"X = 1\n"}
    folder = make_dir(tmp_path / "mybot", files)
    expected = read_submission(folder).sha256
    for kind in ("zip", "gztar"):  # with the folders' own entries, as the tools write them
        made = shutil.make_archive(str(tmp_path / kind), kind, tmp_path, "mybot")
        artifact = read_archive(Path(made).read_bytes())
        assert artifact.sha256 == expected, kind
        assert [f.path for f in artifact.files] == ["bot.py", "bot.toml", "lib/helper.py"]
    nested = {f"mybot/{name}": data for name, data in files.items()}
    for refused in (
        {"mybot/bot.py": BOT},  # no manifest in the folder either
        {**nested, "other/x.py": b""},  # two top folders
        {**nested, "README": b""},  # a file beside the folder
    ):
        with pytest.raises(SubmissionError, match=r"no bot\.toml at the top"):
            read_archive(zip_of(refused))


def test_hash_changes_with_content_and_exec_bit(tmp_path: Path) -> None:
    base = read_archive(zip_of({"bot.toml": MANIFEST, "bot.py": BOT}))
    edited = read_archive(zip_of({"bot.toml": MANIFEST, "bot.py": BOT + b"#\n"}))
    executable = read_archive(
        tar_of(tar_file("bot.toml", MANIFEST), tar_file("bot.py", BOT, 0o755))
    )
    assert len({base.sha256, edited.sha256, executable.sha256}) == 3


def test_flags_override_manifest(tmp_path: Path) -> None:
    art = read_submission(
        make_dir(tmp_path, {"bot.toml": MANIFEST, "bot.py": BOT}),
        command=["node", "bot.js"],
        games=["golf", "dingo"],
    )
    assert art.manifest.command == ("node", "bot.js")
    assert art.manifest.games == ("golf", "dingo")


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        (b"command = 'python bot.py'\ngames = ['golf']\n", "command is a list"),
        (b"command = []\ngames = ['golf']\n", "non-empty list"),
        (b"command = ['python']\n", "games must be a list"),
        (b"command = ['python']\ngames = ['chess']\n", "unknown game 'chess'"),
        (b"command = ['python']\ngames = ['golf']\nentry = 1\n", "unknown keys entry"),
        (b"command = [python\n", "not valid TOML"),
        (b"\xff\xfe", "not valid TOML"),
        # Every version stores its manifest outside the size quota: bounded, so a
        # submitter cannot fill the disk by sending one small archive again and again.
        (
            b"command = ['python']\ngames = ['golf']\ndescription = '" + b"A" * 2_001 + b"'\n",
            "description is 2,001 characters; at most 2,000",
        ),
        (b"command = [" + b"'x', " * 65 + b"]\ngames = ['golf']\n", "longer than 64 words"),
        (b"command = ['" + b"x" * 4_097 + b"']\ngames = ['golf']\n", "or 4,096 bytes"),
        (b"command = ['python']\ngames = [" + b"'*', " * 65 + b"]\n", "games must be a list"),
    ],
)
def test_bad_manifests_are_refused(manifest: bytes, message: str) -> None:
    with pytest.raises(SubmissionError, match=message):
        read_archive(zip_of({"bot.toml": manifest, "bot.py": BOT}))


def test_program_by_path_must_be_an_executable_file() -> None:
    manifest = b'command = ["./run"]\ngames = ["*"]\n'
    with pytest.raises(SubmissionError, match="not among the bot's files"):
        read_archive(tar_of(tar_file("bot.toml", manifest)))
    with pytest.raises(SubmissionError, match="not executable"):
        read_archive(tar_of(tar_file("bot.toml", manifest), tar_file("run", b"#!/bin/sh\n")))
    ok = read_archive(
        tar_of(tar_file("bot.toml", manifest), tar_file("run", b"#!/bin/sh\n", 0o755))
    )
    assert ok.manifest.games == ("*",)


@pytest.mark.parametrize(
    ("archive", "message"),
    [
        (b"just some text", "not a .zip or .tar.gz"),
        (b"PK\x03\x04garbage", "damaged or unsupported zip"),
        (b"\x1f\x8bgarbage", "damaged .tar.gz"),
        (zip_of({"bot.py": BOT}), "no bot.toml"),
        (zip_of({"bot.toml": MANIFEST, "/etc/passwd": b"x"}), "absolute paths"),
        (zip_of({"bot.toml": MANIFEST, "../escape.py": b"x"}), "leave the bot's directory"),
        (zip_of({"bot.toml": MANIFEST, "a/../../escape.py": b"x"}), "leave the bot's directory"),
        (zip_of({"bot.toml": MANIFEST}, {"secrets": "/etc/shadow"}), "symlink out"),
        (zip_of({"bot.toml": MANIFEST}, {"up": "../../arena.db"}), "symlink out"),
        (
            tar_of(tar_file("bot.toml", MANIFEST), tar_link("db", "/srv/arena/arena.db")),
            "symlink out",
        ),
        (tar_of(tar_file("bot.toml", MANIFEST), tar_link("x", "../x")), "symlink out"),
        (
            tar_of(tar_file("bot.toml", MANIFEST), tar_link("x", "/etc/passwd", tarfile.LNKTYPE)),
            "absolute",
        ),
        (tar_of(tar_file("bot.toml", MANIFEST), tar_link("x", "missing.py")), "not a file"),
        (tar_of(tar_file("bot.toml", MANIFEST), tar_file("bot.toml", MANIFEST)), "appears twice"),
        # Paths no file system can unpack: stored, they stopped every tournament of the bot.
        (zip_of({"bot.toml": MANIFEST, "a": b"x", "a/b": b"y"}), "'a' is a file, and 'a/b'"),
        (
            tar_of(tar_file("bot.toml", MANIFEST), tar_file("a/b/c", b"x"), tar_file("a/b", b"y")),
            "'a/b' is a file, and 'a/b/c'",
        ),
        (zip_of({"bot.toml": MANIFEST, "n" * 256: b"x"}), "a name in it longer than 255"),
        (zip_of({"bot.toml": MANIFEST, "/".join(["d" * 200] * 6): b"x"}), "longer than 1,024"),
    ],
)
def test_malformed_archives_are_refused(archive: bytes, message: str) -> None:
    with pytest.raises(SubmissionError, match=message):
        read_archive(archive)


def test_devices_and_fifos_are_refused() -> None:
    fifo = tarfile.TarInfo("pipe")
    fifo.type = tarfile.FIFOTYPE
    with pytest.raises(SubmissionError, match="not a regular file"):
        read_archive(tar_of(tar_file("bot.toml", MANIFEST), (fifo, None)))


def test_links_inside_the_directory_become_copies() -> None:
    art = read_archive(
        tar_of(
            tar_file("bot.toml", MANIFEST), tar_file("bot.py", BOT), tar_link("alias.py", "bot.py")
        )
    )
    assert {f.path: f.data for f in art.files}["alias.py"] == BOT


def test_size_limits_count_unpacked_bytes_not_headers() -> None:
    bomb = b"\0" * (3 * 1024 * 1024)  # compresses to a few KB
    archive = zip_of({"bot.toml": MANIFEST, "bomb.bin": bomb})
    assert len(archive) < 64 * 1024
    with pytest.raises(SubmissionError, match="more than 1,048,576 bytes unpacked"):
        read_archive(archive, ArtifactLimits(max_bytes=1024 * 1024))
    with pytest.raises(SubmissionError, match="the limit is 1,000"):
        read_archive(archive, ArtifactLimits(max_upload_bytes=1000))
    many = zip_of({"bot.toml": MANIFEST, **{f"f{i}.txt": b"x" for i in range(15)}})
    with pytest.raises(SubmissionError, match="more than 10 files"):
        read_archive(many, ArtifactLimits(max_files=10))


LIMITS = ArtifactLimits(max_bytes=100_000, max_files=10)  # 20 entries, 140,960 tar bytes


@pytest.mark.parametrize("kind", [tarfile.LNKTYPE, tarfile.SYMTYPE])
def test_a_link_counts_as_the_copy_it_is_stored_as(kind: bytes) -> None:
    # Links were free: 20,000 of them to one file made a 20,002-file bot of 53 bytes,
    # and 10 to a 10 MB file one of 110 MB, past every limit and the storage quota.
    big = tar_file("big.bin", b"\0" * 40_000)
    two = tar_of(tar_file("bot.toml", MANIFEST), big, tar_link("a", "big.bin", kind))
    assert read_archive(two, LIMITS).size == 80_000 + len(MANIFEST)
    three = tar_of(
        tar_file("bot.toml", MANIFEST), big, *(tar_link(n, "big.bin", kind) for n in "ab")
    )
    with pytest.raises(SubmissionError, match=r"more than 100,000 bytes unpacked \(at 'b'\)"):
        read_archive(three, LIMITS)
    many = tar_of(
        tar_file("bot.toml", MANIFEST),
        tar_file("empty", b""),
        *(tar_link(f"l{i}", "empty", kind) for i in range(12)),
    )
    with pytest.raises(SubmissionError, match="more than 10 files"):
        read_archive(many, LIMITS)


def test_zip_symlinks_count_as_copies() -> None:
    archive = zip_of(
        {"bot.toml": MANIFEST, "big.bin": b"\0" * 40_000}, {"a": "big.bin", "b": "big.bin"}
    )
    with pytest.raises(SubmissionError, match="more than 100,000 bytes unpacked"):
        read_archive(archive, LIMITS)


def test_directory_entries_count_and_stop_reading() -> None:
    dirs = []
    for i in range(30):
        info = tarfile.TarInfo(f"d{i}")
        info.type = tarfile.DIRTYPE
        dirs.append((info, None))
    with pytest.raises(SubmissionError, match="more than 20 entries"):
        read_archive(tar_of(tar_file("bot.toml", MANIFEST), *dirs), LIMITS)
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as archive:
        archive.writestr("bot.toml", MANIFEST)
        for i in range(30):
            archive.writestr(f"d{i}/", b"")
    with pytest.raises(SubmissionError, match="declares 31 entries"):
        read_archive(raw.getvalue(), LIMITS)


def test_a_zip_index_larger_than_its_entries_allow_is_not_read() -> None:
    # zipfile builds an entry per record however many the end record declares: a 50 MB
    # upload declaring 1.1 million took a server from 85 to 529 MB before its refusal.
    archive = bytearray(zip_of({"bot.toml": MANIFEST}))
    end = archive.rfind(b"PK\x05\x06")
    archive[end + 12 : end + 16] = (20 * 256 + 1).to_bytes(4, "little")  # its index size
    with pytest.raises(SubmissionError, match="at most 20 entries"):
        read_archive(bytes(archive), LIMITS)


def test_tar_headers_count_toward_the_unpacked_bytes() -> None:
    # A GNU long name is read into memory whole: 1 GB of one compressed to about 1 MB.
    info = tarfile.TarInfo("n" * 500_000)
    info.size = 1
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz", format=tarfile.GNU_FORMAT) as tar:
        tar.addfile(tarfile.TarInfo("bot.toml"), io.BytesIO(b""))
        tar.addfile(info, io.BytesIO(b"x"))
    assert len(raw.getvalue()) < 10_000
    with pytest.raises(SubmissionError, match="unpacks to more than 140,960 bytes"):
        read_archive(raw.getvalue(), LIMITS)


def _encrypted_zip() -> bytes:
    archive = bytearray(zip_of({"bot.toml": MANIFEST, "bot.py": BOT}))
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = archive.find(signature)
        while at >= 0:
            archive[at + flags_at] |= 1  # the "encrypted" flag
            at = archive.find(signature, at + 4)
    return bytes(archive)


def _corrupt_member(method: int) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", method) as archive:
        archive.writestr("bot.toml", MANIFEST)
        archive.writestr("bot.py", BOT * 200)
    data = bytearray(raw.getvalue())
    at = data.find(b"PK\x03\x04", 4)  # bot.py's local header
    name_len, extra_len = (
        int.from_bytes(data[at + 26 : at + 28], "little"),
        int.from_bytes(data[at + 28 : at + 30], "little"),
    )
    start = at + 30 + name_len + extra_len
    data[start : start + 8] = b"\xff" * 8  # its compressed bytes
    return bytes(data)


@pytest.mark.parametrize(
    "archive",
    [
        _encrypted_zip(),
        _corrupt_member(zipfile.ZIP_DEFLATED),
        _corrupt_member(zipfile.ZIP_BZIP2),
        _corrupt_member(zipfile.ZIP_LZMA),
        gzip.compress(b"\0" * 100)[:-12] + b"\xff" * 12,  # a damaged gzip end
    ],
    ids=["encrypted", "deflate", "bzip2", "lzma", "gzip"],
)
def test_undecodable_archives_are_a_clear_refusal(archive: bytes) -> None:
    # Each raised something other than SubmissionError, and the web upload's handler
    # dropped the connection with a traceback.
    with pytest.raises(SubmissionError, match="damaged"):
        read_archive(archive)


def test_a_deeply_nested_manifest_is_a_clear_refusal() -> None:
    deep = b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n"
    with pytest.raises(SubmissionError, match="not valid TOML"):
        read_archive(zip_of({"bot.toml": deep}))


def test_tar_member_over_the_budget_stops_reading() -> None:
    archive = tar_of(tar_file("bot.toml", MANIFEST), tar_file("big.bin", b"\0" * 5000))
    with pytest.raises(SubmissionError, match=r"at 'big\.bin'"):
        read_archive(archive, ArtifactLimits(max_bytes=4000))


def test_directory_symlinks(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    bot = make_dir(tmp_path / "bot", {"bot.toml": MANIFEST, "bot.py": BOT})
    os.symlink("bot.py", bot / "alias.py")
    assert {f.path for f in read_submission(bot).files} == {"bot.toml", "bot.py", "alias.py"}
    os.symlink(outside, bot / "leak.txt")
    with pytest.raises(SubmissionError, match="symlink out"):
        read_submission(bot)


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError, match="no such file"):
        read_submission(tmp_path / "nope")


def test_unpack_is_read_only_and_checked(tmp_path: Path) -> None:
    art = read_archive(
        tar_of(tar_file("bot.toml", MANIFEST), tar_file("bin/run", b"#!/bin/sh\n", 0o755))
    )
    where = unpack(art.archive(), art.sha256, tmp_path / "cache")
    assert where.name == art.sha256
    assert (where / "bin" / "run").read_bytes() == b"#!/bin/sh\n"
    assert os.stat(where / "bin" / "run").st_mode & 0o777 == 0o555
    assert os.stat(where / "bot.toml").st_mode & 0o777 == 0o444
    assert os.stat(where / "bin").st_mode & 0o777 == 0o555
    assert unpack(art.archive(), art.sha256, tmp_path / "cache") == where  # once
    # An archive that does not match the hash it is stored under is refused.
    other = read_archive(zip_of({"bot.toml": MANIFEST, "bot.py": BOT}))
    with pytest.raises(SubmissionError, match="does not match its hash"):
        unpack(other.archive(), art.sha256[:-1] + "0", tmp_path / "cache2")
    assert not (tmp_path / "cache2" / (art.sha256[:-1] + "0")).exists()


def test_a_stored_artifact_that_cannot_be_unpacked_is_a_clear_error(tmp_path: Path) -> None:
    """Intake refuses such paths now; one stored before is an error, not a traceback."""
    files = (
        BotFile("a", b"x", False),
        BotFile("a/b", b"y", False),
        BotFile("bot.toml", MANIFEST, False),
    )
    art = Artifact(files, Manifest(("python", "bot.py"), ("gin_rummy",), ""), content_hash(files))
    with pytest.raises(SubmissionError, match=r"cannot be unpacked: 'a/b'"):
        unpack(art.archive(), art.sha256, tmp_path / "cache")
    assert not list((tmp_path / "cache").iterdir())  # the staging folder is gone


def test_a_long_chain_of_links_resolves_every_link_to_its_file() -> None:
    """4,990 links, each to the next, listed in both orders: each link's chain is followed
    once now, its end kept for the links before it (0.09 s of CPU, where following every
    link from scratch took 0.8 s; measured by hand, not asserted)."""
    for order in (range(4_990), reversed(range(4_990))):
        links = [tar_link(f"l{i}", f"l{i + 1}" if i < 4_989 else "bot.py") for i in order]
        art = read_archive(tar_of(tar_file("bot.toml", MANIFEST), tar_file("bot.py", BOT), *links))
        assert len(art.files) == 4_992 and all(f.data in (BOT, MANIFEST) for f in art.files)


def test_archive_is_deterministic() -> None:
    art = read_archive(zip_of({"bot.toml": MANIFEST, "bot.py": BOT}))
    blob = art.archive()
    assert blob == art.archive()
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(blob))) as tar:
        assert {m.mtime for m in tar.getmembers()} == {0}
