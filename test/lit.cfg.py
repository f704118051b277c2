# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "TX"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tx_obj_root, "test")

import sys
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%tx_libs", os.path.join(config.tx_obj_root, "lib")))
config.substitutions.append(("%tx_plugin", os.path.join(config.tx_obj_root, "lib", "TxPlugin.so")))
config.substitutions.append(("%mlir_lib_dir", config.llvm_lib_dir))
config.substitutions.append(("%cuda_toolkit", config.cuda_toolkit))
config.substitutions.append(("%tx_src", config.tx_src_root))
config.substitutions.append(("%tx_obj", config.tx_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Tools: ours first, then Debian's LLVM 22 (FileCheck, not, count live there).
tool_dirs = [os.path.join(config.tx_obj_root, "bin"), config.llvm_tools_dir]
tools = ["tx-opt", "mlir-opt", "mlir-runner", "mlir-translate", "llc", "FileCheck", "not", "count"]
if config.tx_sanitize:
    # Sanitizer build (-DTX_SANITIZE=ON): every ASan/UBSan/LSan report is
    # fatal. Debian's mlir-opt is not instrumented: it gets the ASan runtime
    # preloaded so that it can load the instrumented TxPlugin.so ("ASan
    # runtime does not come first in initial library list" otherwise).
    from lit.llvm.subst import ToolSubst
    config.environment["ASAN_OPTIONS"] = "detect_leaks=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    config.available_features.add("tx-sanitize")
    tools.remove("mlir-opt")
    tools.append(ToolSubst("mlir-opt", command="env", extra_args=[
        "LD_PRELOAD=" + config.tx_asan_runtime,
        os.path.join(config.llvm_tools_dir, "mlir-opt")]))
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", os.path.join(config.tx_obj_root, "bin"), append_path=True)

# mlir-runner invocation for the CPU execution tests.
config.substitutions.append(("%run_cpu", "mlir-runner -e main -entry-point-result=void -shared-libs=%s,%s" % (
    os.path.join(config.llvm_lib_dir, "libmlir_runner_utils.so"),
    os.path.join(config.llvm_lib_dir, "libmlir_c_runner_utils.so"))))

if os.path.exists(os.path.join(config.cuda_toolkit, "bin", "ptxas")):
    config.available_features.add("ptxas")
if os.path.exists(os.path.join(config.tx_obj_root, "lib", "libtx_cuda_runtime.so")):
    config.available_features.add("tx-runtime")

# A Python with PyTorch for the python/tx tests (test/Python): lit's own
# Python, else Debian's (/usr/bin/python3: python3-torch, which
# scripts/deps.sh installs for scripts/test.sh), else python3 on PATH (which
# may be a pyenv Python without torch). Feature "torch" when one imports it.
import shutil
import subprocess
tx_python = sys.executable
for candidate in [sys.executable, "/usr/bin/python3", shutil.which("python3")]:
    if not candidate or not os.path.exists(candidate):
        continue
    try:
        ok = subprocess.run([candidate, "-c", "import torch"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    if ok:
        tx_python = candidate
        config.available_features.add("torch")
        break
config.substitutions.append(("%tx_python", tx_python))
