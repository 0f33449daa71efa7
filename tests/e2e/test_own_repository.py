"""docs/build-step.md ("Using ssegen in your own repository"), followed as written in a temp project.

Layout: ``<tmp>/ssegen`` is this repository (the page's clone beside the project, a symlink) and
``<tmp>/myapp`` the user's project with its own venv. The page's shell blocks run line by line in
that venv; its pyproject snippet is the project's configuration.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT, SPECS
from helpers.readme import doc_block
from helpers.trees import file_tree
from helpers.waiting import wait_for

# Installs ssegen into a fresh venv, as a user's repository does: .ci/run runs it (`pytest -m "sdk or slow"`).
pytestmark = pytest.mark.slow

BUILD_STEP = "docs/build-step.md"  # the walkthrough these tests follow

# The user's project is built by hatchling, the backend whose direct-reference rule the page states.
PROJECT_HEADER = (
    '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
    '[project]\nname = "myapp"\nversion = "0.1.0"\n\n'
)
SPEC = Path("api-specs") / "deepseek" / "asyncapi-page.txt"
EDIT = ("Unique identifier for the chat completion.", "Identifier of the chat completion.")


@dataclass(frozen=True)
class Installed:
    base: Path
    env: dict[str, str]
    wheel: Path

    def run(self, command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        """``command`` as a user types it, in the project's venv."""
        return subprocess.run(["bash", "-ec", command], cwd=cwd, env=self.env, capture_output=True, text=True)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A venv with ssegen installed by the page's install block, run from a project beside the clone."""
    base = tmp_path_factory.mktemp("own-repository")
    (base / "ssegen").symlink_to(ROOT, target_is_directory=True)
    home = base / "myapp"
    home.mkdir()
    venv.create(home / ".venv", with_pip=True)
    bin_dir = home / ".venv" / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(home / ".venv"))
    found = Installed(base, env, Path())
    for command in doc_block(BUILD_STEP, "sh", "pip wheel --no-deps").commands():
        done = found.run(command, home)
        assert done.returncode == 0, f"{BUILD_STEP}: `{command}` failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
    (wheel,) = (home / "dist").glob("ssegen-*.whl")
    where = found.run('python -c "import ssegen; print(ssegen.__file__)"; command -v ssegen', home)
    module, script = where.stdout.split()
    assert module.startswith(str(home / ".venv")) and script == str(bin_dir / "ssegen"), "the wheel is not what runs"
    return Installed(base, env, wheel)


def _project(installed: Installed, name: str, pyproject: str) -> Path:
    """A project folder holding the page's layout: `pyproject.toml`, `api-specs/deepseek`, `src/myapp`."""
    project = installed.base / name
    (project / "src" / "myapp").mkdir(parents=True)
    (project / "src" / "myapp" / "__init__.py").write_text("", encoding="utf-8")
    shutil.copytree(SPECS / "deepseek", project / SPEC.parent)
    (project / "pyproject.toml").write_text(PROJECT_HEADER + pyproject, encoding="utf-8")
    return project


def _edit_spec(project: Path, old: str, new: str) -> None:
    spec = project / SPEC
    text = spec.read_text(encoding="utf-8")
    assert old in text
    spec.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_readme_walkthrough_generate_check_edit_check_regenerate_watch(installed: Installed) -> None:
    config = doc_block(BUILD_STEP, "toml", "# your pyproject.toml")
    project = _project(installed, "walkthrough", config.text)
    sub = project / "src" / "myapp"
    out = sub / "llm_stream"
    generate, check, watch = doc_block(BUILD_STEP, "sh", "ssegen generate").commands()
    assert (generate, check, watch) == ("ssegen generate", "ssegen check", "ssegen watch")

    done = installed.run(generate, project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (out / "deepseek" / "models.py").is_file() and (out / "ssegen-manifest.json").is_file()
    from_root = file_tree(project, skip_top=(".venv", "dist"))
    imported = installed.run(
        'python -c "from myapp.llm_stream.deepseek import CHANNELS; print(len(CHANNELS))"', sub.parent
    )
    assert imported.returncode == 0 and int(imported.stdout) > 0, imported.stderr
    assert "from myapp.llm_stream.deepseek import channel" in (out / "deepseek" / "__init__.py").read_text()

    for folder in (sub, project / "api-specs"):
        done = installed.run(generate, folder)
        assert done.returncode == 0, done.stdout + done.stderr
        assert file_tree(project, skip_top=(".venv", "dist")) == from_root, (
            f"`ssegen generate` from {folder.name} wrote other bytes than from the root"
        )
    for folder in (project, sub):
        checked = installed.run(check, folder)
        assert checked.returncode == 0 and "up to date" in checked.stdout, checked.stdout + checked.stderr

    _edit_spec(project, *EDIT)
    checked = installed.run(check, project)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "stale: src/myapp/llm_stream/deepseek/models.py" in checked.stdout
    assert installed.run(check, sub).returncode == 1
    done = installed.run(generate, project)
    assert done.returncode == 0 and EDIT[1] in (out / "deepseek" / "models.py").read_text(encoding="utf-8")
    for folder in (project, sub):
        assert installed.run(check, folder).returncode == 0

    log = project / "watch.log"
    with log.open("w") as sink:
        proc = subprocess.Popen(
            ["bash", "-ec", f"exec {watch}"], cwd=project, env=installed.env, stdout=sink, stderr=sink
        )
    try:
        assert wait_for(lambda: "done in" in log.read_text(), timeout=60.0), log.read_text()
        time.sleep(0.5)  # armed once the first run is printed
        _edit_spec(project, EDIT[1], "Id of the chat completion.")
        assert wait_for(
            lambda: "Id of the chat completion." in (out / "deepseek" / "models.py").read_text(), timeout=60.0
        ), log.read_text()
        _edit_spec(project, "channels:\n", "channels: [\n")
        assert wait_for(lambda: "yaml-syntax" in log.read_text(), timeout=60.0), log.read_text()
        assert proc.poll() is None, "watch stopped at a broken spec"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_readme_dev_extra_installs_ssegen_only_with_the_hatch_setting(installed: Installed) -> None:
    config = doc_block(BUILD_STEP, "toml", "# your pyproject.toml").text
    url = "git+https://github.com/your-fork/ssegen"
    assert url in config
    with_wheel = config.replace(url, installed.wheel.as_uri())  # the fork's URL, here the wheel it builds
    project = _project(installed, "dev-extra", with_wheel)
    done = installed.run("pip install -e '.[dev]'", project)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]

    setting = "allow-direct-references = true"
    assert setting in with_wheel
    (project / "pyproject.toml").write_text(PROJECT_HEADER + with_wheel.replace(setting, ""), encoding="utf-8")
    refused = installed.run("pip install -e '.[dev]'", project)
    assert refused.returncode != 0 and "allow-direct-references" in refused.stdout + refused.stderr


def test_output_from_a_sub_folder_is_identical_when_package_is_derived_from_out(installed: Installed) -> None:
    """The page: `package` defaults to `out` without `src/`, from any folder of the project."""
    config = doc_block(BUILD_STEP, "toml", "# your pyproject.toml").text
    line = 'package = "myapp.llm_stream"'
    assert line in config
    project = _project(installed, "derived-package", config.replace(line, ""))
    assert installed.run("ssegen generate", project).returncode == 0
    from_root = file_tree(project, skip_top=(".venv", "dist"))
    assert installed.run("ssegen generate", project / "src" / "myapp").returncode == 0
    assert file_tree(project, skip_top=(".venv", "dist")) == from_root
    assert installed.run("ssegen check", project).returncode == 0
