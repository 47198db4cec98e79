// Contracts the checker refuses rather than prove something it does not
// follow: a reference that accumulates into memory, and a kernel that reads
// back an output it writes. A kernel that meets its contract verifies.
// RUN: not tiletag-opt --tiletag-verify-tags %s -o /dev/null 2>&1 | FileCheck %s

tile.kernel @reads_back(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"})
    grid(1) attributes {tag.contract = @copy, tile.launch = #tile.launch<sizes = [N = 64], grid = [N ceildiv 16], shapes = [X = [N], Y = [N]]>} {
  %i = tile.program_id 0
  %x = tile.load %X[%i] padding(0.0 : f32) : memref<?xf32> -> tensor<16xf32>
  tile.store %x, %Y[%i] : tensor<16xf32> -> memref<?xf32>
  // CHECK: refused.mlir:[[@LINE+1]]:8: error: reads Y, which the kernel also stores to: a kernel with a contract never reads its outputs back
  %y = tile.load %Y[%i] padding(0.0 : f32) : memref<?xf32> -> tensor<16xf32>
  tile.store %y, %Y[%i] : tensor<16xf32> -> memref<?xf32>
  tile.return
}

tile.kernel @copy(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"})
    grid(1) attributes {tile.launch = #tile.launch<sizes = [N = 64], grid = [N ceildiv 16], shapes = [X = [N], Y = [N]]>} {
  %i = tile.program_id 0
  %x = tile.load %X[%i] padding(0.0 : f32) : memref<?xf32> -> tensor<16xf32>
  tile.store %x, %Y[%i] : tensor<16xf32> -> memref<?xf32>
  tile.return
}

tile.kernel @adds(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"})
    grid(1) attributes {tag.contract = @adds_reference, tile.launch = #tile.launch<sizes = [N = 64], grid = [N ceildiv 16], shapes = [X = [N], Y = [N]]>} {
  %i = tile.program_id 0
  %x = tile.load %X[%i] padding(0.0 : f32) : memref<?xf32> -> tensor<16xf32>
  tile.store %x, %Y[%i] combine add : tensor<16xf32> -> memref<?xf32>
  tile.return
}

tile.kernel @adds_reference(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"})
    grid(1) attributes {tile.launch = #tile.launch<sizes = [N = 64], grid = [N ceildiv 16], shapes = [X = [N], Y = [N]]>} {
  %i = tile.program_id 0
  %x = tile.load %X[%i] padding(0.0 : f32) : memref<?xf32> -> tensor<16xf32>
  // CHECK: refused.mlir:[[@LINE+1]]:3: error: a reference kernel states its outputs with plain stores, not 'combine'
  tile.store %x, %Y[%i] combine add : tensor<16xf32> -> memref<?xf32>
  tile.return
}

// Without launch contracts the two grids are unrelated: the reference may
// run more programs than the kernel, which then misses blocks.
// CHECK: refused.mlir:[[@LINE+8]]:3: error: the kernel never stores a block of Y that the reference's store here stores
tile.kernel @unlaunched(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"})
    grid(1) attributes {tag.contract = @unlaunched_reference} {
  tile.return
}
tile.kernel @unlaunched_reference(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) {
  %i = tile.program_id 0
  %x = tile.load %X[%i] padding(0.0 : f32) : memref<?xf32> -> tensor<16xf32>
  tile.store %x, %Y[%i] : tensor<16xf32> -> memref<?xf32>
  tile.return
}

// A kernel that meets its contract: every block of Y, the same value.
// CHECK-NOT: error
tile.kernel @meets(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"})
    grid(1) attributes {tag.contract = @copy, tile.launch = #tile.launch<sizes = [N = 64], grid = [N ceildiv 16], shapes = [X = [N], Y = [N]]>} {
  %i = tile.program_id 0
  %x = tile.load %X[%i] padding(0.0 : f32) : memref<?xf32> -> tensor<16xf32>
  tile.store %x, %Y[%i] : tensor<16xf32> -> memref<?xf32>
  tile.return
}
