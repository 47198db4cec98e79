// A TMA copy into shared memory must complete before the program ends: a
// wait on its mbarrier element follows it. Here the producer also fetches
// the next block (a prefetch the consumer does not use); the consumer waits
// for it before the program ends. Without that wait its bytes may land in
// shared memory that the SM has handed to the next program.
// RUN: tiletag-opt --tiletag-verify-schedule %s | FileCheck %s --check-prefix=OK
// RUN: sed -e '/drain the prefetch/d' %s > %t.mlir
// RUN: not diff -q %s %t.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify-schedule %t.mlir -o /dev/null 2>&1 | FileCheck %s
// OK: schedule.verified
// CHECK: error: a wait on %full (line [[L:[0-9]+]]) follows this TMA copy before the program ends (otherwise its bytes may land after the program's shared memory is reused) does not hold
// CHECK: note: counterexample:
// CHECK: note: the schedule.async at line {{[0-9]+}} runs with pid0 = {{[0-9]+}}
// CHECK-NOT: error:

tile.kernel @prefetch(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 1024], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>,
    schedule.launch = #schedule.launch<warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %next = arith.addi %p, %c1 : index
  %buf = tile.alloc_shared : memref<2x128xf32, #gpu.address_space<workgroup>>
  %full = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  schedule.role "producer" warpgroups [0] {
    schedule.mbarrier.arrive_expect_tx %full[%c0], 512 : !schedule.mbarrier<2>
    schedule.async tma arrive %full[%c0] : !schedule.mbarrier<2> {
      tile.copy %X[%p] -> %buf[%c0] padding(0.0 : f32)
          : memref<?xf32> -> memref<2x128xf32, #gpu.address_space<workgroup>>
    }
    schedule.mbarrier.arrive_expect_tx %full[%c1], 512 : !schedule.mbarrier<2>
    schedule.async tma arrive %full[%c1] : !schedule.mbarrier<2> {
      tile.copy %X[%next] -> %buf[%c1] padding(0.0 : f32)
          : memref<?xf32> -> memref<2x128xf32, #gpu.address_space<workgroup>>
    }
  }
  schedule.role "consumer" warpgroups [1] {
    schedule.mbarrier.wait %full[%c0], %c0 : !schedule.mbarrier<2>, index
    %t = tile.read %buf[%c0] : memref<2x128xf32, #gpu.address_space<workgroup>> -> tensor<128xf32>
    tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
    schedule.mbarrier.wait %full[%c1], %c0 : !schedule.mbarrier<2>, index // drain the prefetch
  }
  tile.return
}
