"""Build the compiled (mypyc) rules engine from the same sources as the pure one, beside them, not over them.

    python shared/build_compiled.py        # run by `make install`; needs mypy (mypyc), a C compiler, Python headers

The extension modules land in `shared/build/compiled/` together with `SOURCES.sha256`, the digest
of the sources they were compiled from. Compiling in place (as black and mypy do for their wheels) would let a
stale `.so` shadow edited source, and would leave no pure build to fall back to: instead `torres_rules/__init__`
puts this folder first on the package's `__path__` only when the digest still matches the sources and
TORRES_RULES_PURE is not set (see `torres_rules/_loader.py`).

Exit status 0 also when compilation is impossible here (no compiler, no headers, no mypyc): it then removes any
earlier build, says why, and the engine runs pure.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

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
OUT = BUILD / COMPILED_DIR_NAME


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import setup

    package = SHARED / "torres_rules"
    paths = [f"torres_rules/{name}.py" for name in compiled_modules(package)]
    os.chdir(SHARED)  # mypyc names modules after the paths it is given: torres_rules/x.py -> torres_rules.x
    with tempfile.TemporaryDirectory(dir=BUILD) as staging:
        extensions = mypycify(paths, opt_level="3", target_dir=str(BUILD / "mypyc-c"),
                              group_name="torres_rules._native")
        for extension in extensions:
            extension.extra_compile_args += EXTRA_CFLAGS
        setup(name="torres-rules-compiled", ext_modules=extensions, script_args=[
            "--quiet", "build_ext", "--build-lib", staging, "--build-temp", str(BUILD / "tmp")])
        shutil.rmtree(OUT, ignore_errors=True)
        shutil.move(os.path.join(staging, "torres_rules"), OUT)
    (OUT / DIGEST_FILE).write_text(source_digest(package) + "\n")


def main() -> int:
    BUILD.mkdir(exist_ok=True)
    try:
        build()
    except (Exception, SystemExit) as exc:  # setuptools reports a failed compiler run as SystemExit
        shutil.rmtree(OUT, ignore_errors=True)
        print(f"torres_rules: compiled build impossible here ({type(exc).__name__}: {exc}); the pure build runs",
              file=sys.stderr)
        return 0
    print(f"torres_rules: compiled build in {OUT.relative_to(SHARED.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
