// RUN: tiletag-opt %s --split-input-file --tiletag-strip-tags | FileCheck %s

// Attachments become their tagged value, assertions and fields disappear, and
// index arithmetic that only fed them goes with them; the computation stays.

// CHECK-LABEL: tile.kernel @strip
tile.kernel @strip(%A: memref<?x?xf32> {tile.name = "A"}, %C: memref<?x?xf32>) grid(2) {
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  // CHECK: %[[T:.*]] = tile.load
  // CHECK-NOT: tag.labels
  %t = tile.load %A[%pm, %pn] {tag.labels = [#tag.label<"L", (d0, d1) -> (d0)>]} : memref<?x?xf32> -> tensor<16x16xf32>
  %u = tag.attach %t as "Acc"(%pm, %pn) : tensor<16x16xf32>
  %k = tag.field %u["A", 1] : tensor<16x16xf32>
  %k1 = arith.addi %k, %c1 : index
  %bound = arith.muli %pn, %c7 : index
  tag.assert le %k1, %bound, "ghost arithmetic" : index
  tag.assert_range %k in [%pm, %bound) : index
  tag.assert_affine affine_set<(d0, d1) : (d1 - d0 >= 0)>(%pm, %k)
  tag.assert_carries %u, "A"(%pm, %pn) : tensor<16x16xf32>
  // CHECK-NEXT: %[[S:.*]] = arith.addf %[[T]], %[[T]]
  %s = arith.addf %u, %u : tensor<16x16xf32>
  // CHECK-NEXT: tile.store %[[S]]
  tile.store %s, %C[%pm, %pn] : tensor<16x16xf32> -> memref<?x?xf32>
  // CHECK-NEXT: tile.return
  tile.return
}
// CHECK-NOT: tag.
// CHECK-NOT: arith.muli
// CHECK-NOT: arith.addi

// -----

// Unrelated dead code of the user's is left alone.
// CHECK-LABEL: func.func @keeps_user_code
// CHECK: arith.constant 42
// CHECK-NOT: tag.
func.func @keeps_user_code(%x: index) -> index {
  %unused = arith.constant 42 : index
  %t = tag.attach %x as "X"() : index
  return %t : index
}
