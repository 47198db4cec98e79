// A proof stamp holds the hash of the IR it proved. Verify, rewrite, lower:
// the rewrite (here canonicalize folding 1 + 1) makes the stamps stale and
// the lowering refuses the kernel until it is verified again. Without the
// rewrite, and across printing and parsing, the stamps stay valid.
// RUN: tiletag-opt %s --tiletag-verify | FileCheck %s --check-prefix=STAMP
// RUN: not tiletag-opt %s --tiletag-verify --canonicalize --tiletag-convert-to-nvgpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: tiletag-opt %s --tiletag-verify --canonicalize --tiletag-verify --tiletag-convert-to-nvgpu -o /dev/null
// RUN: tiletag-opt %s --tiletag-verify | tiletag-opt --tiletag-convert-to-nvgpu | FileCheck %s --check-prefix=LOWERED
// RUN: tiletag-opt %s --tiletag-verify | sed -e 's/arith.constant 1 : index/arith.constant 0 : index/' | not tiletag-opt --tiletag-convert-to-nvgpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=STALE
// STAMP: schedule.verified = "[[H:[0-9a-f]+]]", tag.verified = "[[H]]"
// STALE: error: the proof of its tags is stale: the kernel changed after it was verified; run --tiletag-verify first
// STALE: error: the proof of its schedule annotations is stale
// LOWERED: gpu.func @copy

tile.kernel @copy(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %c1 = arith.constant 1 : index
  %two = arith.addi %c1, %c1 : index
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  %b = tag.field %t["X", 0] : tensor<128xf32>
  tag.assert eq %b, %p, "the block of this program" : index
  schedule.barrier cta
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
