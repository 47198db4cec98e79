// Two warp roles hand a shared buffer over through CTA barriers outside the
// roles, which every role reaches in program order: the writer's tile.write
// precedes the first barrier, the reader's tile.read follows it; the second
// keeps the next tile's write after this read. (An earlier checker credited
// only mbarrier edges between roles, and the lowering refused barriers
// outside the roles.) Each barrier removed leaves a race with a
// counterexample. Both lowerings emit the barrier in each role's copy.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// OK: schedule.verified
// RUN: tiletag-opt %s --tiletag-compile-cuda="format=isa output=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: bar.sync{{[[:space:]]+}}0;
// RUN: tiletag-opt %s --tiletag-compile-rocm="chip=gfx942 format=isa output=%t.s" -o /dev/null
// RUN: FileCheck %s --check-prefix=ISA < %t.s
// ISA: s_barrier
// RUN: tiletag-run %s --size M=100,N=200 | FileCheck %s --check-prefix=ORACLE
// ORACLE: run @handoff (M=100, N=200)
// RUN: awk '/^ *schedule.barrier cta$/ && !n++ {next} {print}' %s > %t.first.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.first.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=RAW
// RAW: error: read-after-write on %buf (line {{[0-9]+}}): the access at line {{[0-9]+}} happens before this one through a barrier does not hold
// RAW: note: counterexample:
// RUN: awk '/^ *schedule.barrier cta$/ && n++ == 1 {next} {print}' %s > %t.second.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.second.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=WAR
// WAR: error: write-after-read on %buf (line {{[0-9]+}}): the access at line {{[0-9]+}} happens before this one through a barrier does not hold
// WAR: note: counterexample:
tile.kernel @handoff(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [M = 128, N = 256], grid = [M ceildiv 64],
                               shapes = [X = [M, N], Y = [M, N]]>,
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id 0
  %N = memref.dim %X, %c1 : memref<?x?xf32>
  %tiles = arith.ceildivui %N, %c64 : index
  %buf = tile.alloc_shared : memref<1x64x64xf32, #gpu.address_space<workgroup>>
  scf.for %j = %c0 to %tiles step %c1 {
    schedule.role "writer" warpgroups [0] {
      %t = tile.load %X[%pm, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<64x64xf32>
      tile.write %t, %buf[%c0] : tensor<64x64xf32> -> memref<1x64x64xf32, #gpu.address_space<workgroup>>
    }
    schedule.barrier cta
    schedule.role "reader" warpgroups [1] {
      %r = tile.read %buf[%c0] : memref<1x64x64xf32, #gpu.address_space<workgroup>> -> tensor<64x64xf32>
      tile.store %r, %Y[%pm, %j] : tensor<64x64xf32> -> memref<?x?xf32>
    }
    schedule.barrier cta
  }
  tile.return
}
