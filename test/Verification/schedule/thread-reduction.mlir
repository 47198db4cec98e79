// A two-step reduction through shared memory by 4 warps: each warp writes its
// partial to slot w, then reads the partial of warp (w + 1) mod 4. The
// barrier between the steps orders every write before every read; without it
// warps race.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// RUN: sed -e '/schedule.barrier cta/d' %s > %t.mlir
// RUN: not tiletag-opt --tiletag-verify-schedule %t.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=RACE
// OK: schedule.verified
// RACE: error: no other warp touches these elements without a barrier between (read-write race with the access at line [[W:[0-9]+]]) does not hold
// RACE: note: the tile.write at line [[W]] runs with pid0 = {{[0-9]+}}, iv0@line{{[0-9]+}} = [[A:[0-9]+]]
// RACE: note: the tile.read at line {{[0-9]+}} runs with pid0 = {{[0-9]+}}, iv1@line{{[0-9]+}} = {{[0-9]+}}

tile.kernel @reduce(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64], grid = [R ceildiv 16], shapes = [X = [R, 128], Y = [R, 128]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  %part = tile.alloc_shared : memref<4x16x32xf32, #gpu.address_space<workgroup>>
  scf.for %w = %c0 to %c4 step %c1 {
    %x = tile.load %X[%p, %w] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x32xf32>
    tile.write %x, %part[%w] : tensor<16x32xf32> -> memref<4x16x32xf32, #gpu.address_space<workgroup>>
  } {schedule.map = #schedule.map<warp>}
  schedule.barrier cta
  scf.for %w = %c0 to %c4 step %c1 {
    %w1 = arith.addi %w, %c1 : index
    %other = arith.remui %w1, %c4 : index
    %mine = tile.read %part[%w] : memref<4x16x32xf32, #gpu.address_space<workgroup>> -> tensor<16x32xf32>
    %theirs = tile.read %part[%other] : memref<4x16x32xf32, #gpu.address_space<workgroup>> -> tensor<16x32xf32>
    %sum = arith.addf %mine, %theirs : tensor<16x32xf32>
    tile.store %sum, %Y[%p, %w] : tensor<16x32xf32> -> memref<?x?xf32>
  } {schedule.map = #schedule.map<warp>}
  tile.return
}
