"""The shared layer builds for arm64 on any machine, without Docker, and holds only aarch64 or pure code, and every
module the code imports; one built without a requirement fails the package check (``ops.package_check``).

Runs layers/common/Makefile as `sam build` does (make build-CommonLayer with ARTIFACTS_DIR), so pip
fetches the manylinux aarch64 wheels (network, ~15 s; pip's cache makes reruns quicker). Every compiled
file's ELF header must name the aarch64 machine, and every installed wheel must be pure or aarch64.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from email.parser import Parser
from pathlib import Path
from typing import Literal

import pytest

from local.containers.package import isolated
from ops.package_check.imports import code_imports, missing, reader_files
from stack.template import ROOT

LAYER = ROOT / "layers" / "common"
EM_X86_64, EM_AARCH64 = 62, 183  # ELF e_machine values


def elf_machine(path: Path) -> int:
    header = path.read_bytes()[:20]
    assert header[:4] == b"\x7fELF", f"{path} is not an ELF file"
    byteorder: Literal["little", "big"] = "little" if header[5] == 1 else "big"  # EI_DATA
    return int.from_bytes(header[18:20], byteorder)  # e_machine


def foreign_binaries(root: Path, machine: int) -> list[str]:
    """Compiled modules (.so) under ``root`` built for another CPU than ``machine``."""
    return sorted(str(so.relative_to(root)) for so in root.rglob("*.so") if elf_machine(so) != machine)


def wheel_tags(site: Path) -> dict[str, list[str]]:
    tags = {}
    for wheel in site.glob("*.dist-info/WHEEL"):
        tags[wheel.parent.name] = Parser().parsestr(wheel.read_text()).get_all("Tag") or []
    return tags


def built_layer(tmp: Path, arch: str, source: Path = LAYER) -> Path:
    make = shutil.which("make")
    assert make, "make is needed, as by sam build's makefile method"
    # This interpreter's pip (sam build uses python3.13 from PATH): --platform makes the host's CPU irrelevant.
    env = os.environ | {"LAYER_ARCH": arch, "LAYER_PYTHON": sys.executable}
    run = subprocess.run(
        [make, "-s", "-C", str(source), "build-CommonLayer", f"ARTIFACTS_DIR={tmp}"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    return tmp / "python"


@pytest.fixture(scope="module")
def arm64_layer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_layer(tmp_path_factory.mktemp("layer-arm64"), "arm64")


def test_every_compiled_module_of_the_arm64_layer_is_aarch64(arm64_layer: Path) -> None:
    compiled = list(arm64_layer.rglob("*.so"))
    assert len(compiled) >= 3  # pydantic-core, cryptography, cffi (and wrapt): the check had something to check
    assert foreign_binaries(arm64_layer, EM_AARCH64) == []


def test_every_wheel_in_the_arm64_layer_is_pure_or_aarch64(arm64_layer: Path) -> None:
    tags = wheel_tags(arm64_layer)
    assert any(name.startswith("pydantic_core-") for name in tags)
    for name, wheel in tags.items():
        assert wheel, name
        assert all(tag.endswith("-any") or "aarch64" in tag for tag in wheel), (name, wheel)


def test_the_layer_holds_the_shared_code_and_the_streaming_bootstrap(arm64_layer: Path) -> None:
    assert (arm64_layer / "core" / "http.py").is_file()
    bootstrap = arm64_layer / "stream-bootstrap"  # AWS_LAMBDA_EXEC_WRAPPER=/opt/python/stream-bootstrap
    assert bootstrap.is_file() and os.access(bootstrap, os.X_OK)
    requirements = [line for line in (LAYER / "requirements.txt").read_text().splitlines() if "==" in line]
    pinned = {line.split("==")[0].strip().lower().replace("-", "_") for line in requirements}
    installed = {name.split("-")[0].lower() for name in wheel_tags(arm64_layer)}
    assert pinned <= installed


def test_every_module_has_bytecode_that_needs_no_source_timestamp(arm64_layer: Path) -> None:
    """/opt is read-only on Lambda: a module without bytecode is compiled again by every cold start. Each one has a
    hash-based, unchecked .pyc of this Python (flags 0b01, PEP 552), so no source-tree .pyc (timestamp-based) and no
    timestamp the zip loses decide whether it is used."""
    sources = sorted(arm64_layer.rglob("*.py"))
    assert len(sources) > 1000  # boto3, botocore, pydantic, powertools and core
    missing, checked = [], []
    for source in sources:
        compiled = Path(importlib.util.cache_from_source(str(source)))
        if not compiled.is_file():
            missing.append(str(source.relative_to(arm64_layer)))
        elif compiled.read_bytes()[:8] != importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little"):
            checked.append(str(compiled.relative_to(arm64_layer)))
    assert missing == [] and checked == [], (missing[:5], checked[:5])


def test_the_check_catches_a_binary_built_for_another_cpu() -> None:
    """This interpreter's own compiled modules are x86_64 (or aarch64 on an arm machine): one of them is foreign."""
    site = Path(sysconfig.get_paths()["platlib"])
    host = elf_machine(next(site.rglob("*.so")))
    assert host in (EM_X86_64, EM_AARCH64), sys.platform
    other = EM_AARCH64 if host == EM_X86_64 else EM_X86_64
    assert foreign_binaries(site / "pydantic_core", other) != []


