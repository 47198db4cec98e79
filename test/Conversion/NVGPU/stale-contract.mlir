// A kernel's tag stamp covers its contract: changing the reference kernel
// after the proof makes the stamp stale, and the lowering refuses the
// kernel. The reference itself is never lowered.
// RUN: tiletag-opt %s --tiletag-verify | tiletag-opt --tiletag-convert-to-nvgpu | FileCheck %s --check-prefix=LOWERED
// RUN: tiletag-opt %s --tiletag-verify | sed -e '/@copy_reference/,$ s/padding(0.000000e+00/padding(1.000000e+00/' | not tiletag-opt --tiletag-convert-to-nvgpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=STALE
// LOWERED: gpu.func @copy
// LOWERED-NOT: gpu.func @copy_reference
// STALE: error: the proof of its tags is stale: the kernel changed after it was verified

tile.kernel @copy(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tag.contract = @copy_reference,
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}

tile.kernel @copy_reference(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %i = tile.program_id 0
  %t = tile.load %X[%i] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%i] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
