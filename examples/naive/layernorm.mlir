// Layer normalization, plain: mean and variance by passes over the row's
// column blocks, then normalize, scale and shift; one program per block of
// rows. The contract is its plain copy.

tile.kernel @layernorm(%X: memref<?x?xf32> {tile.name = "X"},
                       %gamma: memref<?xf32> {tile.name = "gamma"},
                       %beta: memref<?xf32> {tile.name = "beta"},
                       %Y: memref<?x?xf32> {tile.name = "Y"},
                       %eps: f32 {tile.name = "eps"})
    grid(1) attributes {
        tag.contract = @layernorm_reference,
        tile.launch = #tile.launch<sizes = [R = 40, C = 600], grid = [R ceildiv 16],
            shapes = [X = [R, C], gamma = [C], beta = [C], Y = [R, C]], check = "layernorm">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pr = tile.program_id 0
  %C = memref.dim %X, %c1 : memref<?x?xf32>
  %cblocks = arith.ceildivui %C, %c256 : index
  %C_i64 = arith.index_cast %C : index to i64
  %C_f32 = arith.uitofp %C_i64 : i64 to f32
  %C_b = tensor.splat %C_f32 : tensor<16xf32>
  %zero16 = arith.constant dense<0.0> : tensor<16xf32>

  %sum = scf.for %j = %c0 to %cblocks step %c1 iter_args(%s_j = %zero16) -> (tensor<16xf32>) {
    %x = tile.load %X[%pr, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x256xf32>
    %s = tile.reduce sum %x axis 1 : tensor<16x256xf32> -> tensor<16xf32>
    %next = arith.addf %s_j, %s : tensor<16xf32>
    scf.yield %next : tensor<16xf32>
  }
  %mean = arith.divf %sum, %C_b : tensor<16xf32>
  %mean_b = tile.broadcast %mean dims [1] : tensor<16xf32> -> tensor<16x256xf32>

  %cols = tile.iota dim 1 : tensor<16x256xindex>
  %C_splat = tensor.splat %C : tensor<16x256xindex>
  %zero_tile = arith.constant dense<0.0> : tensor<16x256xf32>
  %sq = scf.for %j = %c0 to %cblocks step %c1 iter_args(%q_j = %zero16) -> (tensor<16xf32>) {
    %x = tile.load %X[%pr, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x256xf32>
    %base = arith.muli %j, %c256 : index
    %base_b = tensor.splat %base : tensor<16x256xindex>
    %col = arith.addi %cols, %base_b : tensor<16x256xindex>
    %valid = arith.cmpi ult, %col, %C_splat : tensor<16x256xindex>
    %d = arith.subf %x, %mean_b : tensor<16x256xf32>
    %d_masked = arith.select %valid, %d, %zero_tile : tensor<16x256xi1>, tensor<16x256xf32>
    %d2 = arith.mulf %d_masked, %d_masked : tensor<16x256xf32>
    %q = tile.reduce sum %d2 axis 1 : tensor<16x256xf32> -> tensor<16xf32>
    %next = arith.addf %q_j, %q : tensor<16xf32>
    scf.yield %next : tensor<16xf32>
  }
  %var = arith.divf %sq, %C_b : tensor<16xf32>
  %eps_b = tensor.splat %eps : tensor<16xf32>
  %var_eps = arith.addf %var, %eps_b : tensor<16xf32>
  %rstd = math.rsqrt %var_eps : tensor<16xf32>
  %rstd_b = tile.broadcast %rstd dims [1] : tensor<16xf32> -> tensor<16x256xf32>

  scf.for %j = %c0 to %cblocks step %c1 {
    %x = tile.load %X[%pr, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x256xf32>
    %g = tile.load %gamma[%j] padding(0.0 : f32) : memref<?xf32> -> tensor<256xf32>
    %b = tile.load %beta[%j] padding(0.0 : f32) : memref<?xf32> -> tensor<256xf32>
    %g_b = tile.broadcast %g dims [0] : tensor<256xf32> -> tensor<16x256xf32>
    %b_b = tile.broadcast %b dims [0] : tensor<256xf32> -> tensor<16x256xf32>
    %d = arith.subf %x, %mean_b : tensor<16x256xf32>
    %n = arith.mulf %d, %rstd_b : tensor<16x256xf32>
    %scaled = arith.mulf %n, %g_b : tensor<16x256xf32>
    %y = arith.addf %scaled, %b_b : tensor<16x256xf32>
    tile.store %y, %Y[%pr, %j] : tensor<16x256xf32> -> memref<?x?xf32>
  }
  tile.return
}

// The contract of @layernorm.
tile.kernel @layernorm_reference(%X: memref<?x?xf32> {tile.name = "X"},
                                 %gamma: memref<?xf32> {tile.name = "gamma"},
                                 %beta: memref<?xf32> {tile.name = "beta"},
                                 %Y: memref<?x?xf32> {tile.name = "Y"},
                                 %eps: f32 {tile.name = "eps"})
    grid(1) attributes {
        tile.launch = #tile.launch<sizes = [R = 40, C = 600], grid = [R ceildiv 16],
            shapes = [X = [R, C], gamma = [C], beta = [C], Y = [R, C]], check = "layernorm">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pr = tile.program_id 0
  %C = memref.dim %X, %c1 : memref<?x?xf32>
  %cblocks = arith.ceildivui %C, %c256 : index
  %C_i64 = arith.index_cast %C : index to i64
  %C_f32 = arith.uitofp %C_i64 : i64 to f32
  %C_b = tensor.splat %C_f32 : tensor<16xf32>
  %zero16 = arith.constant dense<0.0> : tensor<16xf32>

  %sum = scf.for %j = %c0 to %cblocks step %c1 iter_args(%s_j = %zero16) -> (tensor<16xf32>) {
    %x = tile.load %X[%pr, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x256xf32>
    %s = tile.reduce sum %x axis 1 : tensor<16x256xf32> -> tensor<16xf32>
    %next = arith.addf %s_j, %s : tensor<16xf32>
    scf.yield %next : tensor<16xf32>
  }
  %mean = arith.divf %sum, %C_b : tensor<16xf32>
  %mean_b = tile.broadcast %mean dims [1] : tensor<16xf32> -> tensor<16x256xf32>

  %cols = tile.iota dim 1 : tensor<16x256xindex>
  %C_splat = tensor.splat %C : tensor<16x256xindex>
  %zero_tile = arith.constant dense<0.0> : tensor<16x256xf32>
  %sq = scf.for %j = %c0 to %cblocks step %c1 iter_args(%q_j = %zero16) -> (tensor<16xf32>) {
    %x = tile.load %X[%pr, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x256xf32>
    %base = arith.muli %j, %c256 : index
    %base_b = tensor.splat %base : tensor<16x256xindex>
    %col = arith.addi %cols, %base_b : tensor<16x256xindex>
    %valid = arith.cmpi ult, %col, %C_splat : tensor<16x256xindex>
    %d = arith.subf %x, %mean_b : tensor<16x256xf32>
    %d_masked = arith.select %valid, %d, %zero_tile : tensor<16x256xi1>, tensor<16x256xf32>
    %d2 = arith.mulf %d_masked, %d_masked : tensor<16x256xf32>
    %q = tile.reduce sum %d2 axis 1 : tensor<16x256xf32> -> tensor<16xf32>
    %next = arith.addf %q_j, %q : tensor<16xf32>
    scf.yield %next : tensor<16xf32>
  }
  %var = arith.divf %sq, %C_b : tensor<16xf32>
  %eps_b = tensor.splat %eps : tensor<16xf32>
  %var_eps = arith.addf %var, %eps_b : tensor<16xf32>
  %rstd = math.rsqrt %var_eps : tensor<16xf32>
  %rstd_b = tile.broadcast %rstd dims [1] : tensor<16xf32> -> tensor<16x256xf32>

  scf.for %j = %c0 to %cblocks step %c1 {
    %x = tile.load %X[%pr, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x256xf32>
    %g = tile.load %gamma[%j] padding(0.0 : f32) : memref<?xf32> -> tensor<256xf32>
    %b = tile.load %beta[%j] padding(0.0 : f32) : memref<?xf32> -> tensor<256xf32>
    %g_b = tile.broadcast %g dims [0] : tensor<256xf32> -> tensor<16x256xf32>
    %b_b = tile.broadcast %b dims [0] : tensor<256xf32> -> tensor<16x256xf32>
    %d = arith.subf %x, %mean_b : tensor<16x256xf32>
    %n = arith.mulf %d, %rstd_b : tensor<16x256xf32>
    %scaled = arith.mulf %n, %g_b : tensor<16x256xf32>
    %y = arith.addf %scaled, %b_b : tensor<16x256xf32>
    tile.store %y, %Y[%pr, %j] : tensor<16x256xf32> -> memref<?x?xf32>
  }
  tile.return
}
