// RUN: tiletag-opt %s --tiletag-describe -o /dev/null | FileCheck %s
// RUN: echo "module {}" | tiletag-opt --tiletag-describe -o /dev/null | FileCheck %s --check-prefix=EMPTY

// CHECK: kernel @k: grid rank 2, 3 warpgroup(s) (384 threads), cluster 2x1
// CHECK-NEXT: operands: A: memref<?x?xbf16>, arg1: index
// CHECK-NEXT: shared memory: 1 buffer(s), 16384 bytes
// CHECK-NEXT: loops: 2, 1 sequential, 1 warpgroup
// CHECK-NEXT: tile ops: program_id x1, alloc_shared x1
// CHECK-NEXT: tag ops: attach x1
// CHECK-NEXT: tag labels on other ops: 1
// CHECK-NEXT: schedule ops: mbarrier.init x1, role x1
// CHECK-NEXT: warp roles: producer on warpgroup(s) 0,2 with 40 registers
// EMPTY: no tile.kernel in this module
tile.kernel @k(%A: memref<?x?xbf16> {tile.name = "A"}, %n: index) grid(2)
    attributes {schedule.launch = #schedule.launch<warpgroups = 3, cluster = [2, 1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0 {tag.labels = [#tag.label<"P", () -> ()>]}
  %ring = tile.alloc_shared : memref<2x64x64xbf16, #gpu.address_space<workgroup>>
  %b = schedule.mbarrier.init count 1 : !schedule.mbarrier<2>
  %t = tag.attach %p as "X"() : index
  scf.for %i = %c0 to %n step %c1 {
  }
  scf.for %i = %c0 to %n step %c1 {
  } {schedule.map = #schedule.map<warpgroup>}
  schedule.role "producer" warpgroups [0, 2] regs 40 {
  }
  tile.return
}
