// The lowering emits wgmma, TMA and setmaxnreg: only sm_90a has them.
// RUN: not tiletag-opt %s --tiletag-convert-to-nvgpu="allow-unverified chip=sm_80" 2>&1 | FileCheck %s
// RUN: not tiletag-opt %s --tiletag-compile-cuda="chip=sm_100a verify=0 allow-unverified format=isa" 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not tiletag-run %s --device=cuda --chip=sm_80 2>&1 | FileCheck %s
// CHECK: error: the Hopper lowering targets sm_90a (wgmma, TMA and setmaxnreg need its architecture-specific features), not 'sm_80'
// PIPE: error: the Hopper lowering targets sm_90a {{.*}} not 'sm_100a'
tile.kernel @k(%X: memref<?x?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 64], grid = [1], shapes = [X = [N, N]]>} {
  tile.return
}