def imported_by_the_code() -> set[str]:
    """Every module the layer's code and the functions' handlers import, anywhere (ops.package_check, check 1), but
    the knowledge worker's document readers, whose libraries are that function's own."""
    return code_imports({LAYER / "core": ["core"], ROOT / "functions": []}, skip=reader_files(LAYER / "core"))


def test_the_document_readers_libraries_are_the_knowledge_workers_alone(arm64_layer: Path) -> None:
    """pypdf and the Office readers are in no layer every function loads; the worker's requirements name each."""
    readers = code_imports({LAYER / "core": ["core"]}) - imported_by_the_code()
    libraries = {name.split(".")[0] for name in readers if not name.startswith("core")} - set(sys.stdlib_module_names)
    assert {"pypdf", "docx", "openpyxl", "pptx", "defusedxml"} <= libraries
    assert missing(libraries, arm64_layer, isolated()) == sorted(libraries)  # not one of them in the layer
    wanted = (ROOT / "functions/workers/knowledge/requirements.txt").read_text().lower()
    for distribution in ("pypdf", "python-docx", "openpyxl", "python-pptx", "defusedxml"):
        assert f"{distribution}==" in wanted


def test_the_layer_holds_every_module_the_code_imports(arm64_layer: Path) -> None:
    """Found without loading (an aarch64 layer on any machine): jwt and boto3 are imported on first use only."""
    names = imported_by_the_code()
    assert {"jwt", "boto3", "pydantic", "aws_lambda_powertools", "core.http"} <= names
    assert missing(names, arm64_layer, isolated()) == []


def test_a_dependency_removed_from_the_layers_requirements_fails_the_package_check(tmp_path: Path) -> None:
    """The layer built from its requirements less pyjwt: imports still work (jwt is imported on a portal token's
    first check), and the package check names the module the package lacks."""
    source = tmp_path / "source"
    shutil.copytree(LAYER, source, ignore=shutil.ignore_patterns("__pycache__"))
    requirements = source / "requirements.txt"
    kept = [line for line in requirements.read_text().splitlines() if not line.lower().startswith("pyjwt==")]
    assert len(kept) == len(requirements.read_text().splitlines()) - 1
    requirements.write_text("\n".join(kept) + "\n")
    layer = built_layer(tmp_path / "built", "arm64", source=source)
    assert not (layer / "jwt").exists()
    assert missing(imported_by_the_code(), layer, isolated()) == ["jwt"]
