// TileTag in Debian's mlir-opt-22 as a plugin: its dialects parse, its
// checkers prove the kernel, and the schedule strips to the specification.
// mlir-opt makes its pass flags before it loads a pass plugin, so the
// plugin's passes are named in --pass-pipeline.
// REQUIRES: mlir-opt-plugin
// RUN: mlir-opt --load-dialect-plugin=%tiletag_lib/TileTagPlugin.so \
// RUN:   --load-pass-plugin=%tiletag_lib/TileTagPlugin.so %examples/gemm.mlir \
// RUN:   --pass-pipeline="builtin.module(tiletag-verify{stats=1})" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VERIFY
// VERIFY: remark: @gemm: {{.*}} proved with
// VERIFY: remark: @gemm_reference: {{.*}} proved with
// RUN: mlir-opt --load-dialect-plugin=%tiletag_lib/TileTagPlugin.so \
// RUN:   --load-pass-plugin=%tiletag_lib/TileTagPlugin.so %examples/gemm.mlir \
// RUN:   --pass-pipeline="builtin.module(tiletag-strip-schedule,tiletag-strip-tags)" \
// RUN:   | FileCheck %s --check-prefix=STRIP
// STRIP: tile.kernel @gemm(
// STRIP-NOT: schedule.
// STRIP: tile.dot
// A broken schedule is refused, with TileTag's counterexample.
// RUN: sed -e '/schedule.mbarrier.wait %%full/d' %examples/gemm.mlir > %t.mlir
// RUN: not mlir-opt --load-dialect-plugin=%tiletag_lib/TileTagPlugin.so \
// RUN:   --load-pass-plugin=%tiletag_lib/TileTagPlugin.so %t.mlir \
// RUN:   --pass-pipeline="builtin.module(tiletag-verify)" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BROKEN
// BROKEN: error: read-after-write on %a_ring
// BROKEN: note: replay on the CPU: tiletag-run
// Without the plugin, mlir-opt knows no tile dialect.
// RUN: not mlir-opt %examples/gemm.mlir 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: {{.*}}tile
