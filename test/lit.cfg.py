# -*- Python -*-
# lit configuration for TileTag's IR tests.

import os
import shutil
import subprocess
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "TileTag"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tiletag_obj_root, "test")

config.substitutions.append(("%examples", os.path.join(config.tiletag_src_root, "examples")))
config.substitutions.append(("%tiletag_src", config.tiletag_src_root))
config.substitutions.append(("%tiletag_obj", config.tiletag_obj_root))
config.substitutions.append(("%tiletag_lib", os.path.join(config.tiletag_obj_root, "lib")))
config.substitutions.append(("%cxx_compiler", config.cxx_compiler))
config.substitutions.append(("%c_compiler", config.c_compiler))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
python = config.python_executable or sys.executable
config.substitutions.append(("%python", python))

llvm_config.with_system_environment(
    ["HOME", "TMPDIR", "CUDA_HOME", "ASAN_OPTIONS", "UBSAN_OPTIONS"])
llvm_config.use_default_substitutions()
# FileCheck, not, count and split-file come from Debian's LLVM 22.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.tiletag_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["tiletag-opt", "tiletag-run", "tiletag-agent", "tiletag-capi-test"],
    tool_dirs)

# Optional outside tools: tests that need one say `REQUIRES: <feature>` and are
# reported as UNSUPPORTED where it is missing.
if config.z3_executable and os.path.exists(config.z3_executable):
    config.available_features.add("z3")
if config.ptxas_executable and os.path.exists(config.ptxas_executable):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas_executable))
    # gpu-module-to-binary looks for ptxas on PATH.
    llvm_config.with_environment(
        "PATH", os.path.dirname(config.ptxas_executable), append_path=True)


# Tests that build TileTag in other ways (without Z3, a downstream project
# against the installed package) or load it into Debian's mlir-opt run once,
# in the plain build: an instrumented TileTag would need the sanitizer
# runtime in those processes too.
if config.tiletag_sanitize.upper() in ("OFF", "0", "FALSE", ""):
    config.available_features.add("build-tests")
    # Long sweeps run in full here and in part in the sanitizer build.
    config.available_features.add("plain-build")
    if os.path.exists(os.path.join(config.llvm_tools_dir, "mlir-opt")):
        config.available_features.add("mlir-opt-plugin")

# Dask (Debian's python3-distributed, for tiletag-agent --dask-scheduler).
if shutil.which("dask-scheduler") and shutil.which("dask-worker") and \
        subprocess.run(["/usr/bin/python3", "-c", "import distributed"],
                       capture_output=True).returncode == 0:
    config.available_features.add("dask")


def has_cuda_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, timeout=20, text=True)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


if has_cuda_gpu():
    config.available_features.add("cuda-gpu")

# An AMD GPU: the ROCm kernel driver's device (the HSA runtime opens it).
if os.path.exists("/dev/kfd"):
    config.available_features.add("rocm-gpu")
