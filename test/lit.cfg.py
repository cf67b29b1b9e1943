"""lit configuration: runs without CMake using the pip `lit` and `filecheck` of the project's venv."""
import os
import sys

import lit.formats

config.name = "fusion-opt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "lit", "Output")
config.excludes = ["python", "Output", "inputs", "lit.cfg.py", "fuzz"]  # fuzz: reproducer inputs for pytest

# The venv's bin/ (fusion-opt, filecheck) comes first, whichever python runs lit.
bindir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bindir, os.environ.get("PATH", "")])
config.environment["FILECHECK_OPTS"] = "-enable-var-scope"
config.environment["FUSION_OPT_UNCALIBRATED"] = "1"  # plans must not depend on this machine's last calibration
# ...nor on what this machine is (vector width, caches, load): `host` is a fixed reference description
config.environment["FUSION_OPT_HOST_DESC"] = os.path.join(config.test_source_root, "host-reference.json")
for var in ("HOME", "TMPDIR", "FUSION_OPT_CACHE"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "lit", "inputs")))
config.substitutions.append(("%passes", os.path.join(os.path.dirname(config.test_source_root), "passes")))
