// Row softmax, plain: three passes over the row's column blocks (max, sum
// of exponentials, normalize), one program per 16 rows. The contract is its
// plain copy.

tile.kernel @softmax(%X: memref<?x?xf32> {tile.name = "X"},
                     %Y: memref<?x?xf32> {tile.name = "Y"})
    grid(1) attributes {
        tag.contract = @softmax_reference,
        tile.launch = #tile.launch<sizes = [R = 40, C = 600], grid = [R ceildiv 16],
            shapes = [X = [R, C], Y = [R, C]], check = "softmax">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pr = tile.program_id 0
  %C = memref.dim %X, %c1 : memref<?x?xf32>
  %cblocks = arith.ceildivui %C, %c256 : index

  %m0 = arith.constant dense<0xFF800000> : tensor<16xf32>
  %m = scf.for %j = %c0 to %cblocks step %c1 iter_args(%m_j = %m0) -> (tensor<16xf32>) {
    %x = tile.load %X[%pr, %j] padding(0xFF800000 : f32) : memref<?x?xf32> -> tensor<16x256xf32>
    %bm = tile.reduce max %x axis 1 : tensor<16x256xf32> -> tensor<16xf32>
    %next = arith.maximumf %m_j, %bm : tensor<16xf32>
    scf.yield %next : tensor<16xf32>
  }
  %m_b = tile.broadcast %m dims [1] : tensor<16xf32> -> tensor<16x256xf32>

  %l0 = arith.constant dense<0.0> : tensor<16xf32>
  %l = scf.for %j = %c0 to %cblocks step %c1 iter_args(%l_j = %l0) -> (tensor<16xf32>) {
    %x = tile.load %X[%pr, %j] padding(0xFF800000 : f32) : memref<?x?xf32> -> tensor<16x256xf32>
    %shifted = arith.subf %x, %m_b : tensor<16x256xf32>
    %e = math.exp %shifted : tensor<16x256xf32>
    %s = tile.reduce sum %e axis 1 : tensor<16x256xf32> -> tensor<16xf32>
    %next = arith.addf %l_j, %s : tensor<16xf32>
    scf.yield %next : tensor<16xf32>
  }
  %l_b = tile.broadcast %l dims [1] : tensor<16xf32> -> tensor<16x256xf32>

  scf.for %j = %c0 to %cblocks step %c1 {
    %x = tile.load %X[%pr, %j] padding(0xFF800000 : f32) : memref<?x?xf32> -> tensor<16x256xf32>
    %shifted = arith.subf %x, %m_b : tensor<16x256xf32>
    %e = math.exp %shifted : tensor<16x256xf32>
    %y = arith.divf %e, %l_b : tensor<16x256xf32>
    tile.store %y, %Y[%pr, %j] : tensor<16x256xf32> -> memref<?x?xf32>
  }
  tile.return
}

// The contract of @softmax.
tile.kernel @softmax_reference(%X: memref<?x?xf32> {tile.name = "X"},
                               %Y: memref<?x?xf32> {tile.name = "Y"})
    grid(1) attributes {
        tile.launch = #tile.launch<sizes = [R = 40, C = 600], grid = [R ceildiv 16],
            shapes = [X = [R, C], Y = [R, C]], check = "softmax">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pr = tile.program_id 0
  %C = memref.dim %X, %c1 : memref<?x?xf32>
  %cblocks = arith.ceildivui %C, %c256 : index

  %m0 = arith.constant dense<0xFF800000> : tensor<16xf32>
  %m = scf.for %j = %c0 to %cblocks step %c1 iter_args(%m_j = %m0) -> (tensor<16xf32>) {
    %x = tile.load %X[%pr, %j] padding(0xFF800000 : f32) : memref<?x?xf32> -> tensor<16x256xf32>
    %bm = tile.reduce max %x axis 1 : tensor<16x256xf32> -> tensor<16xf32>
    %next = arith.maximumf %m_j, %bm : tensor<16xf32>
    scf.yield %next : tensor<16xf32>
  }
  %m_b = tile.broadcast %m dims [1] : tensor<16xf32> -> tensor<16x256xf32>

  %l0 = arith.constant dense<0.0> : tensor<16xf32>
  %l = scf.for %j = %c0 to %cblocks step %c1 iter_args(%l_j = %l0) -> (tensor<16xf32>) {
    %x = tile.load %X[%pr, %j] padding(0xFF800000 : f32) : memref<?x?xf32> -> tensor<16x256xf32>
    %shifted = arith.subf %x, %m_b : tensor<16x256xf32>
    %e = math.exp %shifted : tensor<16x256xf32>
    %s = tile.reduce sum %e axis 1 : tensor<16x256xf32> -> tensor<16xf32>
    %next = arith.addf %l_j, %s : tensor<16xf32>
    scf.yield %next : tensor<16xf32>
  }
  %l_b = tile.broadcast %l dims [1] : tensor<16xf32> -> tensor<16x256xf32>

  scf.for %j = %c0 to %cblocks step %c1 {
    %x = tile.load %X[%pr, %j] padding(0xFF800000 : f32) : memref<?x?xf32> -> tensor<16x256xf32>
    %shifted = arith.subf %x, %m_b : tensor<16x256xf32>
    %e = math.exp %shifted : tensor<16x256xf32>
    %y = arith.divf %e, %l_b : tensor<16x256xf32>
    tile.store %y, %Y[%pr, %j] : tensor<16x256xf32> -> memref<?x?xf32>
  }
  tile.return
}
