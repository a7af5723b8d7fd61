"""The committed generated code must be exactly what scripts/gen_proto makes from proto/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_generated_code_matches_the_proto_files(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            "-I",
            str(ROOT / "proto"),
            f"--python_out={tmp_path}",
            f"--pyi_out={tmp_path}",
            f"--grpc_python_out={tmp_path}",
            *sorted(str(p) for p in (ROOT / "proto/referee/v1").glob("*.proto")),
        ],
        check=True,
        capture_output=True,
    )
    fresh = {p.name: p.read_bytes() for p in (tmp_path / "referee/v1").iterdir()}
    committed = {
        p.name: p.read_bytes()
        for p in (ROOT / "referee/v1").iterdir()
        if p.name != "__init__.py" and p.suffix in (".py", ".pyi")
    }
    assert sorted(fresh) == sorted(committed), "run scripts/gen_proto and commit the result"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"stale generated code {stale}: run scripts/gen_proto and commit the result"
