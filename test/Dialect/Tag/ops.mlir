// RUN: tiletag-opt %s | tiletag-opt | FileCheck %s
// RUN: tiletag-opt %s --mlir-print-op-generic | tiletag-opt | FileCheck %s

// CHECK-LABEL: tile.kernel @tags
tile.kernel @tags(%A: memref<?x?xbf16> {tile.name = "A"}) grid(2) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  // CHECK: tile.load {{.*}} {tag.labels = [#tag.label<"Blk", (d0, d1) -> (d0, d1 floordiv 2)>]}
  %a = tile.load %A[%pm, %pn] {tag.labels = [#tag.label<"Blk", (d0, d1) -> (d0, d1 floordiv 2)>]}
      : memref<?x?xbf16> -> tensor<64x64xbf16>
  // CHECK: tag.attach %{{.*}} as "Acc"(%{{.*}}, %{{.*}}) : tensor<64x64xbf16>
  %t = tag.attach %a as "Acc"(%pm, %pn) : tensor<64x64xbf16>
  // CHECK: tag.attach %{{.*}} as "Flag"() : index
  %u = tag.attach %c0 as "Flag"() : index
  // CHECK: tag.field %{{.*}}["A", 1] : tensor<64x64xbf16>
  %k = tag.field %a["A", 1] : tensor<64x64xbf16>
  // CHECK: tag.assert eq %{{.*}}, %{{.*}}, "same block" : index
  tag.assert eq %k, %pn, "same block" : index
  // CHECK: tag.assert ne %{{.*}}, %{{.*}} : index
  tag.assert ne %k, %c4 : index
  // CHECK: tag.assert lt
  tag.assert lt %k, %c4 : index
  // CHECK: tag.assert le
  tag.assert le %k, %c4 : index
  // CHECK: tag.assert gt
  tag.assert gt %k, %c0 : index
  // CHECK: tag.assert ge
  tag.assert ge %k, %c0 : index
  // CHECK: tag.assert_affine #{{.*}}(%{{.*}}, %{{.*}}), "diagonal"
  tag.assert_affine affine_set<(d0, d1) : (d1 - d0 * 2 >= 0)>(%pm, %k), "diagonal"
  // CHECK: tag.assert_affine #{{.*}}(%{{.*}}, %{{.*}})
  tag.assert_affine affine_set<(d0)[s0] : (s0 - d0 - 1 >= 0, d0 >= 0)>(%k, %c4)
  // CHECK: tag.assert_range %{{.*}} in [%{{.*}}, %{{.*}}), "in range" : index
  tag.assert_range %k in [%c0, %c4), "in range" : index
  // CHECK: tag.assert_carries %{{.*}}, "A"(%{{.*}}, %{{.*}}) : tensor<64x64xbf16>
  tag.assert_carries %a, "A"(%pm, %pn) : tensor<64x64xbf16>
  tile.return
}
