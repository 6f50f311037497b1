"""Build the compiled (mypyc) rules engine from the same sources as the pure one, beside them, not over them.

    python shared/build_compiled.py        # run by `make install`; needs mypy (mypyc), a C compiler, Python headers

The extension modules land in `shared/torres_rules/_compiled/` together with `SOURCES.sha256`, the digest of the
sources they were compiled from; `pip install ./shared` ships that folder as package data (the image build runs this
script first). Compiling in place (as black and mypy do for their wheels) would let a stale `.so` shadow edited
source, and would leave no pure build to fall back to: instead `torres_rules/__init__` puts this folder first on the
package's `__path__` only when the digest still matches the sources and TORRES_RULES_PURE is not set (see
`torres_rules/_loader.py`). mypyc's C sources and the object files stay in `shared/build/`.

With GCC the build is profile-guided: compiled once with counters, trained on `train_compiled.py`'s seeded games,
compiled again with the counts (see `_profile_guided`); with another compiler, or when that fails, it is compiled
once without a profile.

Exit status 0 also when compilation is impossible here (no compiler, no headers, no mypyc): it then removes any
earlier build, says why, and the engine runs pure. With `--require` (the image build) that is a failure instead:
an image never ships the pure engine unnoticed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parent
sys.path.insert(0, str(SHARED / "torres_rules"))
from _loader import COMPILED_DIR_NAME, DIGEST_FILE, compiled_modules, source_digest  # noqa: E402

BUILD = SHARED / "build"

# mypyc compiles every module and its runtime library (lib-rt) into one C file. Built as position-independent code
# for a shared object, GCC must assume that any of its non-static functions may be replaced at load time
# ("semantic interposition") and so never inlines them: the engine's every list and tuple index, unboxing and
# comparison stayed a call into lib-rt. Nothing interposes them, so these flags let GCC inline and call them
# directly (only the modules' init functions are exported, which Python marks visible itself); -fno-plt calls
# libpython through its GOT entry instead of a PLT stub. No change of target:
# the build stays portable. GCC and Clang flags; MSVC (Windows) has no interposition and gets none.
EXTRA_CFLAGS = [] if os.name == "nt" else ["-fno-semantic-interposition", "-fvisibility=hidden", "-fno-plt"]
OUT = SHARED / "torres_rules" / COMPILED_DIR_NAME
PROFILE = BUILD / "profile"
TRAINING = SHARED / "train_compiled.py"


def build() -> str:
    """Compile the engine into OUT; returns how ("profile-guided" or "without a profile")."""
    from mypyc.build import mypycify

    package = SHARED / "torres_rules"
    digest = source_digest(package)  # of the sources as compiled, even if one is edited while this runs
    paths = [f"torres_rules/{name}.py" for name in compiled_modules(package)]
    os.chdir(SHARED)  # mypyc names modules after the paths it is given: torres_rules/x.py -> torres_rules.x
    extensions = mypycify(paths, opt_level="3", target_dir=str(BUILD / "mypyc-c"), group_name="torres_rules._native")
    for extension in extensions:  # mypyc's own flags, under those of each compilation
        extension.base_args = (list(extension.extra_compile_args), list(extension.extra_link_args))
    problem = _profile_guided(extensions, digest)
    if problem is None:
        return "profile-guided"
    print(f"torres_rules: no profile-guided build here ({problem}); compiling without a profile", file=sys.stderr)
    _compile(extensions, digest, [])
    return "without a profile"


def _profile_guided(extensions: list[Any], digest: str) -> str | None:
    """GCC's profile-guided optimisation, as CPython's own `--enable-optimizations` build does it: compile with
    counters, run the training games (`train_compiled.py`), compile again with what they counted, so that GCC
    lays out, inlines and unrolls for the branches the engine really takes. Returns None when done, else why not
    (another compiler, a failed run): then the caller builds without a profile."""
    if os.name == "nt":
        return "MSVC"
    shutil.rmtree(PROFILE, ignore_errors=True)
    try:
        _compile(extensions, digest, ["-fprofile-generate", f"-fprofile-dir={PROFILE}", "-fprofile-update=single"])
        training = subprocess.run([sys.executable, str(TRAINING)], capture_output=True, text=True,
                                  env={**os.environ, "TORRES_RULES_PURE": "0", "PYTHONHASHSEED": "0"})
        if training.returncode != 0:
            return f"the training run failed: {training.stderr.strip()[-300:]}"
        if not any(PROFILE.rglob("*.gcda")):
            return "the training run left no GCC profile"
        _compile(extensions, digest, ["-fprofile-use", f"-fprofile-dir={PROFILE}", "-fprofile-partial-training",
                                      "-Wno-missing-profile"])
    except (Exception, SystemExit) as exc:  # setuptools reports a failed compiler run as SystemExit
        return f"{type(exc).__name__}: {exc}"
    finally:
        shutil.rmtree(PROFILE, ignore_errors=True)
    return None


def _compile(extensions: list[Any], digest: str, flags: list[str]) -> None:
    """Compile the mypyc C sources with `flags` into OUT (replacing it), recording the sources' digest."""
    from setuptools import setup

    for extension in extensions:
        compile_args, link_args = extension.base_args
        extension.extra_compile_args = [*compile_args, *EXTRA_CFLAGS, *flags]
        extension.extra_link_args = [*link_args, *flags]
    with tempfile.TemporaryDirectory(dir=BUILD) as staging:
        setup(name="torres-rules-compiled", ext_modules=extensions, script_args=[
            "--quiet", "build_ext", "--force", "--build-lib", staging, "--build-temp", str(BUILD / "tmp")])
        shutil.rmtree(OUT, ignore_errors=True)
        shutil.move(os.path.join(staging, "torres_rules"), OUT)
    (OUT / DIGEST_FILE).write_text(digest + "\n")


def main() -> int:
    BUILD.mkdir(exist_ok=True)
    try:
        how = build()
    except (Exception, SystemExit) as exc:  # setuptools reports a failed compiler run as SystemExit
        shutil.rmtree(OUT, ignore_errors=True)
        if "--require" in sys.argv[1:]:
            print(f"torres_rules: compiled build impossible here ({type(exc).__name__}: {exc})", file=sys.stderr)
            return 1
        print(f"torres_rules: compiled build impossible here ({type(exc).__name__}: {exc}); the pure build runs",
              file=sys.stderr)
        return 0
    print(f"torres_rules: compiled build ({how}) in {OUT.relative_to(SHARED.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
