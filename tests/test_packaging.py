"""The set-up the README promises: one test command shared with CI and Docker, and a
wheel that carries everything the package reads at run time."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text("utf-8")
    section = text.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_test_one() -> None:
    commands = readme_commands()
    assert len(commands) == 2
    run, test = commands
    assert test == "scripts/test" and "pytest" not in run
    # The run command installs Orma alone: a package added with --no-deps makes pip's resolver
    # print an ERROR naming what that package declares and lacks.
    assert run.startswith("pip install -e . && ") and "--no-deps" not in run
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    assert test in ci.splitlines()
    script = (ROOT / "scripts" / "test").read_text("utf-8")
    assert "python -m pytest" in script and "apt-get install" in script and "CMAKE_ARGS" in script


def test_dockerfile_installs_like_ci() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text("utf-8")
    (docker_install,) = re.findall(r"^RUN (pip install .+)$", dockerfile, re.MULTILINE)
    test_command = (ROOT / "scripts" / "test").read_text("utf-8")
    # Docker installs what CI installs, minus what only the tests need.
    for step in docker_install.split(" && "):
        assert step.split(" -e ")[0] in test_command
    assert docker_install == "pip install -e ."  # nothing installed beside it (no --no-deps)
    assert "HEALTHCHECK" in dockerfile and "/health" in dockerfile
    assert re.search(r"^USER (?!root)\w+", dockerfile, re.MULTILINE)


@pytest.mark.slow
def test_wheel_carries_migrations_and_every_package(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w",
         str(tmp_path), str(ROOT)],
        check=True, capture_output=True,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("orma_proxy-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    migrations = sorted(p.name for p in (ROOT / "migrations").glob("*.sql"))
    assert migrations and all(f"orma_proxy/migrations/{m}" in names for m in migrations)
    for module in (
        "orma/__init__.py",
        "orma_proxy/__init__.py",
        "webui_passthrough/proxy.py",
        "orma_proxy/embed/minilm/tokenizer.json.gz",  # the offline model's tokenizer
        "orma_proxy/embed/minilm/NOTICE.txt",
    ):
        assert module in names
    # The viz page works offline: every file it loads, and the vendored library's licenses.
    static = ROOT / "orma_proxy" / "server" / "static" / "viz"
    shipped = sorted(p.relative_to(ROOT).as_posix() for p in static.rglob("*") if p.is_file())
    assert {
        "orma_proxy/server/static/viz/index.html",
        "orma_proxy/server/static/viz/viz.js",
        "orma_proxy/server/static/viz/viz.css",
        "orma_proxy/server/static/viz/vendor/3d-force-graph.min.js",
        "orma_proxy/server/static/viz/vendor/3d-force-graph.LICENSE",
        "orma_proxy/server/static/viz/vendor/THIRD_PARTY_LICENSES.txt",
    } <= set(shipped)
    assert all(path in names for path in shipped)


def test_the_server_runs_on_uvicorns_fast_loop_and_parser() -> None:
    """``orma proxy`` lets uvicorn pick ("auto"): the dependencies make that uvloop + httptools."""
    import uvicorn  # the project's own dependency; imported here to keep the module light

    config = uvicorn.Config(app="orma_proxy.server:create_app")
    factory = config.get_loop_factory()
    assert factory is not None
    loop = factory()
    try:
        expected = "asyncio" if sys.platform == "win32" else "uvloop"
        assert type(loop).__module__.split(".")[0] == expected
    finally:
        loop.close()
    config.load()  # resolves "auto" to a protocol class, as Server.run does
    assert "httptools" in config.http_protocol_class.__module__


def test_the_readme_is_a_short_front_door_and_its_links_resolve() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert len(readme) <= 12_000
    links = re.findall(r"\]\(([^)#]+)\)", readme)
    assert "docs/architecture.md" in links
    for link in links:
        if not link.startswith("http"):
            assert (ROOT / link).is_file(), link


def test_the_architecture_page_names_every_package() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text("utf-8")
    packages = [p.name for p in (ROOT / "orma_proxy").iterdir() if (p / "__init__.py").is_file()]
    assert len(packages) >= 10
    for name in [*packages, "webui_passthrough", "migrations"]:
        assert re.search(rf"^\s*{name}/\s+\S", page, re.MULTILINE), name
