// A thread-mapped softmax with two shared-memory reduction trees (28 slot
// reads): proof time must stay small as accesses grow. The tags of data read
// back from shared memory are built only where a tag.field observes them
// (here the row maximum, through the whole max tree).
// RUN: tiletag-opt --tiletag-verify=stats=1 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK
// Without the barrier after the partials, the first tree step's reads race
// with other threads' writes.
// RUN: sed -e '0,/^  schedule.barrier cta/{/^  schedule.barrier cta/d}' %s > %t.mlir
// RUN: not diff -q %s %t.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule %t.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=RACE
// OK: remark: @softmax_threads: 1 assertions and {{[0-9]+}} obligations; no contract, {{[0-9]+}} schedule obligations, {{[0-9]+}} definedness obligations proved
// RACE: error: no other thread touches these elements without a barrier between (read-write race with the access at line [[W:[0-9]+]]) does not hold
// RACE: note: the tile.write at line [[W]] runs with pid0 = 0, iv0@line{{[0-9]+}} = {{[4-7]}}, slot [{{[4-7]}}] of %maxes
// RACE: note: the tile.read at line {{[0-9]+}} runs with pid0 = 0, iv1@line{{[0-9]+}} = {{[0-3]}}, slot [{{[4-7]}}] of %maxes

// A softmax whose row reductions run through shared memory by threads: 8
// threads each reduce a 16x32 slice of the program's 16 rows and write the
// partial to their slot; a tree of 3 steps (4, 2, 1 threads, a barrier after
// each) combines slot t and slot t + half into slot t; every thread then
// reads slot 0. Max first, then the sum of exponentials in a second buffer.
// Each tree step's reads race with the previous step's writes without the
// barrier between them.
tile.kernel @softmax_threads(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64], grid = [R ceildiv 16], shapes = [X = [R, 256], Y = [R, 256]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %p = tile.program_id 0
  %maxes = tile.alloc_shared : memref<8x16xf32, #gpu.address_space<workgroup>>
  %sums = tile.alloc_shared : memref<8x16xf32, #gpu.address_space<workgroup>>
  scf.for %t = %c0 to %c8 step %c1 {
    %x = tile.load %X[%p, %t] padding(0xFF800000 : f32) : memref<?x?xf32> -> tensor<16x32xf32>
    %m = tile.reduce max %x axis 1 : tensor<16x32xf32> -> tensor<16xf32>
    tile.write %m, %maxes[%t] : tensor<16xf32> -> memref<8x16xf32, #gpu.address_space<workgroup>>
  } {schedule.map = #schedule.map<thread>}
  schedule.barrier cta
  scf.for %t = %c0 to %c4 step %c1 {
    %u = arith.addi %t, %c4 : index
    %mine = tile.read %maxes[%t] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %theirs = tile.read %maxes[%u] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %both = arith.maximumf %mine, %theirs : tensor<16xf32>
    tile.write %both, %maxes[%t] : tensor<16xf32> -> memref<8x16xf32, #gpu.address_space<workgroup>>
  } {schedule.map = #schedule.map<thread>}
  schedule.barrier cta
  scf.for %t = %c0 to %c2 step %c1 {
    %u = arith.addi %t, %c2 : index
    %mine = tile.read %maxes[%t] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %theirs = tile.read %maxes[%u] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %both = arith.maximumf %mine, %theirs : tensor<16xf32>
    tile.write %both, %maxes[%t] : tensor<16xf32> -> memref<8x16xf32, #gpu.address_space<workgroup>>
  } {schedule.map = #schedule.map<thread>}
  schedule.barrier cta
  scf.for %t = %c0 to %c1 step %c1 {
    %u = arith.addi %t, %c1 : index
    %mine = tile.read %maxes[%t] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %theirs = tile.read %maxes[%u] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %both = arith.maximumf %mine, %theirs : tensor<16xf32>
    tile.write %both, %maxes[%t] : tensor<16xf32> -> memref<8x16xf32, #gpu.address_space<workgroup>>
  } {schedule.map = #schedule.map<thread>}
  schedule.barrier cta
  scf.for %t = %c0 to %c8 step %c1 {
    %m = tile.read %maxes[%c0] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %m_b = tile.broadcast %m dims [1] : tensor<16xf32> -> tensor<16x32xf32>
    %x = tile.load %X[%p, %t] padding(0xFF800000 : f32) : memref<?x?xf32> -> tensor<16x32xf32>
    %shifted = arith.subf %x, %m_b : tensor<16x32xf32>
    %e = math.exp %shifted : tensor<16x32xf32>
    %s = tile.reduce sum %e axis 1 : tensor<16x32xf32> -> tensor<16xf32>
    tile.write %s, %sums[%t] : tensor<16xf32> -> memref<8x16xf32, #gpu.address_space<workgroup>>
  } {schedule.map = #schedule.map<thread>}
  schedule.barrier cta
  scf.for %t = %c0 to %c4 step %c1 {
    %u = arith.addi %t, %c4 : index
    %mine = tile.read %sums[%t] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %theirs = tile.read %sums[%u] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %both = arith.addf %mine, %theirs : tensor<16xf32>
    tile.write %both, %sums[%t] : tensor<16xf32> -> memref<8x16xf32, #gpu.address_space<workgroup>>
  } {schedule.map = #schedule.map<thread>}
  schedule.barrier cta
  scf.for %t = %c0 to %c2 step %c1 {
    %u = arith.addi %t, %c2 : index
    %mine = tile.read %sums[%t] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %theirs = tile.read %sums[%u] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %both = arith.addf %mine, %theirs : tensor<16xf32>
    tile.write %both, %sums[%t] : tensor<16xf32> -> memref<8x16xf32, #gpu.address_space<workgroup>>
  } {schedule.map = #schedule.map<thread>}
  schedule.barrier cta
  scf.for %t = %c0 to %c1 step %c1 {
    %u = arith.addi %t, %c1 : index
    %mine = tile.read %sums[%t] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %theirs = tile.read %sums[%u] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %both = arith.addf %mine, %theirs : tensor<16xf32>
    tile.write %both, %sums[%t] : tensor<16xf32> -> memref<8x16xf32, #gpu.address_space<workgroup>>
  } {schedule.map = #schedule.map<thread>}
  schedule.barrier cta
  scf.for %t = %c0 to %c8 step %c1 {
    %m = tile.read %maxes[%c0] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %l = tile.read %sums[%c0] : memref<8x16xf32, #gpu.address_space<workgroup>> -> tensor<16xf32>
    %m_b = tile.broadcast %m dims [1] : tensor<16xf32> -> tensor<16x32xf32>
    %l_b = tile.broadcast %l dims [1] : tensor<16xf32> -> tensor<16x32xf32>
    %x = tile.load %X[%p, %t] padding(0xFF800000 : f32) : memref<?x?xf32> -> tensor<16x32xf32>
    %shifted = arith.subf %x, %m_b : tensor<16x32xf32>
    %e = math.exp %shifted : tensor<16x32xf32>
    %y = arith.divf %e, %l_b : tensor<16x32xf32>
    %row = tag.field %m["X", 0] : tensor<16xf32>
    tag.assert eq %row, %p, "the row maximum is this program's" : index
    tile.store %y, %Y[%p, %t] : tensor<16x32xf32> -> memref<?x?xf32>
  } {schedule.map = #schedule.map<thread>}
  tile.return
}
