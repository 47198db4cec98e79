// A double-buffered TMA-store epilogue: tile j is written to buffer j mod
// 2 while the store of tile j - 1 may still read the other one; `wait_group
// tma pending 1` retires the store of tile j - 1 before the buffer is
// written again at j + 1, and a `pending 0` after the loop retires the last
// before the program ends. (Rejected at every depth by an earlier checker,
// which ignored `pending N` with N > 0.)
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// OK: schedule.verified
// Two groups in flight: buffer j mod 2 is rewritten while its store may run.
// RUN: sed -e 's/pending 1/pending 2/' %s > %t.shallow.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.shallow.mlir -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: a wait_group tma retires the TMA store at line {{[0-9]+}} before this write to its shared buffer does not hold
// CHECK: note: counterexample:
// Without the final wait, the last store may outlive the program.
// RUN: sed -e '/pending 0/d' %s > %t.exit.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.exit.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: error: a commit_group tma and a wait_group tma retire this TMA store before the program ends does not hold
// A TMA store on the wrong unit: its groups committed and waited for on
// the wgmma unit retire nothing of it; the store issued on the wgmma unit
// itself is refused.
// RUN: sed -e 's/commit_group tma/commit_group wgmma/; s/wait_group tma/wait_group wgmma/' %s > %t.unit.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.unit.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNIT
// UNIT: error: a wait_group tma retires the TMA store at line {{[0-9]+}} before this write to its shared buffer does not hold
// UNIT: error: a commit_group tma and a wait_group tma retire this TMA store before the program ends does not hold
// RUN: sed -e 's/schedule.async tma {/schedule.async wgmma {/' %t.unit.mlir > %t.wgmma.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.wgmma.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=WGMMA
// WGMMA: error: 'tile.copy' op cannot run on the wgmma unit: its region holds only tile.dot operations
tile.kernel @epilogue(%X: memref<?x?xf32> {tile.name = "X"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [M = 256, N = 256], grid = [M ceildiv 64],
                               shapes = [X = [M, N], C = [M, N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id 0
  %N = memref.dim %X, %c1 : memref<?x?xf32>
  %tiles = arith.ceildivui %N, %c64 : index
  %epi = tile.alloc_shared : memref<2x64x64xf32, #gpu.address_space<workgroup>>
  %c2 = arith.constant 2 : index
  scf.for %j = %c0 to %tiles step %c1 {
    %b = arith.remui %j, %c2 : index
    %t = tile.load %X[%pm, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
    tile.write %t, %epi[%b] : tensor<64x64xf32> -> memref<2x64x64xf32, #gpu.address_space<workgroup>>
    schedule.fence_async_proxy
    schedule.async tma {
      tile.copy %epi[%b] -> %C[%pm, %j] : memref<2x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
    }
    schedule.commit_group tma
    schedule.wait_group tma pending 1
  }
  schedule.wait_group tma pending 0
  tile.return
}
