// Without a CUDA driver, --device=cuda still compiles the kernels, then
// stops with a usage error (exit 2) that says what is missing.
// UNSUPPORTED: cuda-gpu
// REQUIRES: ptxas
// RUN: not tiletag-run %examples/gemm.mlir --device=cuda 2>&1 | FileCheck %s
// RUN: not tiletag-run %examples/gemm.mlir --device=tpu 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK: tiletag-run: error: --device=cuda: no CUDA driver (libcuda.so.1 cannot be opened)
// BAD: tiletag-run: error: --device must be cpu, cuda or rocm, not 'tpu'
// Timing options are for GPU runs.
// RUN: not tiletag-run %examples/gemm.mlir --repeat 3 2>&1 | FileCheck %s --check-prefix=REPEAT
// RUN: not tiletag-run %examples/gemm.mlir --skip-oracle 2>&1 | FileCheck %s --check-prefix=SKIP
// REPEAT: tiletag-run: error: --repeat needs --device=cuda or --device=rocm
// SKIP: tiletag-run: error: --skip-oracle needs --device=cuda or --device=rocm
